"""A loop over an array written out in the source (`Ns = np.array([8, 16])`: jax-fem's convergence study
over mesh sizes, fresh set BL) goes over as many configurations as the display: a function that jits a
closure per call, called once per item, compiles once per configuration, as the program needs. The
look-alike calls it at every time step with the same configuration: each call compiles again (JIT101);
the traces are counted under JAX below. (Not in tests/fixtures/JIT101.py: there the pair's negative is
silent for other reasons too, so it would not show this belief.)"""

from __future__ import annotations

import os

import pytest

from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source

SOURCE = '''\
import jax
import jax.numpy as jnp
import numpy as np


def solve(scale):
    nodes = jnp.linspace(0.0, 1.0, 8) * scale

    @jax.jit
    def residual(u):
        return u * nodes

    return residual(nodes)


def study():
    scales = np.array([0.5, 2.0])
    for scale in scales:
        solve(float(scale))
'''

STEPS = SOURCE + '''

def time_steps(n_steps):
    for step in range(n_steps):
        solve(0.5)
'''


def _found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(source, "study.py", Config(select=("ALL",)))]


def test_a_loop_over_an_array_display_is_a_sweep_of_configurations():
    assert _found(SOURCE) == []


def test_the_same_configuration_at_every_step_recompiles():
    assert _found(STEPS) == [(9, "JIT101")]


@pytest.mark.slow
def test_jax_compiles_once_per_configuration_and_once_per_step():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    namespace: dict = {}
    exec(compile(STEPS, "study.py", "exec"), namespace)
    traces = []
    jax = namespace["jax"]
    real_jit = jax.jit
    jax.jit = lambda fn, **kw: real_jit(lambda *a: (traces.append(1), fn(*a))[1], **kw)
    try:
        namespace["study"]()
        assert len(traces) == 2
        namespace["time_steps"](3)
        assert len(traces) == 5
    finally:
        jax.jit = real_jit
