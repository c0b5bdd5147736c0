"""A Flax linen classifier trained with optax and a TrainState, with the pitfalls people really write.

Run it:  python examples/flax_linen_train.py        Lint it:  jitlint check examples/
Confirm: jitlint run examples/flax_linen_train.py
Every pitfall is marked with the rule that finds it; the last one raises, so it comes last.
"""

import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class Classifier(nn.Module):
    hidden: int = 8
    classes: int = 3

    @nn.compact
    def __call__(self, x, training: bool = False):
        x = nn.relu(nn.Dense(self.hidden)(x))
        if training:  # a Python bool: fine
            x = x * 0.9
        logits = nn.Dense(self.classes)(x)
        print("logits:", logits)  # JIT501: prints a tracer once, at trace time
        return logits


model = Classifier()


def create_state(rng, sample):
    params = model.init(rng, sample)["params"]
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-2))


@jax.jit
def train_step(state, x, y):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, x, training=True)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


@jax.jit
def log_every(state, loss):
    if state.step % 2 == 0:  # JIT401: `step` is a traced leaf of the TrainState
        return loss
    return -loss


def main():
    key = jax.random.key(0)
    x = jax.random.normal(key, (16, 4))
    y = jnp.arange(16) % 3
    state = create_state(key, x)
    for epoch in range(3):
        state, loss = train_step(state, x, y)
        for batch in (x[:8], x[8:]):
            # A new lambda per batch is a new cache key (so is `jax.jit(model.apply)`: a linen module's
            # `apply` is a new bound method on every access).
            logits = jax.jit(lambda p, b: model.apply(p, b))({"params": state.params}, batch)  # JIT101
        print(f"epoch {epoch}: loss {float(loss):.4f}, logits {logits.shape}")
    log_every(state, loss)


if __name__ == "__main__":
    main()
