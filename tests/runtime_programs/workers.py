"""A program that starts Python workers: a multiprocessing pool (spawn) and a `sys.executable` subprocess."""
import multiprocessing
import subprocess
import sys

import jax
import jax.numpy as jnp


def work(n):
    return n * n


@jax.jit
def total(x):
    return x.sum()


def main():
    print("total", float(total(jnp.ones(3))))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print("squares", pool.map(work, range(4)))
    subprocess.run([sys.executable, "-c", "print('child')"], check=True)


if __name__ == "__main__":
    main()
