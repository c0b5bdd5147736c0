"""Ends with os._exit(3), which skips every exit handler: the probe writes its report first."""
import os

import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    print("tracing with", x)
    return x + 1


step(jnp.zeros(2))
os._exit(3)
