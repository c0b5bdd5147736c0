"""Train the MLP: `jitlint check examples/project` finds the pitfalls in the helpers of the other files,
and `jitlint run examples/project/train.py` confirms each one (the last raises, and ends the run)."""
from functools import partial

import jax
import jax.numpy as jnp

import losses
import model
import schedules
import utils

EPOCHS = 3
STEPS = 3
SIZES = (4, 16, 8)


@partial(jax.jit, static_argnames=("lr",))
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(lambda p: losses.cross_entropy(model.apply(p, x), y))(params)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


@jax.jit
def weighted_step(params, x, y, present):
    grads = jax.grad(lambda p: losses.class_weighted(model.apply(p, x), y, present))(params)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


@jax.jit
def confident_error(params, x, y):
    probs = jax.nn.softmax(model.apply(params, x))
    err = 1.0 - jnp.take_along_axis(probs, y[:, None], axis=1)[:, 0]
    return losses.masked_mean(err, probs.max(axis=-1) > 0.5)


def make_batches(key, epoch):
    """An epoch's batches; batch k of the run holds classes 0..k (mod the number of classes)."""
    batches = []
    for i, kx in enumerate(jax.random.split(key, STEPS)):
        x = jax.random.normal(kx, (8, SIZES[0]))
        y = jnp.arange(8) % ((epoch * STEPS + i) % SIZES[-1] + 1)
        batches.append((x, y))
    return batches


def main():
    params = model.init(jax.random.PRNGKey(0), SIZES)
    for epoch in range(EPOCHS):
        batches = make_batches(jax.random.PRNGKey(epoch), epoch)
        for step, (x, y) in enumerate(batches):
            lr = schedules.warmup_cosine(epoch * STEPS + step, EPOCHS * STEPS)
            params, loss = train_step(params, x, y, lr)  # expect: JIT301
            params = weighted_step(params, x, y, jnp.unique(y))  # expect: JIT605
        print(f"epoch {epoch}: accuracy {utils.accuracy(params, batches):.2f}")
    x, y = batches[0]
    print("confident error:", confident_error(params, x, y))


if __name__ == "__main__":
    main()
