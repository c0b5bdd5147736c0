"""Correct: the jitted function is created once, before the loop."""
import jax
import jax.numpy as jnp


def main():
    step = jax.jit(lambda x: jnp.sin(x) + x)
    x = jnp.zeros(5)
    for _ in range(10):
        x = step(x)


if __name__ == "__main__":
    main()
