"""Prints a traced value inside jit: JIT501, confirmed at trace time."""
import logging

import jax
import jax.numpy as jnp

log = logging.getLogger("print_traced")


@jax.jit
def step(x):
    print("x is", x)
    log.warning("x is %s", x)
    return x * 2


@jax.jit
def quiet(x):
    print("tracing quiet for shape", x.shape)
    return x + 1


def main():
    # the caller's file and line in each record must survive jitlint's logging probe
    logging.basicConfig(format="%(filename)s:%(lineno)d:%(funcName)s: %(message)s")
    x = jnp.arange(3.0)
    for _ in range(3):
        x = quiet(step(x))
    print("result", x)


if __name__ == "__main__":
    main()
