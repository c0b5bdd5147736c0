"""The model: a small MLP as an Equinox module."""
import equinox as eqx
import jax


class MLP(eqx.Module):
    layers: list

    def __init__(self, key, sizes=(16, 32, 1)):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(a, b, key=k) for a, b, k in zip(sizes[:-1], sizes[1:], keys)]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)
