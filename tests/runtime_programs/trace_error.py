"""A trace-time error: Python `if` on a traced value inside @jax.jit. Caught unless --uncaught."""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def relu(x):
    if x > 0:
        return x
    return x * 0.0


def main():
    x = jnp.float32(1.5)
    if "--uncaught" in sys.argv:
        return relu(x)
    try:
        relu(x)
    except jax.errors.TracerBoolConversionError as exc:
        print("caught:", type(exc).__name__)
    return None


if __name__ == "__main__":
    main()
