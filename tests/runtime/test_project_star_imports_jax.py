"""tests/fixtures/projects/star_imports under real JAX: every JAX name of spectra.py comes through `from
common import *`; its marked line raises what JIT601 says, and the look-alikes (a NumPy mask, a module
whose own `jnp` is NumPy) run cleanly."""

from __future__ import annotations

import os

os.environ["JAX_PLATFORMS"] = "cpu"  # before jax is first imported: never touch an accelerator here

import jax.numpy as jnp  # noqa: E402
import pytest  # noqa: E402

from harness import FIXTURES, expected_findings, imported_project, innermost_line  # noqa: E402

pytestmark = pytest.mark.slow

PROJECT = FIXTURES / "projects" / "star_imports"


@pytest.fixture(scope="module")
def modules():
    with imported_project("star_imports", ("common", "shadowed", "spectra")) as found:
        yield found["spectra"], found["shadowed"]


def test_the_marked_line_raises_and_the_look_alikes_run(modules):
    import jax

    spectra, shadowed = modules
    marked = [line for line, code in expected_findings((PROJECT / "spectra.py").read_text()) if code == "JIT601"]
    assert len(marked) == 1
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError) as info:
        spectra.stack_ylm(3, jnp.ones((4, 4, 2)))
    assert innermost_line(info.value, (PROJECT / "spectra.py").resolve()) == marked[0]
    assert spectra.stack_fixed(3, jnp.ones((4, 4, 2))).shape == (10, 2)
    assert shadowed.positive_rows(jnp.ones(4)).shape == (2,)
    spectra.print_norm(jnp.ones(3))
