"""Correct (if wasteful): `cache.setdefault(key, jax.jit(...))` builds a wrapper each time but calls the
cached one; two keys over six calls: two compiles. (The new wrapper is only handed to `setdefault`, never
called where it is made: no JIT101.)"""
import jax
import jax.numpy as jnp

_STEPS = {}


def train(w, g, lrs):
    for lr in lrs:
        step = _STEPS.setdefault(lr, jax.jit(lambda w, g: w - lr * g))
        w = step(w, g)
    return w


def main():
    train(jnp.ones(3), jnp.full(3, 0.1), [0.5, 0.25] * 3)


if __name__ == "__main__":
    main()
