"""A program that starts Python workers: a multiprocessing pool (spawn) and a `sys.executable` subprocess.
(JAX is imported in main(), so the spawned workers, which import this module, start quickly.)"""
import multiprocessing
import subprocess
import sys


def work(n):
    return n * n


def main():
    import jax
    import jax.numpy as jnp

    print("total", float(jax.jit(jnp.sum)(jnp.ones(3))))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print("squares", pool.map(work, range(4)))
    subprocess.run([sys.executable, "-c", "print('child')"], check=True)


if __name__ == "__main__":
    main()
