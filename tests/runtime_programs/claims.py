"""Confirmation by the claim: a line that raises at trace time confirms the finding there, whatever
exception it raised. `int()` of a traced length-3 vector raises TypeError (not the
ConcretizationTypeError a scalar gives); the program catches it. Then it crashes on an unhashable static
argument, whose message spans lines ("... The error was:" and the cause)."""
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def as_count(x):
    stats = jnp.stack([x.mean(), x.std(), x.max()])
    return int(stats)


@partial(jax.jit, static_argnums=1)
def scaled(x, factors):
    return x * factors[0]


def main():
    try:
        as_count(jnp.arange(4.0))
    except TypeError as exc:
        print("caught", type(exc).__name__)
    print(scaled(jnp.ones(3), [2.0, 3.0]))


if __name__ == "__main__":
    main()
