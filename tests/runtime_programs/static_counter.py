"""A static argument fed the loop counter: one trace and compile per distinct value."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def scale(x, n):
    return x * n


def main():
    x = jnp.ones(3)
    for step in range(4):
        x = scale(x, step + 1)
    print("sum", float(x.sum()))


if __name__ == "__main__":
    main()
