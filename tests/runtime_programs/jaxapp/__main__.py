import argparse

import jax.numpy as jnp

from jaxapp.model import train_step


def main(argv=None):
    parser = argparse.ArgumentParser(prog="jaxapp")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args(argv)
    w = jnp.ones(3)
    for _ in range(args.steps):
        w = train_step(w, jnp.arange(3.0))
    print("steps", args.steps, "w", w)


main()
