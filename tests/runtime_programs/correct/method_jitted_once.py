"""Correct: an object jits its bound method once, in __init__, and is called many times."""
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self._apply = jax.jit(self.apply)

    def apply(self, x):
        return x * self.factor

    def __call__(self, x):
        return self._apply(x)


def main():
    scale = Scaler(2.0)
    x = jnp.ones(4)
    for _ in range(8):
        x = scale(x)


if __name__ == "__main__":
    main()
