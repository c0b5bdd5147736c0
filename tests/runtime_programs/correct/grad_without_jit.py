"""Correct: plain jax.grad (no jit) in a small loop: nothing is cached, nothing recompiles."""
import jax
import jax.numpy as jnp


def loss(w):
    return jnp.sum(w ** 2)


def main():
    w = jnp.ones(3)
    grad = jax.grad(loss)
    for _ in range(3):
        w = w - 0.1 * grad(w)


if __name__ == "__main__":
    main()
