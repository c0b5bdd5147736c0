"""A Flax NNX regression model trained with nnx.jit and an nnx.Optimizer, with planted pitfalls.

Run it:  python examples/flax_nnx_train.py        Lint it:  jitlint check examples/
Confirm: jitlint run examples/flax_nnx_train.py
Every pitfall is marked with the rule that finds it; the last one raises, so it comes last.
"""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Regressor(nnx.Module):
    def __init__(self, din: int, dout: int, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, 8, rngs=rngs)
        self.out = nnx.Linear(8, dout, rngs=rngs)
        self.din = din

    def __call__(self, x):
        if self.din > 2:  # a Python int attribute: fine
            x = x * 1.0
        y = self.out(nnx.relu(self.hidden(x)))
        print("prediction:", y)  # JIT501: prints a tracer once, at trace time
        return y

    def clipped(self, x):
        y = self(x)
        if y.max() > 10.0:  # JIT401: a Python `if` on a traced value
            y = y / 10.0
        return y


def loss_fn(model: Regressor, x, y):
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: Regressor, optimizer: nnx.Optimizer, x, y):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss


def evaluate(model: Regressor, x):
    return model(x).mean()


@nnx.jit
def predict_clipped(model: Regressor, x):
    return model.clipped(x)


def main():
    model = Regressor(4, 1, nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
    x = jax.random.normal(jax.random.key(0), (16, 4))
    y = x.sum(axis=1, keepdims=True)
    for epoch in range(3):
        loss = train_step(model, optimizer, x, y)
        score = nnx.jit(evaluate)(model, x)  # JIT101: `nnx.jit` retraces on every re-wrap
        print(f"epoch {epoch}: loss {float(loss):.4f}, score {float(score):.4f}")
    predict_clipped(model, x)


if __name__ == "__main__":
    main()
