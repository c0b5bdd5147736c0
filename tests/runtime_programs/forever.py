"""Prints a tracer at trace time, then never ends: for the --timeout test."""
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    print("tracing with", x)
    return x + 1


def main():
    x = step(jnp.zeros(2))
    n = 0
    while True:
        n += 1
    return x


if __name__ == "__main__":
    main()
