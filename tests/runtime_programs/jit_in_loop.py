"""`jax.jit(lambda ...)` inside a loop: a new function object, so a new trace and compile, every pass."""
import jax
import jax.numpy as jnp


def main():
    x = jnp.arange(4.0)
    total = 0.0
    for _ in range(5):
        y = jax.jit(lambda v: v * 2.0)(x)
        total += float(y.sum())
    print("total", total)


if __name__ == "__main__":
    main()
