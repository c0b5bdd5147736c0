"""Correct: a static activation name looked up in a two-entry dict, per layer: two compiles in all.
(Every call passes a literal tuple of roles, a sweep: the lookup takes one value per item, and jitlint says
nothing; the run shows two.)"""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="act")
def layer(x, act):
    return jax.nn.relu(x) if act == "relu" else jnp.tanh(x)


def forward(x, config, roles):
    for role in roles:
        x = layer(x, act=config[role])
    return x


def main():
    x = jnp.linspace(-1.0, 1.0, 8)
    config = {"hidden": "relu", "output": "tanh"}
    for _step in range(3):
        x = forward(x, config, ("hidden", "hidden", "output"))


if __name__ == "__main__":
    main()
