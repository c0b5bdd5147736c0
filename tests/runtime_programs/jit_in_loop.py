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


def single_pass():
    x = jnp.arange(4.0)
    for _ in range(1):  # the loop runs once: one trace, nothing to confirm
        x = jax.jit(lambda v: v + 1.0)(x)
    return x


if __name__ == "__main__":
    main()
    single_pass()
