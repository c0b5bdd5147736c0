"""A small test suite, run as `jitlint run -m pytest pytest_suite/check_model.py` (not named test_*.py: the repository's own pytest run must not collect it)."""
import jax
import jax.numpy as jnp


@jax.jit
def normalize(x):
    print("normalizing", x)
    return x / jnp.linalg.norm(x)


def test_unit_norm():
    assert abs(float(jnp.linalg.norm(normalize(jnp.arange(1.0, 4.0)))) - 1.0) < 1e-5


def test_batch_sizes():
    for n in (2, 3):
        assert normalize(jnp.ones(n)).shape == (n,)
