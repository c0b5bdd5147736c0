"""Correct: three activations cycled over the layers of a small network, four passes: three compiles
over twelve calls; every value comes back. (Every call passes a literal list, a sweep: jitlint takes each
static for one value per item and says nothing.)"""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="act")
def layer(x, act):
    return getattr(jax.nn, act)(x)


def forward(x, acts):
    for act in acts:
        x = layer(x, act=act)
    return x


def main():
    x = jnp.linspace(-1.0, 1.0, 6)
    for _ in range(4):
        x = forward(x, ["relu", "gelu", "silu"])


if __name__ == "__main__":
    main()
