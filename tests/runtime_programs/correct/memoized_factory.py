"""Correct: jitted functions memoized per key in a dict; two keys, each jitted (and compiled) once."""
import jax
import jax.numpy as jnp

_CACHE = {}


def scaler(k):
    if k not in _CACHE:
        _CACHE[k] = jax.jit(lambda x: x * k)
    return _CACHE[k]


def main():
    x = jnp.ones(3)
    for step in range(6):
        x = scaler(1.0 if step % 2 else 2.0)(x)


if __name__ == "__main__":
    main()
