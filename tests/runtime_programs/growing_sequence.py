"""Unbounded growth without churn: a decode loop appends a token each step without padding, so every
step has a new sequence length; three steps are only two retraces, but a new cache entry on every call."""
import jax
import jax.numpy as jnp


@jax.jit
def next_token(tokens):
    return jnp.tanh(tokens.sum())[None]


def main():
    tokens = jnp.ones(1)
    for _ in range(3):
        tokens = jnp.concatenate([tokens, next_token(tokens)])
    print("length", tokens.shape[0])


if __name__ == "__main__":
    main()
