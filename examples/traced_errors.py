"""Functions that fail while JAX traces them: control flow and shapes that depend on traced values.

Each function shows one pitfall, marked with its rule; the fixed version follows it.
"""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def clipped_relu(x, threshold):
    if x.sum() > threshold:  # JIT401: Python `if` on a traced value
        return jnp.zeros_like(x)
    return jnp.maximum(x, 0.0)


@jax.jit
def clipped_relu_fixed(x, threshold):
    return jnp.where(x.sum() > threshold, jnp.zeros_like(x), jnp.maximum(x, 0.0))


@jax.jit
def positive_mean(x):
    return x[x > 0].mean()  # JIT601: boolean mask indexing has a data-dependent shape


@jax.jit
def positive_mean_fixed(x):
    return jnp.sum(x, where=x > 0) / jnp.maximum(jnp.sum(x > 0), 1)


@jax.jit
def repeat_steps(x, n):
    for _ in range(n):  # JIT407: range() over a traced value
        x = x * 0.5
    return x


@partial(jax.jit, static_argnames="n")
def repeat_steps_fixed(x, n):
    return lax.fori_loop(0, n, lambda i, v: v * 0.5, x)


@jax.jit
def first_k(x, k):
    return x[:k]  # JIT408: a slice with a traced bound


@jax.jit
def first_k_fixed(x, k):
    return lax.dynamic_slice_in_dim(x, 0, 4) * (jnp.arange(4) < k)


@jax.jit
def nonzero_rows(x):
    return jnp.nonzero(x)[0]  # JIT603: output size depends on the data


@jax.jit
def nonzero_rows_fixed(x):
    return jnp.nonzero(x, size=x.shape[0], fill_value=-1)[0]


@jax.jit
def to_python(x):
    scale = float(x.max())  # JIT404: float() needs a concrete value
    return x / scale
