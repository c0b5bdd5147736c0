"""equinox's filtered transforms return Modules comparing by value (docs/analysis.md, measured on JAX
0.10.2: four `eqx.filter_jit(eqx.filter_vmap(f))` made in a loop trace once; of a lambda, four times). The
run-time half is tests/fixtures/JIT101.py's `run_filter_vmap_of_function`; equinox's own retraces of a
lambda are not told apart by `jitlint run`, so the lambda's claim is checked here, statically."""

from __future__ import annotations

from jitlint.lint.pipeline import lint_source

LOOP = """\
import equinox as eqx


def scaled(v):
    return v * 3.0


def run(batches):
    for xs in batches:
        eqx.filter_jit(eqx.filter_vmap({wrapped}))(xs)
"""


def _codes(wrapped: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(LOOP.format(wrapped=wrapped), "loop.py")]


def test_a_filtered_wrapper_of_a_stable_function_is_no_new_program():
    assert _codes("scaled") == []


def test_a_filtered_wrapper_of_a_lambda_recompiles_each_pass():
    (finding,) = lint_source(LOOP.format(wrapped="lambda v: v * 5.0"), "loop.py")
    assert (finding.line, finding.code) == (10, "JIT101")
    assert "of a lambda (a new function object each time)" in finding.message
