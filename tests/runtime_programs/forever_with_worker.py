"""Starts a worker process of its own, prints a tracer at trace time, then never ends: for the SIGTERM test."""
import subprocess
import sys

import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    print("tracing with", x)
    return x + 1


def main():
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print("worker", worker.pid, flush=True)
    x = step(jnp.zeros(2))
    n = 0
    while True:
        n += 1
    return x


if __name__ == "__main__":
    main()
