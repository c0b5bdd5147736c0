"""Unbounded growth without churn, from other work: each round adds a sample the jitted summary does not
make (a dataset a search extends), so jitlint check leaves it (JIT606 follows only recurrences); every
round has a new length; three rounds are only two retraces, but a new cache entry on every call."""
import jax
import jax.numpy as jnp


@jax.jit
def summary(samples):
    return jnp.tanh(samples.sum())


def main():
    samples = jnp.ones(1)
    for k in range(3):
        print("summary", float(summary(samples)))
        samples = jnp.concatenate([samples, jnp.full(1, float(k))])


if __name__ == "__main__":
    main()
