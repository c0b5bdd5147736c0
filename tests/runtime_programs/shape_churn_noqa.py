"""Shape churn twice: the first call site is silenced with `# noqa: JIT901`, the second is not."""
import jax
import jax.numpy as jnp


@jax.jit
def double(x):
    return x * 2.0


def main():
    for n in (3, 4):
        double(jnp.ones(n))  # noqa: JIT901
    for n in (5, 6):
        double(jnp.ones(n))


if __name__ == "__main__":
    main()
