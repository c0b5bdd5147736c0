"""Correct: a jitted helper used for float32 features and int32 labels: two compiles, by design."""
import jax
import jax.numpy as jnp


@jax.jit
def count_nonzero(x):
    return jnp.sum(x != 0)


def main():
    features, labels = jnp.ones((4, 3)), jnp.arange(4, dtype=jnp.int32)
    for _ in range(4):
        count_nonzero(features)
        count_nonzero(labels)


if __name__ == "__main__":
    main()
