"""`jitlint run --trace` with pytree arguments: a params dict and a batch, given as shape specs
(`--arg '{"w": "f32[3,4]", "b": "f32[4]"}'`) or by a function returning example arguments (`--args`)."""
import jax
import jax.numpy as jnp


def predict(params, x):
    h = x @ params["w"] + params["b"]
    print("hidden", h)
    return jnp.tanh(h)


def example_args():
    params = {"w": jax.ShapeDtypeStruct((3, 4), jnp.float32), "b": jnp.zeros(4)}
    return params, jax.ShapeDtypeStruct((5, 3), jnp.float32)


def flax_loss(params, x):
    return jnp.mean(_model().apply(params, x) ** 2)


def _model():
    import flax.linen as nn

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.Dense(8)(x)
            print("flax hidden", h)
            return nn.Dense(1)(nn.relu(h))

    return MLP()


def flax_example():
    """A Flax params dict without data: jax.eval_shape of init gives ShapeDtypeStructs."""
    x = jax.ShapeDtypeStruct((2, 6), jnp.float32)
    params = jax.eval_shape(_model().init, jax.random.PRNGKey(0), x)
    return (params, x), {}


def broken_example():
    raise RuntimeError("no checkpoint")
