"""Runtime-only recompiles silenced by a `# noqa` on the jitted function's decorator line (JIT901) and
on the line that jits it (the static code JIT101); `churn` has neither and is reported."""
import jax
import jax.numpy as jnp


@jax.jit  # noqa: JIT901 -- meant for any length
def any_length(x):
    return x.sum()


@jax.jit
def churn(x):
    return x.sum()


def main():
    for n in range(1, 6):
        any_length(jnp.ones(n))
        churn(jnp.ones(n))
    x = jnp.ones(2)
    for i in range(5):
        f = jax.jit(lambda v: v + i)  # noqa: JIT101
        x = f(x)


if __name__ == "__main__":
    main()
