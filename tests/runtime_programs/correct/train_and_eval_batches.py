"""Correct: separate jitted train and eval steps, eval on a larger fixed batch every few steps."""
import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x):
    return w - 0.01 * jax.grad(lambda v: jnp.sum((x @ v) ** 2))(w)


@jax.jit
def eval_step(w, x):
    return jnp.mean(x @ w)


def main():
    w = jnp.ones(4)
    train_x, eval_x = jnp.ones((8, 4)), jnp.ones((64, 4))
    for step in range(10):
        w = train_step(w, train_x)
        if step % 5 == 4:
            eval_step(w, eval_x)


if __name__ == "__main__":
    main()
