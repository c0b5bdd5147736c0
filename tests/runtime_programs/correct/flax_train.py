"""Correct: a Flax linen model trained with a jitted step (params pytree, optax state): one compile."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(nn.relu(nn.Dense(8)(x)))


def main():
    model = MLP()
    x, y = jnp.ones((16, 4)), jnp.zeros((16, 1))
    params = model.init(jax.random.PRNGKey(0), x)
    tx = optax.sgd(0.1)
    opt_state = tx.init(params)

    @jax.jit
    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(params)
        updates, opt_state = tx.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    for _ in range(8):
        params, opt_state, _loss = step(params, opt_state, x, y)


if __name__ == "__main__":
    main()
