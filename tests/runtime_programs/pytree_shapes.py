"""Shape changes inside pytrees, named by their paths: a jitted step over a dict batch with a ragged last
batch, and an Equinox model rebuilt wider (its first layer's weight changes shape) under filter_jit."""
import equinox as eqx
import jax
import jax.numpy as jnp


@jax.jit
def batch_loss(params, batch):
    return jnp.mean((batch["x"] @ params["w"] - batch["y"]) ** 2)


@eqx.filter_jit
def forward(model, x):
    return jax.vmap(model)(x)


def main():
    params = {"w": jnp.ones((4, 1))}
    data = {"x": jnp.ones((40, 4)), "y": jnp.zeros((40, 1))}
    for start in range(0, 40, 16):
        batch_loss(params, {k: v[start:start + 16] for k, v in data.items()})
    for width in (8, 16, 32):
        model = eqx.nn.MLP(4, 1, width, depth=1, key=jax.random.PRNGKey(0))
        forward(model, jnp.ones((2, 4)))


if __name__ == "__main__":
    main()
