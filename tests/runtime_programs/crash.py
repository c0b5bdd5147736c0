"""Runs some jitted code (a print of a tracer), then crashes with an uncaught exception."""
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    print("tracing with", x)
    return x + 1


def load_checkpoint(path):
    raise FileNotFoundError(f"no checkpoint at {path}")


def main():
    x = step(jnp.zeros(2))
    load_checkpoint("/nonexistent/ckpt")
    return x


if __name__ == "__main__":
    main()
