"""Correct: a static mode that alternates between two strings (train steps, then an eval step): two
compiles over eight calls. (JIT301 flags it: statically the schedule could hold any strings.)"""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="mode")
def run(x, mode):
    return x * 0.5 if mode == "train" else x


def loop(x, schedule):
    for mode in schedule:
        x = run(x, mode=mode)
    return x


def main():
    loop(jnp.ones(4), ["train", "train", "train", "eval"] * 2)


if __name__ == "__main__":
    main()
