"""Correct: a learning rate passed as a traced float32 array every time (no weak/strong switch)."""
import jax
import jax.numpy as jnp


@jax.jit
def sgd(w, g, lr):
    return w - lr * g


def main():
    w, g = jnp.ones(3), jnp.full(3, 0.5)
    for epoch in range(6):
        lr = jnp.asarray(0.1 / (epoch + 1), dtype=jnp.float32)
        w = sgd(w, g, lr)


if __name__ == "__main__":
    main()
