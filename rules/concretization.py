"""JIT4xx: concretization: a traced value where Python needs a concrete one.

`int(t)`, `float(t)`, `.item()`, `math.*`, NumPy functions, `range(t)`, a Python list indexed by `t` and a
slice bound `x[:t]` all need the value itself, which a tracer does not have: JAX raises while tracing
(ConcretizationTypeError, TracerArrayConversionError, TracerIntegerConversionError, IndexError; measured
on 0.10.2). Under plain `jax.grad` the primal is concrete, so `int()` and `.item()` work there and are not
reported; `float()`, `math.*` and NumPy conversions still fail and are.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.facade import GRAD_TRACED
from jitlint.core.finding import Severity
from jitlint.rules.base import Report, Rule, RuleContext

from ._helpers import calls, certain_tracer, describe, formatted_tracer, where


class ConcreteValueOfTracer(Rule):
    code = "JIT404"
    name = "concrete-value-of-tracer"
    summary = "`int()`, `float()`, `bool()`, `.item()`, `.tolist()` or `math.*` on a traced value"
    severity = Severity.ERROR
    raises = ("ConcretizationTypeError", "TracerBoolConversionError", "TracerIntegerConversionError", "TypeError")
    what = """
        Finds conversions of a traced value to a Python value inside traced code: `int(t)`, `float(t)`,
        `bool(t)`, `complex(t)`, `operator.index(t)`, `t.item()`, `t.tolist()`, and `math.*(t)`; and an
        f-string that formats a traced value with a format specification (`label = f"{loss:.4f}"`), which
        raises `TypeError` (an empty specification, or `!r` first, formats the tracer's text instead; in a
        `print`, JIT501 reports it with its fix).
        """
    why = """
        A tracer has no concrete value, so JAX raises `ConcretizationTypeError` (or one of its
        relatives) while tracing. Under plain `jax.grad`, `int()`, `bool()` and `.item()` work (the
        primal is concrete) and are not reported there, but `float()`, `.tolist()` and `math.*` still
        fail and are.
        """
    instead_note = """
        Keep the value as an array (`x.astype(jnp.int32)`, `jnp.sqrt`), or make the argument static.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            return x / float(x.max())
        """,
        """
        import math
        import jax

        @jax.jit
        def log_norm(x):
            return math.log(x.sum())
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            return x / x.max()
        """,
        """
        import jax

        @jax.jit
        def rows(x):
            return int(x.shape[0]) * x  # a shape is static
        """,
    )

    messages = {
        "conversion": "`{name}()` of traced value {value} {where} needs a concrete value and raises {error}; keep it "
                      "an array (e.g. `.astype(...)`) or make it a static argument",
        "math": "`{call}` on traced value `{origin}` {where} converts it to a Python float and raises "
                "ConcretizationTypeError; use the `jnp` equivalent (`jnp.{function}`)",
        "method": "`.{method}()` of traced value {value} {where} needs a concrete value and raises "
                  "ConcretizationTypeError; keep it an array",
        "format": "`{text}` formats traced value {value} with a format specification {where}: a tracer has no "
                  "formatted value, so building the string raises TypeError; print it with "
                  "`jax.debug.print(\"{{x:.4f}}\", x=...)` (formatted on the host), or format it outside",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            q = a.call_names.get(node)
            if q in jaxapi.CONCRETIZERS and node.args:
                min_level = GRAD_TRACED if q not in jaxapi.CONCRETE_UNDER_GRAD else None
                traced = certain_tracer(a, node.args[0].value, min_level or 2)
                if traced is not None:
                    yield Report(node, self.message("conversion", name=q.rsplit(".", 1)[-1], where=where(site, a, node),
                                                    value=describe(ctx, node.args[0].value, traced, site),
                                                    error=jaxapi.CONCRETIZERS[q]))
            elif q is not None and q.startswith("math.") and node.args:
                traced = next((t for t in (certain_tracer(a, arg.value, GRAD_TRACED) for arg in node.args) if t), None)
                if traced is not None:
                    yield Report(node, self.message("math", call=q, origin=traced.origin, where=where(site, a, node),
                                                    function=q.split(".", 1)[1]))
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in ("item", "tolist") and not node.args:
                min_level = 2 if node.func.attr.value == "item" else GRAD_TRACED
                traced = certain_tracer(a, node.func.value, min_level)
                if traced is not None:
                    yield Report(node, self.message("method", method=node.func.attr.value, where=where(site, a, node),
                                                    value=describe(ctx, node.func.value, traced, site)))
        printed: set[int] | None = None  # (the f-strings print calls are given: asked only once one is found)
        for node, site in a.sites_of(cst.FormattedString):
            found = formatted_tracer(a, node)
            if found is not None and printed is None:
                printed = {id(arg.value) for call, _ in a.sites_of(cst.Call) if calls(a, call, "print")
                           for arg in call.args}
            if found is not None and id(node) not in printed:  # (a print's: JIT501 says it)
                expr, traced = found
                yield Report(node, self.message("format", text=ctx.short(node, 40), where=where(site, a, node),
                                                value=describe(ctx, expr, traced, site)))


class NumpyOnTracer(Rule):
    code = "JIT406"
    name = "numpy-on-tracer"
    summary = "NumPy conversion or ufunc (`np.asarray`, `np.sin`, ...) applied to a traced value"
    severity = Severity.ERROR
    raises = ("TracerArrayConversionError",)
    what = """
        Finds NumPy functions that convert their argument to a NumPy array -- `np.asarray(t)`,
        `np.array(t)`, `np.float32(t)`, and ufuncs such as `np.sin(t)`, `np.exp(t)` -- applied to traced
        values, and module-level NumPy arrays indexed by a traced value (`TABLE[i]`).
        """
    why = """
        NumPy cannot hold a tracer: JAX raises `TracerArrayConversionError` while tracing (under plain
        `grad` too). Reductions that NumPy delegates to the array's own method (`np.sum(t)`,
        `np.mean(t)`), and functions that only read the array's attributes or slice it (`np.real(t)`,
        `np.vsplit(t, 2)`, `np.repeat`, `np.flip`), happen to work and are not reported; NumPy on constants is
        fine.
        """
    instead_note = "Use the `jax.numpy` function of the same name (`jnp.asarray`, `jnp.sin`)."
    invalid = (
        """
        import jax
        import numpy as np

        @jax.jit
        def activation(x):
            return np.tanh(x)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def activation(x):
            return jnp.tanh(x)
        """,
        """
        import jax
        import numpy as np

        TABLE = np.linspace(0.0, 1.0, 8)

        @jax.jit
        def lookup(x):
            return x * np.sin(TABLE).sum()  # NumPy on a constant
        """,
    )

    messages = {
        "index": "indexing the NumPy array `{array}` with traced value {value} {where} converts the tracer to NumPy "
                 "and raises TracerArrayConversionError; use `jnp.asarray({array})[...]`",
        "call": "`{call}` on traced value {value} {where} converts it to a NumPy array and raises "
                "TracerArrayConversionError; use `{instead}`",
        "host": "`{call}` on traced value {value} {where} converts it to a NumPy array and raises "
                "TracerArrayConversionError; write it outside the traced function, or from it with "
                "`jax.debug.callback`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Subscript):
            if not (isinstance(node.value, cst.Name) and _is_module_numpy_array(a, site, node.value.value)):
                continue
            for el in node.slice:
                index = el.slice.value if isinstance(el.slice, cst.Index) else None
                traced = certain_tracer(a, index, GRAD_TRACED) if index is not None else None
                if traced is not None:
                    yield Report(node, self.message("index", array=node.value.value, where=where(site, a, node),
                                                    value=describe(ctx, index, traced, site)))
                    break
        for node, site in a.sites_of(cst.Call):
            q = a.call_names.get(node)
            if q is None or not q.startswith("numpy.") or q in jaxapi.NUMPY_DELEGATING or q in jaxapi.STATIC_FUNCS:
                continue
            if q.startswith(("numpy.random.", "numpy.testing.")):
                continue
            for arg in node.args:
                traced = certain_tracer(a, arg.value, GRAD_TRACED)
                if traced is not None:
                    short = q.replace("numpy.", "np.")
                    # (`jnp.save` is NumPy's own `save`: files are written on the host, not from a trace)
                    yield Report(node, self.message("host" if q in _HOST_WRITERS else "call", call=short,
                                                    value=describe(ctx, arg.value, traced, site),
                                                    where=where(site, a, node), instead=short.replace("np.", "jnp.")))
                    break


# NumPy's writers, which `jax.numpy` re-exports as they are (measured: `jnp.save is np.save`).
_HOST_WRITERS = frozenset({"numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt"})


def _is_module_numpy_array(a, site, name: str) -> bool:
    """A module-level name only ever assigned NumPy arrays (and not rebound in the function or a function
    around it): a name also bound by unpacking (`TABLE, = (jnp.array(t) for t in (TABLE,))`) may hold
    anything."""
    func = site.func
    while func is not None:  # (a def nested in a function reads the enclosing function's name first)
        if name in func.assignments or name in func.params or name in func.unpacked:
            return False  # (JAXTrace's `check_element` reads the jitted parent's `connectivity`, fresh set BF)
        func = func.parent
    if name in a.module_unpacked:
        return False
    sources = a.module_assignments.get(name, [])
    return bool(sources) and all(
        isinstance(src, cst.Call) and (a.call_names.get(src) or "").startswith("numpy.")
        and (a.call_names.get(src) or "").rsplit(".", 1)[-1] in _NUMPY_ARRAY_MAKERS for src in sources)


_NUMPY_ARRAY_MAKERS = {"array", "asarray", "arange", "linspace", "zeros", "ones", "full", "eye", "stack",
                       "concatenate", "load", "empty", "random", "normal", "uniform", "rand", "randn"}


class RangeOfTracer(Rule):
    code = "JIT407"
    name = "python-index-of-tracer"
    summary = "`range(t)` or a Python list indexed by a traced value needs a concrete integer"
    severity = Severity.ERROR
    raises = ("TracerIntegerConversionError",)
    what = """
        Finds `range(...)` with a traced bound and Python lists/tuples indexed by a traced value
        (`[a, b, c][i]`) inside traced code.
        """
    why = """
        Both call `__index__` on the tracer, which has no concrete value: JAX raises
        `TracerIntegerConversionError` at trace time. `range(x.shape[0])` and static arguments are
        fine.
        """
    instead_note = """
        Loop with `lax.fori_loop(0, n, body, init)` (traced bounds are allowed there) or make `n` static;
        index arrays instead of lists (`jnp.array([a, b, c])[i]`) or use `lax.switch`.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def power(x, n):
            out = x
            for _ in range(n):
                out = out * x
            return out
        """,
    )
    valid = (
        """
        import jax
        from jax import lax

        @jax.jit
        def power(x, n):
            return lax.fori_loop(0, n, lambda i, out: out * x, x)
        """,
        """
        import jax

        @jax.jit
        def row_sums(x):
            return [x[i].sum() for i in range(x.shape[0])]
        """,
    )

    messages = {
        "range": "`range()` over traced value {value} {where} raises TracerIntegerConversionError; use "
                 "`lax.fori_loop` (traced bounds are fine there) or make the bound a static argument",
        "index": "indexing a Python list with traced value {value} {where} raises TracerIntegerConversionError; "
                 "index a `jnp.array` or use `lax.switch`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            if not calls(a, node, "range"):
                continue
            for arg in node.args:
                traced = certain_tracer(a, arg.value)
                if traced is not None:
                    yield Report(node, self.message("range", value=describe(ctx, arg.value, traced, site),
                                                    where=where(site, a, node)))
                    break
        for node, site in a.sites_of(cst.Subscript):
            if not _python_sequence(a, site, node.value):
                continue
            for el in node.slice:
                if isinstance(el.slice, cst.Index):
                    traced = certain_tracer(a, el.slice.value)
                    if traced is not None:
                        yield Report(node, self.message("index", value=describe(ctx, el.slice.value, traced, site),
                                                        where=where(site, a, node)))
                        break


def _python_sequence(a, site, expr: cst.BaseExpression) -> bool:
    """A Python list or tuple: a display, or a name only ever bound to displays (`WEIGHTS = [1.0, 2.0]`)."""
    sources = runs.bound_values(a, site.func, expr) if isinstance(expr, cst.Name) else [expr]
    return bool(sources) and all(isinstance(s, (cst.List, cst.Tuple, cst.ListComp)) for s in sources)


class TracedSliceBound(Rule):
    code = "JIT408"
    name = "traced-slice-bound"
    summary = "A slice with a traced start/stop/step (`x[i:i+k]`) is a dynamic shape"
    severity = Severity.ERROR
    raises = ("IndexError", "TracerIntegerConversionError")
    what = "Finds slices whose bounds are traced values inside traced code: `x[i:i + k]`, `x[:n]`."
    why = """
        A slice's bounds decide the result's shape, and shapes must be static under `jit`: JAX raises
        `IndexError: Slice entries must be static integers` while tracing. Slices by static values
        (`x[:x.shape[0] // 2]`, static arguments) and integer indexing by a tracer (`x[i]`) are fine.
        """
    instead_note = """
        Use `lax.dynamic_slice(x, (i,), (k,))` / `lax.dynamic_slice_in_dim` with a static size `k`, or
        make the bound a static argument.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def window(x, i):
            return x[i:i + 4]
        """,
    )
    valid = (
        """
        import jax
        from jax import lax

        @jax.jit
        def window(x, i):
            return lax.dynamic_slice_in_dim(x, i, 4)
        """,
    )

    messages = {
        "bound": "slice bound {value} is traced {where}: the result's shape would depend on it, so JAX raises "
                 "IndexError; use `lax.dynamic_slice` with a static size, or a static argument",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Slice):
            for bound in (node.lower, node.upper, node.step):
                if bound is None:
                    continue
                traced = certain_tracer(a, bound)
                if traced is not None:
                    yield Report(node, self.message("bound", value=describe(ctx, bound, traced, site),
                                                    where=where(site, a, node)))
                    break
