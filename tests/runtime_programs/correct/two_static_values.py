"""Correct: a static flag with two values, each used for many calls: two compiles in all."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="square")
def transform(x, square):
    return x * x if square else x + 1


def main():
    x = jnp.ones(4)
    for square in (False, True):
        for _ in range(4):
            x = transform(x, square=square)


if __name__ == "__main__":
    main()
