"""Calls written over several lines (as black formats long ones): the static finding is on an argument's
line, the run sees the call at its first line. `counter` grows (one compile per step); `modes` alternates
between two values (eight calls, counted once each although the call's first line runs twice)."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="mode")
def run(x, mode):
    return x * 0.5 if mode == "train" else x


@partial(jax.jit, static_argnames="n")
def scale(x, n):
    return x * n


def modes(x, schedule):
    for mode in schedule:
        x = run(
            x,
            mode=mode,
        )
    return x


def counter(x, steps):
    for step in range(steps):
        x = scale(
            x,
            n=step + 1,
        )
    return x


def main():
    modes(jnp.ones(4), ["train", "train", "train", "eval"] * 2)
    counter(jnp.ones(4), 4)


if __name__ == "__main__":
    main()
