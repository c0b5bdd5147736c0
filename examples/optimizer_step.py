"""A hand-written optimizer loop that passes a new update rule to a jitted step every iteration.

Run it:  python examples/optimizer_step.py        Lint it:  jitlint check examples/
"""

from functools import partial

import jax
import jax.numpy as jnp


def sgd(param, grad, lr):
    return param - lr * grad


@partial(jax.jit, static_argnames="update")
def apply_update(params, grads, update):
    return jax.tree_util.tree_map(update, params, grads)


@jax.jit
def loss(params, x):
    return jnp.sum((x @ params["w"] + params["b"]) ** 2)


def fit(params, x, steps=5):
    for step in range(steps):
        grads = jax.grad(loss)(params, x)
        update = partial(sgd, lr=0.1 / (step + 1))
        params = apply_update(params, grads, update)  # JIT201: a new partial every step recompiles
    return params


def fit_fixed(params, x, steps=5):
    """The fix: a traced learning rate, one compile."""
    step_fn = jax.jit(lambda p, g, lr: jax.tree_util.tree_map(lambda a, b: sgd(a, b, lr), p, g))
    for step in range(steps):
        grads = jax.grad(loss)(params, x)
        params = step_fn(params, grads, 0.1 / (step + 1))
    return params


if __name__ == "__main__":
    x = jnp.ones((8, 3))
    params = {"w": jnp.full((3, 1), 0.5), "b": jnp.zeros(1)}
    print(fit(params, x)["b"], fit_fixed(params, x)["b"])
