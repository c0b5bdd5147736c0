"""Train the MLP for 2 epochs of 4 batches (32, 32, 32 and a ragged 4).

Planted: `train_step` is an `eqx.filter_jit` step given the schedule's Python float (static under
filter_jit: a new value every step, so 8 compiles, 7 of them for `lr`); the ragged last batch adds one
shape (bounded: not a finding); `eval_step` gets a lambda built per batch (static: a compile per batch);
`loss_fn`'s `lax.cond` branch lambdas are traced inside the step (not fresh functions of their own);
`summarize` tests a traced length-3 vector with `if` and crashes the program (ValueError)."""
import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax

from eqx_train.data import batches, dataset
from eqx_train.model import MLP
from eqx_train.schedules import exponential_decay

EPOCHS = 2


def loss_fn(model, x, y):
    err = jax.vmap(model)(x) - y
    scaled = lax.cond(jnp.mean(err) > 0, lambda e: e * 1.0, lambda e: e * 0.5, err)
    return jnp.mean(scaled ** 2)


@eqx.filter_jit
def train_step(model, x, y, lr):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x, y)
    model = jax.tree_util.tree_map(lambda p, g: p - lr * g, model, grads)
    return model, loss


@eqx.filter_jit
def eval_step(model, x, y, metric):
    return metric(jax.vmap(model)(x), y)


@eqx.filter_jit
def ema_update(ema, model):
    return jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, ema, model)


@eqx.filter_jit
def summarize(model, x):
    stats = jnp.stack([jnp.mean(x), jnp.std(x), jnp.max(x)])
    if stats > 0:
        return jnp.sum(stats)
    return jnp.zeros(())


def main():
    key = jax.random.PRNGKey(0)
    model = ema = MLP(key)
    x, y = dataset(key)
    step = 0
    for epoch in range(EPOCHS):
        for xb, yb in batches(x, y, 32):
            lr = exponential_decay(step)
            model, loss = train_step(model, xb, yb, lr)
            ema = ema_update(ema, model)
            step += 1
        for xb, yb in batches(x, y, 50):
            score = eval_step(model, xb, yb, lambda p, t: jnp.mean(jnp.abs(p - t)))
        print(f"epoch {epoch}: loss {float(loss):.4f} score {float(score):.4f}")
    print("summary", summarize(ema, x))


if __name__ == "__main__":
    main()
