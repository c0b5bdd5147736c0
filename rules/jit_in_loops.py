"""JIT1xx: a jit wrapper created where it runs more than once.

`jax.jit` caches compiled code on the identity of the wrapped function. Re-wrapping the same stable
function in a loop only costs dispatch overhead, but wrapping a *new* function object -- a lambda, a
nested def, a `functools.partial`, a bound method, `jax.grad(f)` -- retraces and recompiles every time
(measured on JAX 0.10.2: ~40-90 ms per iteration instead of ~0.05 ms).
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint import jaxapi
from jitlint.analysis import FuncValue, JitCreation
from jitlint.finding import Severity
from jitlint.rule import Report, Rule, RuleContext

from ._calls import repeated_functions


# Methods that model objects (flax linen/nnx, haiku transformed) expose: `jax.jit(model.apply)`.
_MODULE_METHODS = {"apply", "init", "init_with_output"}


def _where_repeated(creation: JitCreation, repeated: dict) -> str | None:
    if creation.loop is not None:
        return "inside a loop"
    if creation.func is not None and creation.func in repeated:
        return f"in `{creation.func.name}`, which runs repeatedly ({repeated[creation.func]})"
    return None


def _wrapped_kind(ctx: RuleContext, creation: JitCreation) -> tuple[str, str] | None:
    """("fresh" | "stable", description) of what the jit wraps, or None when unknown."""
    a = ctx.analysis
    wrapped = creation.wrapped
    if isinstance(wrapped, cst.FunctionDef):
        return "fresh", f"the jit-decorated nested function `{wrapped.name.value}` (a new function object each time)"
    if isinstance(wrapped, cst.Lambda):
        return "fresh", "a lambda (a new function object each time)"
    if isinstance(wrapped, cst.Call):
        q = a.call_names.get(wrapped)
        if q == "functools.partial":
            return "fresh", "a `functools.partial` (a new object each time)"
        if q in jaxapi.TRANSFORMS:
            return "fresh", f"`{q}(...)`, which returns a new function object each time"
        return None
    if isinstance(wrapped, cst.Attribute):
        if creation.func is not None and creation.func.scope.qualify(wrapped) is not None or \
                creation.func is None and a.scope.qualify(wrapped) is not None:
            return "stable", f"`{ctx.short(wrapped)}`"
        target = creation.target
        if isinstance(target, FuncValue) and target.bound_self:
            return "fresh", f"the bound method `{ctx.short(wrapped)}` (a new bound-method object on each access)"
        if wrapped.attr.value in _MODULE_METHODS:
            return "fresh", (f"the bound method `{ctx.short(wrapped)}` (a new bound-method object on each "
                             "access)")
        return None  # `obj.f` of an unknown object may be a stored function (a NamedTuple field): stable
    if isinstance(wrapped, cst.Name):
        target = creation.target
        if not isinstance(target, FuncValue):
            q = (creation.func.scope if creation.func else a.scope).qualify(wrapped)
            return ("stable", f"`{wrapped.value}`") if q is not None else None
        info = target.info
        if target.partial:
            return "fresh", f"`{wrapped.value}`, a `functools.partial` (a new object each time it is built)"
        if info.parent is None:
            return "stable", f"the module-level function `{wrapped.value}`"
        if info.parent is creation.func:
            if creation.loop is not None and info.def_loop is None:
                return "stable", f"`{wrapped.value}`, defined once before the loop"
            return "fresh", f"the nested function `{wrapped.value}` (a new function object each time)"
    return None


class JitOfFreshFunction(Rule):
    code = "JIT101"
    name = "jit-of-fresh-function-in-loop"
    summary = "jit of a new function object (lambda, nested def, partial, bound method) where it runs repeatedly"
    severity = Severity.WARNING
    what = """
        Finds `jax.jit(...)` (and `pjit`, `pmap`, `equinox.filter_jit`, `flax.nnx.jit`) applied to a new
        function object -- a lambda, a nested def, a `functools.partial`, a bound method `obj.method`, or
        `jax.grad(f)` -- inside a loop, a comprehension, or a function that runs repeatedly (one called in a
        loop, a `__call__`, a `*_step`/`update` function), and jit-decorated nested defs there.
        """
    why = """
        The compile cache is keyed on the identity of the wrapped function. A new function object misses
        it every time: JAX retraces and recompiles on every iteration (hundreds of times slower than a
        cached call), and the old executables are never reused. `flax.nnx.jit(f)` retraces on every
        re-wrap even for a stable `f`.
        """
    instead_note = """
        Create the jitted function once (at module level or in `__init__`), and pass what varies as an
        argument (mark it static only if it takes few values).
        """
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        def train(xs, scales):
            for s in scales:
                xs = jax.jit(lambda v: v * s)(xs)
            return xs
        """,
        """
        import jax

        class Model:
            def apply(self, x):
                return x * 2

            def __call__(self, x):
                return jax.jit(self.apply)(x)
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def scale(v, s):
            return v * s

        def train(xs, scales):
            for s in scales:
                xs = scale(xs, s)
            return xs
        """,
        """
        import jax

        class Model:
            def __init__(self):
                self._apply = jax.jit(self.apply)  # wrapped once

            def apply(self, x):
                return x * 2

            def __call__(self, x):
                return self._apply(x)
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx.analysis)
        for creation in ctx.analysis.jit_creations.values():
            place = _where_repeated(creation, repeated)
            if place is None:
                continue
            kind = _wrapped_kind(ctx, creation)
            if kind is None:
                continue
            retraces = jaxapi.TRANSFORMS[creation.transform].rewrap_retraces
            if kind[0] == "fresh" or retraces:
                why = kind[1] if kind[0] == "fresh" else f"{kind[1]} (`{creation.transform}` retraces on every re-wrap)"
                yield Report(creation.node, f"`{creation.transform.replace('jax.', 'jax.')}` of {why} {place}: JAX "
                                            "retraces and recompiles every time; create the jitted function once "
                                            "(module level or `__init__`) and pass what varies as an argument")


class JitRewrapInLoop(Rule):
    code = "JIT102"
    name = "jit-rewrap-in-loop"
    summary = "jit of a stable function re-created where it runs repeatedly (extra dispatch overhead)"
    severity = Severity.INFO
    what = """
        Finds `jax.jit(f)` of a stable, module-level function re-created inside a loop or a function that
        runs repeatedly.
        """
    why = """
        Wrappers of the same function share one compile cache, so this does not recompile -- but every
        call builds a new wrapper and pays two to three times the dispatch overhead of a hoisted one
        (~0.1 ms instead of ~0.04 ms per call, measured on JAX 0.10.2).
        """
    instead_note = "Hoist the wrapper: `step_jit = jax.jit(step)` once, then call `step_jit(x)` in the loop."
    invalid = (
        """
        import jax

        def step(x):
            return x * 2

        def run(x):
            for _ in range(100):
                x = jax.jit(step)(x)
            return x
        """,
    )
    valid = (
        """
        import jax

        def step(x):
            return x * 2

        step_jit = jax.jit(step)

        def run(x):
            for _ in range(100):
                x = step_jit(x)
            return x
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx.analysis)
        for creation in ctx.analysis.jit_creations.values():
            place = _where_repeated(creation, repeated)
            if place is None or jaxapi.TRANSFORMS[creation.transform].rewrap_retraces:
                continue
            kind = _wrapped_kind(ctx, creation)
            if kind is None or kind[0] != "stable":
                continue
            yield Report(creation.node, f"`{creation.transform}` of {kind[1]} is re-created {place}: no recompile "
                                        "(the cache is shared) but 2-3x the dispatch overhead; hoist the jitted "
                                        "wrapper out of the loop")
