"""A jitted function every call of which passes a Python string to a traced parameter is never traced: JAX
refuses the string at the call ("not a valid JAX type") before the body runs, so nothing in the body is
reported (hicosmo's polarization modes, fresh set BG). The look-alike's callers pass numbers, and the `if`
in its body raises. Not a fixture file: the refused call raises at a line no rule reports, which the
runtime mode's own check (JIT906) would find there."""

from __future__ import annotations

import os

import pytest

from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source

SOURCE = '''\
import jax


@jax.jit
def mode_transfer(k, mode):
    if k.sum() > 0:
        return k
    return -k


def transfer_modes(ks):
    return [mode_transfer(k, "E") for k in ks]


@jax.jit
def scaled_transfer(k, scale):
    if k.sum() > 0:
        return k * scale
    return -k


def transfer_scales(ks):
    return [scaled_transfer(k, 2.0) for k in ks]
'''


def test_a_body_only_string_arguments_reach_is_not_reported():
    found = [(f.line, f.code) for f in lint_source(SOURCE, "modes.py", Config(select=("ALL",)))]
    assert found == [(17, "JIT401")]


@pytest.mark.slow
def test_jax_refuses_the_string_at_the_call_and_raises_in_the_look_alike():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp

    namespace: dict = {}
    exec(compile(SOURCE, "modes.py", "exec"), namespace)
    with pytest.raises(TypeError, match="not a valid JAX type|abstract array"):
        namespace["transfer_modes"]([jnp.ones(3)])
    namespace["mode_transfer"].__wrapped__(jnp.ones(3), "E")  # the body itself, eagerly: fine
    with pytest.raises(jax.errors.TracerBoolConversionError):
        namespace["transfer_scales"]([jnp.ones(3)])
