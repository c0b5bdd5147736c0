"""Correct: an equinox model trained with eqx.filter_jit, fixed shapes: one compile."""
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def step(model, x, y):
    def loss(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)
    grads = eqx.filter_grad(loss)(model)
    return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, model, grads)


def main():
    model = eqx.nn.Linear(4, 1, key=jax.random.PRNGKey(0))
    x, y = jnp.ones((8, 4)), jnp.zeros((8, 1))
    for _ in range(6):
        model = step(model, x, y)


if __name__ == "__main__":
    main()
