"""A training script's loop at module level: an equinox Module rebuilt each step with a new float field,
passed to `eqx.filter_jit`, which keeps the field static: one compile per value."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Tempered(eqx.Module):
    weight: jax.Array
    temperature: float

    def __call__(self, x):
        return jax.nn.softmax(self.weight * x / self.temperature)


@eqx.filter_jit
def loss(layer, x):
    return layer(x).sum()


if __name__ == "__main__":
    total = 0.0
    for step in range(4):
        layer = Tempered(jnp.ones(3), 0.9 ** step)
        total += float(loss(layer, jnp.ones(3)))
    print("total", round(total, 3))
