"""A training script written at module level, as notebooks and quick scripts are: its loop is a data-driven
loop like one inside a function. The decayed learning rate is a new static value of `step` each epoch
(equinox keeps Python floats static): one compile per epoch. `LR` is the same float every time: one."""
import equinox as eqx
import jax.numpy as jnp

LR = 0.1


@eqx.filter_jit
def step(params, x, lr):
    return params - lr * x


@eqx.filter_jit
def steady_step(params, x, lr):
    return params - lr * x


params = jnp.zeros(3)
data = [jnp.ones(3) for _ in range(6)]
for epoch, x in enumerate(data):
    lr = LR * (0.9 ** epoch)
    params = step(params, x, lr)  # expect: JIT302
    params = steady_step(params, x, LR)
print(params)
