import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x):
    print("tracing train_step with", w)
    return w - 0.1 * jnp.mean(x) * w


@jax.jit
def evaluate(w):
    print("evaluating", w)  # never called by the program: not reached
    return jnp.sum(w)
