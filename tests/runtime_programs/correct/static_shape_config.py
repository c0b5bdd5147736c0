"""Correct: a static output shape taken from a constant config tuple: one compile."""
from functools import partial

import jax
import jax.numpy as jnp

CONFIG = {"hidden": (4, 8)}


@partial(jax.jit, static_argnames="shape")
def init_layer(key, shape):
    return jax.random.normal(key, shape) * 0.1


def main():
    key = jax.random.PRNGKey(0)
    for _ in range(4):
        key, sub = jax.random.split(key)
        init_layer(sub, shape=CONFIG["hidden"])


if __name__ == "__main__":
    main()
