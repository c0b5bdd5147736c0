"""A ragged last batch: 100 rows in batches of 32 give shapes 32, 32, 32 and 4, so the loss is
traced and compiled twice. Then a scale flips between a Python float and a float32 array."""
import jax
import jax.numpy as jnp


@jax.jit
def loss(batch):
    return jnp.mean(batch ** 2)


@jax.jit
def scaled(x, s):
    return x * s


def main():
    data = jnp.arange(100 * 4.0).reshape(100, 4)
    total = 0.0
    for start in range(0, 100, 32):
        batch = data[start:start + 32]
        total += float(loss(batch))
    for i in range(4):
        s = 0.5 if i % 2 == 0 else jnp.float32(0.5)
        total += float(scaled(data[0], s).sum())
    print("total", total)


if __name__ == "__main__":
    main()
