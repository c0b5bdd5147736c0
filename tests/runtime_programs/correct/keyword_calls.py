"""Correct: a jitted function always called the same way (keywords), with a fixed pytree of options."""
import jax
import jax.numpy as jnp


@jax.jit
def update(state, *, grads):
    return {k: state[k] - 0.1 * grads[k] for k in state}


def main():
    state = {"a": jnp.ones(2), "b": jnp.zeros(3)}
    grads = {"a": jnp.full(2, 0.5), "b": jnp.full(3, 0.5)}
    for _ in range(6):
        state = update(state, grads=grads)


if __name__ == "__main__":
    main()
