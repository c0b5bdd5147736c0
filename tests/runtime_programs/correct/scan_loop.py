"""Correct: the inner loop is a lax.scan inside one jitted function; called repeatedly with one shape."""
import jax
import jax.numpy as jnp


@jax.jit
def rollout(x):
    def body(carry, _):
        carry = carry * 0.9 + 1.0
        return carry, carry.sum()
    return jax.lax.scan(body, x, None, length=10)


def main():
    x = jnp.ones(3)
    for _ in range(5):
        x, _sums = rollout(x)


if __name__ == "__main__":
    main()
