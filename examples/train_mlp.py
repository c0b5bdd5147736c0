"""A small MLP regression trainer with the jit pitfalls people really write.

Run it:  python examples/train_mlp.py        Lint it:  jitlint check examples/
Every pitfall is marked with the rule that finds it.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def init_params(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


@jax.jit
def loss_fn(params, x, y):
    pred = forward(params, x)
    loss = jnp.mean((pred - y) ** 2)
    print("loss:", loss)  # JIT501: prints a tracer once, at trace time
    return loss


@partial(jax.jit, static_argnames="lr")
def sgd_step(params, x, y, lr):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def train(epochs=3, batch_size=32):
    key = jax.random.PRNGKey(0)
    params = init_params(key, [4, 16, 1])
    rng = np.random.default_rng(0)
    data_x = rng.normal(size=(100, 4)).astype(np.float32)
    data_y = data_x.sum(axis=1, keepdims=True)
    for epoch in range(epochs):
        lr = 0.1 / (epoch + 1)  # a new float every epoch
        for start in range(0, len(data_x), batch_size):
            xb, yb = data_x[start:start + batch_size], data_y[start:start + batch_size]
            params = sgd_step(params, xb, yb, lr=lr)  # JIT302: a float static argument recompiles per value
        evaluate = jax.jit(lambda p: loss_fn(p, data_x, data_y))  # JIT101: a new lambda jitted every epoch
        print(f"epoch {epoch}: loss {float(evaluate(params)):.4f}")
    return params


if __name__ == "__main__":
    train()
