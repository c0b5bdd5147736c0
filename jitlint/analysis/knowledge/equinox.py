"""Equinox: filtered transforms keep every non-array argument static (../shared/docs/jax-semantics.md)."""

from __future__ import annotations

from dataclasses import replace

from jitlint.analysis.knowledge._types import Transform
from jitlint.analysis.knowledge.jax import GRAD, VALUE_AND_GRAD

# (each returns an equinox Module wrapping the function: `wrapper_by_value`)
TRANSFORMS = {
    "equinox.filter_jit": Transform("jit", filtered=True, function_by_value=True, wrapper_by_value=True),
    # (filter_pmap shares filter_jit's by-value compile cache: measured on equinox 0.13.8, four re-wraps of
    # `eqx.filter_value_and_grad(f)` or of one object's bound method trace as often as one wrap; ginjax,
    # fresh set BC)
    "equinox.filter_pmap": Transform("jit", filtered=True, function_by_value=True, wrapper_by_value=True),
    "equinox.filter_vmap": Transform("vmap", traces_constants=False, filtered=True, wrapper_by_value=True),
    "equinox.filter_grad": replace(GRAD, wrapper_by_value=True),
    "equinox.filter_value_and_grad": replace(VALUE_AND_GRAD, wrapper_by_value=True),
}

LAX_BODIES = {"equinox.internal.scan": ((0,), ("f",))}

TREE_MAPS = {"equinox.filter"}

STATIC_FUNCS = {"equinox.is_array", "equinox.is_inexact_array", "equinox.is_array_like",
                "equinox.filter_eval_shape", "equinox.tree_equal"}

MODULE_BASES = {"equinox.Module": "equinox"}
STATIC_FIELD_CALLS = {"equinox.field": ("static", True)}
TREE_FUNCTIONS = {"equinox.apply_updates", "equinox.combine", "equinox.tree_at"}
# Calls returning a copy of a pytree (the same class) with the leaves `where` selects replaced: the
# names of their (where, pytree, replace) parameters, in positional order.
TREE_REPLACE = {"equinox.tree_at": ("where", "pytree", "replace")}
# Layers whose call returns one array (equinox 0.13.8; not the norms, which return `(array, state)` when
# given a state, nor `Identity`, which returns its input, nor `BatchNorm`/stateful layers).
ARRAY_LAYERS = {f"equinox.nn.{name}" for name in (
    "Linear", "Conv", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "Embedding", "Dropout", "MLP", "MultiheadAttention")}
