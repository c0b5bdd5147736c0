"""Correct: a project's own memoizing decorator around a factory of jitted functions; two keys over
six calls: two compiles. (JIT101 is silent: the only call of `train` passes a literal list, a sweep of
configurations, though statically the decorator is not known to memoize.)"""
import jax
import jax.numpy as jnp


def memoize(fn):
    table = {}

    def wrapper(*args):
        if args not in table:
            table[args] = fn(*args)
        return table[args]
    return wrapper


@memoize
def make_step(lr):
    return jax.jit(lambda w, g: w - lr * g)


def train(w, g, lrs):
    for lr in lrs:
        w = make_step(lr)(w, g)
    return w


def main():
    train(jnp.ones(3), jnp.full(3, 0.1), [0.1, 0.01, 0.1, 0.01, 0.1, 0.01])


if __name__ == "__main__":
    main()
