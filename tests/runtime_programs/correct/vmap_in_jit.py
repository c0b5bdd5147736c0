"""Correct: vmap inside jit, per-example function batched once; one compile."""
import jax
import jax.numpy as jnp


def per_example(w, x):
    return jnp.dot(w, x)


@jax.jit
def batched(w, xs):
    return jax.vmap(per_example, in_axes=(None, 0))(w, xs)


def main():
    w, xs = jnp.ones(3), jnp.ones((6, 3))
    for _ in range(5):
        batched(w, xs)


if __name__ == "__main__":
    main()
