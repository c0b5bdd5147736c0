"""An Equinox MLP trained with eqx.filter_jit and optax, with planted pitfalls.

Run it:  python examples/equinox_train.py        Lint it:  jitlint check examples/
Confirm: jitlint run examples/equinox_train.py
Every pitfall is marked with the rule that finds it; the last one raises, so it comes last.
"""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class MLP(eqx.Module):
    layers: list
    depth: int = eqx.field(static=True)

    def __init__(self, key, width=8, depth=2):
        keys = jax.random.split(key, depth + 1)
        self.layers = [eqx.nn.Linear(4, width, key=keys[0])]
        self.layers += [eqx.nn.Linear(width, width, key=k) for k in keys[1:-1]]
        self.layers.append(eqx.nn.Linear(width, 1, key=keys[-1]))
        self.depth = depth

    def __call__(self, x: jax.Array):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)

    def checked(self, x: jax.Array):
        y = self(x)
        if jnp.isnan(y).any():  # JIT401: a Python `if` on a traced value
            raise ValueError("nan")
        return y


@eqx.filter_jit
def train_step(model, opt_state, x: jax.Array, y: jax.Array, lr):
    def loss_fn(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    updates, opt_state = optimizer.update(grads, opt_state)
    updates = jax.tree.map(lambda u: u * lr, updates)
    return eqx.apply_updates(model, updates), opt_state, loss


@eqx.filter_jit
def predict(model, x: jax.Array):
    return jax.vmap(model.checked)(x)


optimizer = optax.sgd(1.0)


def main():
    key = jax.random.key(0)
    model = MLP(key)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_array))
    x = jax.random.normal(key, (16, 4))
    y = x.sum(axis=1, keepdims=True)
    for step in range(4):
        lr = 0.1 / (step + 1)
        # A Python float is a static argument of filter_jit: one compile per learning rate.
        model, opt_state, loss = train_step(model, opt_state, x, y, lr)  # JIT302
        print(f"step {step}: loss {float(loss):.4f}")
    predict(model, x)


if __name__ == "__main__":
    main()
