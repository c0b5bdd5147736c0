"""Train the MLP for 2 epochs of 4 batches (32, 32, 32 and a ragged 4).

Planted: `train_step` is `nnx.jit` with `lr` static, fed a decaying Python float (8 compiles, 7 of them for
`lr`); the ragged last batch adds one shape (bounded: not a finding); `eval_step` gets a lambda built per
batch as a static argument (a compile per batch); the `lax.cond` branch lambdas are traced inside the step."""
import jax
import jax.numpy as jnp
from flax import nnx
from jax import lax

from nnx_train.model import MLP

EPOCHS = 2


@nnx.jit(static_argnames="lr")
def train_step(model, x, y, lr):
    def loss_fn(m):
        err = m(x) - y
        scaled = lax.cond(jnp.mean(err) > 0, lambda e: e * 1.0, lambda e: e * 0.5, err)
        return jnp.mean(scaled ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    params = nnx.state(model, nnx.Param)
    nnx.update(model, jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads))
    return loss


@nnx.jit(static_argnames="metric")
def eval_step(model, x, y, metric):
    return metric(model(x), y)


def main():
    model = MLP(nnx.Rngs(0))
    x = jax.random.normal(jax.random.PRNGKey(0), (100, 16))
    y = jnp.sum(x, axis=1, keepdims=True)
    step = 0
    for epoch in range(EPOCHS):
        for start in range(0, 100, 32):
            lr = 0.01 * 0.9 ** step
            loss = train_step(model, x[start:start + 32], y[start:start + 32], lr)
            step += 1
        for start in range(0, 100, 50):
            score = eval_step(model, x[start:start + 50], y[start:start + 50], lambda p, t: jnp.mean(jnp.abs(p - t)))
        print(f"epoch {epoch}: loss {float(loss):.4f} score {float(score):.4f}")


if __name__ == "__main__":
    main()
