"""The negative: jit hoisted out of the loop, stable shapes and dtypes; one trace, one compile."""
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return jnp.sin(x) * 0.5 + x


def main():
    x = jnp.ones(8)
    for _ in range(20):
        x = step(x)
    jax.debug.print("unused {}", 0) if False else None
    print("sum", float(x.sum()))


if __name__ == "__main__":
    main()
