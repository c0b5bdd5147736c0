"""A call of a jitted method that leaves a plain class's `self` traced raises TypeError at `self` before
JAX looks at its other arguments, so no claim about those holds: an array passed to a static parameter
(`@partial(jit, static_argnums=(1,))` counting `self`) is not the ValueError JIT304 describes there
(hicosmo's sigma8 normalisation, fresh set BG: 2 false JIT304). The look-alike makes `self` static too,
and the array then raises the ValueError. Not a fixture file: the refused call raises at a line no rule
reports, which the runtime mode's own check (JIT906) would find there."""

from __future__ import annotations

import os

import pytest

from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source

SOURCE = '''\
from functools import partial

import jax
import jax.numpy as jnp


class Spectrum:
    def __init__(self):
        self.amplitude = 2.0

    @partial(jax.jit, static_argnums=(1,))
    def sigma(self, z, n_points=10):
        return z * self.amplitude

    def sigma_of(self, z):
        return self.sigma(jnp.asarray(z))


class StaticSpectrum:
    def __init__(self):
        self.amplitude = 2.0

    @partial(jax.jit, static_argnums=(0, 1))
    def sigma(self, z, n_points=10):
        return z * self.amplitude

    def sigma_of(self, z):
        return self.sigma(jnp.asarray(z))
'''


def test_a_call_refused_at_self_makes_no_static_argument_claim():
    found = [(f.line, f.code) for f in lint_source(SOURCE, "spectrum.py", Config(select=("ALL",)))]
    assert found == [(28, "JIT304")]


@pytest.mark.slow
def test_jax_refuses_self_first_and_the_look_alike_raises_for_the_array():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax.numpy as jnp

    namespace: dict = {}
    exec(compile(SOURCE, "spectrum.py", "exec"), namespace)
    with pytest.raises(TypeError, match="abstract array"):
        namespace["Spectrum"]().sigma_of(jnp.ones(3))
    with pytest.raises(ValueError, match="[Nn]on-hashable static arguments"):
        namespace["StaticSpectrum"]().sigma_of(jnp.ones(3))
