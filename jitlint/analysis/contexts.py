"""Trace contexts: how a function body is traced, and where that tracing comes from.

A ``Context`` is one way a function is traced: its kind (jit, vmap, grad, a lax body, a helper called
from traced code, a function nested in or mapped by traced code) and its origin as data (the transform's
qualified name and whether it decorates, the traced caller, the control-flow call); ``describe`` gives the
text the messages show. What the analysis learns of the functions themselves is in
``jitlint.analysis.objects``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ContextKind(StrEnum):
    """What traces a body (a `str`: the kinds of `knowledge._types.Transform` are these words)."""

    JIT = "jit"  # jax.jit and the jit family (pjit, pmap, equinox.filter_jit, nnx.jit, ...)
    VMAP = "vmap"
    GRAD = "grad"  # plain grad: the primal is concrete, only differentiated arguments carry JVP tracers
    LAX = "lax"  # a body of a control-flow call (lax.scan, fori_loop, cond, ...) or of a lifted linen transform
    HELPER = "helper"  # a function of the module called from traced code
    NESTED = "nested"  # defined inside traced code, or mapped over a tree by traced code


@dataclass(frozen=True)
class Context:
    """How a function body is traced, and by what."""

    kind: ContextKind
    # JIT/VMAP/GRAD: the qualified name of the transform applied (the outermost of a chain); LAX: the
    # control-flow call's; NESTED: the tree map's, for a mapped function.
    transform: str | None = None
    decorated: bool = False  # JIT/VMAP: applied as a decorator (`@jax.jit`), not called (`jax.jit(f)`)
    # HELPER: the traced function calling it; NESTED: the traced function defining it.
    caller: str | None = None
    label: str | None = None  # LAX: the call as messages name it (`lax.scan`, `nn.scan`)
    traces_constants: bool = True
    filtered: bool = False

    def describe(self) -> str:
        """How the messages say it: "@jax.jit", "jax.vmap(...)", "jax.grad", "`lax.scan` body",
        "called from traced `step`", "defined inside traced `step`", "mapped by `jax.tree.map`"."""
        kind = self.kind
        if kind is ContextKind.HELPER:
            return f"called from traced `{self.caller}`" if self.caller is not None else "traced"
        if kind is ContextKind.NESTED:
            if self.caller is not None:
                return f"defined inside traced `{self.caller}`"
            return f"mapped by `{self.transform}`"
        if kind is ContextKind.LAX:
            return f"`{self.label}` body"
        if kind is ContextKind.GRAD:
            return f"{self.transform}"
        via = "@" + self.transform if self.decorated else f"{self.transform}(...)"
        return via.replace("jax.numpy", "jnp")
