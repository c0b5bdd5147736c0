"""Correct: the ragged last batch is padded to the batch size (with a mask), so every call has one shape."""
import jax
import jax.numpy as jnp


@jax.jit
def masked_loss(batch, mask):
    return jnp.sum((batch ** 2).sum(axis=1) * mask) / jnp.maximum(mask.sum(), 1.0)


def batches(data, size):
    for start in range(0, data.shape[0], size):
        chunk = data[start:start + size]
        pad = size - chunk.shape[0]
        mask = jnp.concatenate([jnp.ones(chunk.shape[0]), jnp.zeros(pad)])
        yield jnp.pad(chunk, ((0, pad), (0, 0))), mask


def main():
    data = jnp.arange(100 * 4.0).reshape(100, 4)
    total = 0.0
    for batch, mask in batches(data, 32):
        total += float(masked_loss(batch, mask))


if __name__ == "__main__":
    main()
