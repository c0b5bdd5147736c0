"""tests/fixtures/projects/helpers under real JAX: each `# expect:` line in a helper file does what its rule
claims when the helper runs in the context its witness names (traced by the jitted step in train.py), and
the look-alikes (the same helpers run eagerly, a `None` default, a static shape) run cleanly.

The helpers are traced the way train.py traces them: `jax.jit` of a function calling them with traced
arrays, so each claim is checked in its own case (the step itself stops at the first one that raises)."""

from __future__ import annotations

import contextlib
import io
import os

os.environ["JAX_PLATFORMS"] = "cpu"  # before jax is first imported: never touch an accelerator here

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import pytest  # noqa: E402

from harness import FIXTURES, expected_findings, imported, innermost_line  # noqa: E402

pytestmark = pytest.mark.slow

PROJECT = FIXTURES / "projects" / "helpers"


@pytest.fixture(scope="module")
def project():
    with imported("helpers", "compat", "evaluate", "losses", "model", "train", "utils") as found:
        yield dict(zip(("compat", "evaluate", "losses", "model", "train", "utils"), found))


def _line(rel: str, code: str) -> int:
    lines = [line for line, c in expected_findings((PROJECT / rel).read_text()) if c == code]
    assert len(lines) == 1, (rel, code, lines)
    return lines[0]


def _params(m):
    return m["model"].init(jax.random.PRNGKey(0), 3, 2)


def _raises_at(thunk, exc_types, rel: str, code: str) -> None:
    with pytest.raises(exc_types) as info:
        thunk()
    assert innermost_line(info.value, (PROJECT / rel).resolve()) == _line(rel, code)


def test_markers_are_the_cases_below():
    found = {(p.name, line, code) for p in PROJECT.glob("*.py") for line, code in expected_findings(p.read_text())}
    assert {(name, code) for name, _, code in found} == {
        ("losses.py", "JIT501"), ("losses.py", "JIT601"), ("losses.py", "JIT404"), ("utils.py", "JIT401"),
        ("utils.py", "JIT404")}


def test_print_in_a_helper_prints_a_tracer(project):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.jit(lambda x, y: project["losses"].cross_entropy(x, y))(jnp.ones((4, 2)), jnp.ones((4, 2)))
    assert "Trace" in out.getvalue()  # a tracer (`Traced<...>` or `JitTracer(...)`, by JAX version), not values


def test_mask_index_in_a_helper_raises(project):
    step = jax.jit(lambda p, y: project["losses"].masked_mse(p, y, y > 0))
    _raises_at(lambda: step(jnp.ones((4, 2)), jnp.ones((4, 2))), jax.errors.NonConcreteBooleanIndexError,
               "losses.py", "JIT601")


def test_if_two_calls_away_raises(project):
    step = jax.jit(lambda params: project["losses"].regularizer(params, 0.01))
    _raises_at(lambda: step(_params(project)), jax.errors.TracerBoolConversionError, "utils.py", "JIT401")


def test_int_in_a_helper_raises(project):
    step = jax.jit(lambda pred: project["utils"].count_positive(pred))
    _raises_at(lambda: step(jnp.ones((4, 2))), jax.errors.ConcretizationTypeError, "utils.py", "JIT404")


def test_a_helper_past_an_imported_tracer_test_runs(project):
    """losses.peak returns early where utils.is_traced holds, so its `float()` never sees a tracer; the same
    `float()` without the test raises."""
    params, x = _params(project), jnp.ones((4, 3))
    project["train"].checked_step(params, x)
    assert project["losses"].peak(jnp.ones(2)) == 1.0  # eager: the check runs
    _raises_at(lambda: project["train"].unchecked_step(params, x), jax.errors.ConcretizationTypeError,
               "losses.py", "JIT404")


def test_the_jitted_step_stops_at_a_marked_line(project):
    """train.train_step itself: the first claim on its way (the mask) is what JAX raises."""
    with contextlib.redirect_stdout(io.StringIO()):
        _raises_at(lambda: project["train"].train_step(_params(project), jnp.ones((4, 3)), jnp.ones((4, 2))),
                   jax.errors.NonConcreteBooleanIndexError, "losses.py", "JIT601")


def test_look_alikes_run(project):
    m = project
    jax.jit(lambda p, y: m["losses"].masked_mse_ok(p, y, y > 0))(jnp.ones((4, 2)), jnp.ones((4, 2)))
    jax.jit(m["losses"].clipped)(jnp.ones((4, 2)))  # `if limit is None` on a default
    # the static-shape branch of `regularizer` alone (its normalize call is the marked one)
    params = _params(m)
    assert params["w"].shape[0] > 2
    with contextlib.redirect_stdout(io.StringIO()):
        # evaluate.report runs the same helpers eagerly, `if` and `int()` included: no error
        assert m["evaluate"].report(params, jnp.ones((4, 3)), jnp.ones((4, 2)))[0] in ("positive", "negative")
