"""Correct: a params-dict (Flax-style) training loop with a jitted step and fixed shapes: one compile."""
import jax
import jax.numpy as jnp


def init(key):
    k1, k2 = jax.random.split(key)
    return {"dense1": {"w": jax.random.normal(k1, (4, 8)) * 0.1, "b": jnp.zeros(8)},
            "dense2": {"w": jax.random.normal(k2, (8, 1)) * 0.1, "b": jnp.zeros(1)}}


def apply(params, x):
    h = jax.nn.relu(x @ params["dense1"]["w"] + params["dense1"]["b"])
    return h @ params["dense2"]["w"] + params["dense2"]["b"]


@jax.jit
def train_step(params, x, y):
    def loss(p):
        return jnp.mean((apply(p, x) - y) ** 2)
    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), value


def main():
    params = init(jax.random.PRNGKey(0))
    x, y = jnp.ones((16, 4)), jnp.zeros((16, 1))
    for _ in range(10):
        params, _loss = train_step(params, x, y)


if __name__ == "__main__":
    main()
