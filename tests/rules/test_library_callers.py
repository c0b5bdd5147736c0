"""A library function that calls the functions handed to it (knowledge table CALLERS): a jit wrapper made
on every pass of a loop and handed to one compiles on every pass, as if it were called right there.
BlackJAX's `smc.base.step` calls its `update_fn`, `weight_fn` and `resample_fn` each time it runs (read in
its source: BlackJAX is not a test dependency, so the claim is checked here, statically; the run-time half,
a project function that calls what it is given, is tests/fixtures/JIT101.py's `[handed-to-caller]`)."""

from __future__ import annotations

from jitlint.lint.pipeline import lint_source

TEMPERING = """\
import jax
from blackjax.smc import base as smc_base


def temper(state, stages, key, update, resample):
    for lam in stages:
        @jax.jit
        def weights(p):
            return p * lam
        state, _ = {receiver}(key, state, update, weights, resample)
    return state
"""


def _found(receiver: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(TEMPERING.format(receiver=receiver), "smc.py")]


def test_a_wrapper_handed_to_a_library_step_that_calls_it_recompiles_each_pass():
    assert _found("smc_base.step") == [(7, "JIT101")]


def test_a_wrapper_handed_to_a_library_function_not_known_to_call_it_is_the_receivers_to_judge():
    assert _found("smc_base.init") == []
