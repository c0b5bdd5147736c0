"""JIT4xx: Python control flow and concretization on traced values.

Inside `jit` (and `vmap`, `lax` bodies, ...) a traced value has no concrete value, so anything that
needs one -- a truth value, a Python int or float, a NumPy array -- raises while JAX traces the function.
These are certain errors, not style: each rule names the exception JAX raises (measured on 0.10.2).
Under plain `jax.grad` the primal is concrete, so `if`, `bool()`, `int()` and `.item()` work there and
are not reported; `float()`, `math.*` and NumPy conversions still fail and are.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi

from jitlint.analysis import runs
from jitlint.analysis.facade import GRAD_TRACED
from jitlint.core.finding import Severity
from jitlint.rules.base import Confirmation, Report, Rule, RuleContext

from ._helpers import calls, certain_tracer, traced_in, condition_nodes, describe, membership_tested, truth_tested, where

def _fix_cond(site) -> str:
    """The remedy for a Python branch on a tracer; marking it static only helps where jit traces it."""
    fix = "use `jnp.where(cond, a, b)` or `lax.cond`/`lax.select`"
    if site.context.kind == "jit" and site.func.jit_binding is not None:
        fix += ", or make the value static with `static_argnames`"
    return fix


class IfOnTracedValue(Rule):
    code = "JIT401"
    name = "if-on-traced-value"
    summary = "`if`/`elif`/`while` on a traced value raises TracerBoolConversionError"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError",)
    what = """
        Finds `if`, `elif` and `while` statements whose condition depends on a traced value inside traced
        code: `if x > 0`, `if jnp.any(mask)`, `while err > tol`. Traced code includes the methods of Flax
        linen modules applied under a trace (`model.apply`, `state.apply_fn`), nnx and Equinox Modules
        passed to `nnx.jit`/`filter_jit`, and the fields of traced pytrees of known classes (`state.step`
        of a TrainState). Branches that cannot run in the traced context (decided by a `partial`-bound or
        defaulted Python flag, `x is None` on a known value) are not traced code.
        """
    why = """
        Python needs a concrete `True`/`False` to pick a branch, but while JAX traces a jitted function
        the value is an abstract tracer. JAX raises `TracerBoolConversionError` at trace time, every
        time. Conditions on static things (`x.shape`, `x.ndim`, `x is None`, static arguments, module
        constants) are fine and are not reported.
        """
    instead_note = """
        Select values with `jnp.where`, choose between computations with `lax.cond` (or `lax.switch`),
        loop with `lax.while_loop`/`lax.fori_loop`; or, if the condition is really configuration,
        mark that argument static (`static_argnames`).
        """
    invalid = (
        """
        import jax

        @jax.jit
        def relu(x):
            if x > 0:
                return x
            return 0.0
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def newton(x):
            while jnp.abs(x * x - 2.0) > 1e-6:
                x = x - (x * x - 2.0) / (2 * x)
            return x
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu(x):
            return jnp.where(x > 0, x, 0.0)
        """,
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="training")
        def dropout(x, training):
            if training and x.ndim == 2:  # static: a Python bool and a shape
                return x * 0.5
            return x
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.If, cst.While):
            traced = truth_tested(a, node.test)
            if traced is not None:
                kind = "while" if isinstance(node, cst.While) else "if"
                yield Report(node.test, f"`{kind}` on traced value {describe(ctx, node.test, traced, site)} {where(site)} "
                                        f"raises TracerBoolConversionError at trace time; {_fix_cond(site)}")


class AssertOnTracedValue(Rule):
    code = "JIT402"
    name = "assert-on-traced-value"
    summary = "`assert` on a traced value raises TracerBoolConversionError"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError",)
    what = "Finds `assert` statements whose condition depends on a traced value inside traced code."
    why = """
        `assert` needs the condition's truth value, which a tracer does not have: JAX raises
        `TracerBoolConversionError` while tracing. Asserting static facts (`x.ndim == 2`,
        `x.shape[0] % 8 == 0`) is fine and is not reported.
        """
    instead_note = """
        Check runtime values with `equinox.error_if` or `jax.experimental.checkify`, or assert on shapes.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            assert x.sum() != 0
            return x / x.sum()
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def normalize(x):
            assert x.ndim == 1, "expects a vector"
            return x / x.sum()
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Assert):
            traced = truth_tested(a, node.test)
            if traced is not None:
                yield Report(node.test, f"`assert` on traced value {describe(ctx, node.test, traced, site)} {where(site)} "
                                        "raises TracerBoolConversionError at trace time; assert on shapes, or "
                                        "check values with `equinox.error_if` / `jax.experimental.checkify`")


class BoolConversionInExpression(Rule):
    code = "JIT403"
    name = "truth-value-of-tracer"
    summary = "`and`/`or`/`not`, a conditional expression, a comprehension `if` or `in (...)` on a traced value"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError",)
    what = """
        Finds expressions that need the truth value of a traced value: the test of a conditional
        expression (`a if t else b`), the left operand of `and`/`or` (`t or default`), `not t`, a
        comprehension filter (`[v for v in xs if v > 0]`), and membership in a literal (`t in (1, 2)`).
        """
    why = """
        Each of these calls `bool()` on the tracer, and JAX raises `TracerBoolConversionError` while
        tracing. (`x is None` and conditions on static values are fine and are not reported.)
        """
    instead_note = """
        Use `jnp.where(t, a, b)`, `jnp.logical_and/or/not`, `&`, `|`, `~` on boolean arrays, or
        `jnp.isin(t, jnp.array([1, 2]))`.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def soft_sign(x):
            return 1.0 if x > 0 else -1.0
        """,
        """
        import jax

        @jax.jit
        def scale(x, s: float):
            return x * (s or 1.0)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def soft_sign(x):
            return jnp.where(x > 0, 1.0, -1.0)
        """,
        """
        import jax

        @jax.jit
        def scale(x, s=None):
            return x * (1.0 if s is None else s)
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        in_condition = condition_nodes(a)
        for node, site in a.sites_of(cst.IfExp):
            traced = truth_tested(a, node.test)
            if traced is not None:
                yield Report(node.test, f"conditional expression on traced value {describe(ctx, node.test, traced, site)} "
                                        f"{where(site)} raises TracerBoolConversionError; use `jnp.where(cond, a, b)`")
        for node, site in a.sites_of(cst.CompFor):
            for cond in node.ifs:
                traced = truth_tested(a, cond.test)
                if traced is not None:
                    yield Report(cond.test, f"comprehension filter on traced value {describe(ctx, cond.test, traced, site)} "
                                            f"{where(site)} raises TracerBoolConversionError; use `jnp.where` or a "
                                            "mask with a fixed size")
        inner_chain = {child for node, _ in a.sites_of(cst.BooleanOperation) for child in (node.left, node.right)}
        for node, site in a.sites_of(cst.BooleanOperation):
            if node in in_condition or node in inner_chain:
                continue
            operands = _chain(node)
            for operand in operands[:-1]:  # every operand but the last has its truth value taken
                traced = truth_tested(a, operand)
                if traced is not None:
                    op = "and" if isinstance(node.operator, cst.And) else "or"
                    yield Report(node, f"`{op}` takes the truth value of traced {describe(ctx, operand, traced, site)} "
                                       f"{where(site)} and raises TracerBoolConversionError; use `jnp.where` or "
                                       "`jnp.logical_and`/`jnp.logical_or`")
                    break
        for node, site in a.sites_of(cst.UnaryOperation):
            if node in in_condition:
                continue
            traced = truth_tested(a, node.expression)
            if traced is not None:
                yield Report(node, f"`not` on traced value {describe(ctx, node.expression, traced, site)} {where(site)} "
                                   "raises TracerBoolConversionError; use `~mask` or `jnp.logical_not`")
        for node, site in a.sites_of(cst.Comparison):
            if node in in_condition:
                continue
            traced = membership_tested(a, node)
            if traced is not None:
                yield Report(node, f"`in` compares traced value {describe(ctx, node.left, traced, site)} {where(site)} "
                                   "element by element and raises TracerBoolConversionError; use `jnp.isin`")


def _chain(node: cst.BooleanOperation) -> list[cst.BaseExpression]:
    """`a and b and c` (parsed as `(a and b) and c`) -> [a, b, c], for one kind of operator."""
    out: list[cst.BaseExpression] = []
    for side in (node.left, node.right):
        if isinstance(side, cst.BooleanOperation) and type(side.operator) is type(node.operator):
            out.extend(_chain(side))
        else:
            out.append(side)
    return out


class ConcreteValueOfTracer(Rule):
    code = "JIT404"
    name = "concrete-value-of-tracer"
    summary = "`int()`, `float()`, `bool()`, `.item()`, `.tolist()` or `math.*` on a traced value"
    severity = Severity.ERROR
    raises = ("ConcretizationTypeError", "TracerBoolConversionError", "TracerIntegerConversionError")
    what = """
        Finds conversions of a traced value to a Python value inside traced code: `int(t)`, `float(t)`,
        `bool(t)`, `complex(t)`, `operator.index(t)`, `t.item()`, `t.tolist()`, and `math.*(t)`.
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

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            q = a.call_names.get(node)
            if q in jaxapi.CONCRETIZERS and node.args:
                min_level = GRAD_TRACED if q not in jaxapi.CONCRETE_UNDER_GRAD else None
                traced = certain_tracer(a, node.args[0].value, min_level or 2)
                if traced is not None:
                    name = q.rsplit(".", 1)[-1]
                    yield Report(node, f"`{name}()` of traced value {describe(ctx, node.args[0].value, traced, site)} "
                                       f"{where(site)} needs a concrete value and raises "
                                       f"{jaxapi.CONCRETIZERS[q]}; keep it an array (e.g. `.astype(...)`) or make "
                                       "it a static argument")
            elif q is not None and q.startswith("math.") and node.args:
                traced = next((t for t in (certain_tracer(a, arg.value, GRAD_TRACED) for arg in node.args) if t), None)
                if traced is not None:
                    yield Report(node, f"`{q}` on traced value `{traced.origin}` {where(site)} converts it to a "
                                       f"Python float and raises ConcretizationTypeError; use the `jnp` "
                                       f"equivalent (`jnp.{q.split('.', 1)[1]}`)")
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in ("item", "tolist") and not node.args:
                min_level = 2 if node.func.attr.value == "item" else GRAD_TRACED
                traced = certain_tracer(a, node.func.value, min_level)
                if traced is not None:
                    yield Report(node, f"`.{node.func.attr.value}()` of traced value "
                                       f"{describe(ctx, node.func.value, traced, site)} {where(site)} needs a concrete value "
                                       "and raises ConcretizationTypeError; keep it an array")


class BuiltinMaxMinOfTracer(Rule):
    code = "JIT405"
    name = "builtin-max-min-of-tracer"
    summary = "Builtin `max`/`min`/`sorted` compare traced values in Python"
    severity = Severity.ERROR
    raises = ("TracerBoolConversionError",)
    what = "Finds the builtins `max`, `min` and `sorted` applied to traced values inside traced code."
    why = """
        The builtins compare their arguments with Python's `>`/`<` and need the truth value of each
        comparison: on tracers JAX raises `TracerBoolConversionError`. `max(x.shape)` and other static
        uses are fine.
        """
    instead_note = "Use `jnp.maximum`/`jnp.minimum` (element-wise), `jnp.max`/`jnp.min`, or `jnp.sort`."
    invalid = (
        """
        import jax

        @jax.jit
        def relu(x):
            return max(x, 0.0)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu(x):
            return jnp.maximum(x, 0.0)
        """,
        """
        import jax

        @jax.jit
        def pad_to(x):
            return max(x.shape[0], 8)
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            name = a.call_names.get(node)
            if name not in ("max", "min", "sorted"):
                continue
            for arg in node.args:
                if arg.keyword is not None:
                    continue
                found = _traced_elements(a, arg.value)
                if found is None:
                    traced = certain_tracer(a, arg.value)
                    found = (arg.value, traced) if traced is not None else None
                if found is not None:
                    fix = {"max": "`jnp.maximum`/`jnp.max`", "min": "`jnp.minimum`/`jnp.min`", "sorted": "`jnp.sort`"}[name]
                    yield Report(node, f"builtin `{name}` compares traced value {describe(ctx, *found, site)} "
                                       f"{where(site)} in Python and raises TracerBoolConversionError; use {fix}")
                    break


def _traced_elements(a, expr):
    """(element, taint) of a traced element inside a literal list/tuple argument (`max([a, b])`)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        for el in expr.elements:
            t = certain_tracer(a, el.value)
            if t is not None:
                return el.value, t
    return None


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
        `np.mean(t)`) happen to work and are not reported; NumPy on constants is fine.
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

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Subscript):
            if not (isinstance(node.value, cst.Name) and _is_module_numpy_array(a, site, node.value.value)):
                continue
            for el in node.slice:
                index = el.slice.value if isinstance(el.slice, cst.Index) else None
                traced = certain_tracer(a, index, GRAD_TRACED) if index is not None else None
                if traced is not None:
                    yield Report(node, f"indexing the NumPy array `{node.value.value}` with traced value "
                                       f"{describe(ctx, index, traced, site)} {where(site)} converts the tracer to "
                                       f"NumPy and raises TracerArrayConversionError; use "
                                       f"`jnp.asarray({node.value.value})[...]`")
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
                    yield Report(node, f"`{short}` on traced value {describe(ctx, arg.value, traced, site)} {where(site)} "
                                       f"converts it to a NumPy array and raises TracerArrayConversionError; use "
                                       f"`{short.replace('np.', 'jnp.')}`")
                    break


def _is_module_numpy_array(a, site, name: str) -> bool:
    """A module-level name only ever assigned NumPy arrays (and not rebound in the function)."""
    if name in site.func.assignments or name in site.func.params:
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

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            if not calls(a, node, "range"):
                continue
            for arg in node.args:
                traced = certain_tracer(a, arg.value)
                if traced is not None:
                    yield Report(node, f"`range()` over traced value {describe(ctx, arg.value, traced, site)} {where(site)} "
                                       "raises TracerIntegerConversionError; use `lax.fori_loop` (traced bounds are "
                                       "fine there) or make the bound a static argument")
                    break
        for node, site in a.sites_of(cst.Subscript):
            if not _python_sequence(a, site, node.value):
                continue
            for el in node.slice:
                if isinstance(el.slice, cst.Index):
                    traced = certain_tracer(a, el.slice.value)
                    if traced is not None:
                        yield Report(node, f"indexing a Python list with traced value "
                                           f"{describe(ctx, el.slice.value, traced, site)} {where(site)} raises "
                                           "TracerIntegerConversionError; index a `jnp.array` or use `lax.switch`")
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

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Slice):
            for bound in (node.lower, node.upper, node.step):
                if bound is None:
                    continue
                traced = certain_tracer(a, bound)
                if traced is not None:
                    yield Report(node, f"slice bound {describe(ctx, bound, traced, site)} is traced {where(site)}: the "
                                       "result's shape would depend on it, so JAX raises IndexError; use "
                                       "`lax.dynamic_slice` with a static size, or a static argument")
                    break


class LoopOverTracedArray(Rule):
    code = "JIT409"
    name = "python-loop-over-traced-array"
    summary = "A Python `for` over a traced array is unrolled into the compiled program"
    severity = Severity.INFO
    confirmed_by = Confirmation(unrolled=True)
    what = """
        Finds Python `for` loops and comprehensions that iterate over a traced array (`for row in x`)
        inside traced code.
        """
    why = """
        This works, but JAX unrolls the loop: the traced program grows with the array's length (10
        equations for 3 rows, 91 for 30), so compile time and memory grow too, and the function
        recompiles for every new length.
        """
    instead_note = "Use `jax.vmap` over the rows, `lax.map`, or `lax.scan` for a sequential loop."
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norms(x):
            return jnp.stack([jnp.linalg.norm(row) for row in jnp.atleast_2d(x)])
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norms(x):
            return jax.vmap(jnp.linalg.norm)(jnp.atleast_2d(x))
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.For, cst.CompFor):
            iterable = node.iter
            if isinstance(iterable, cst.Call) and a.call_names.get(iterable) in ("enumerate", "reversed", "zip"):
                candidates = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
                if any(traced_in(a, c) is None for c in candidates):
                    continue  # `zip(keys, d.items())`: a Python container sets the length, not the array
            else:
                candidates = [iterable]
            for expr in candidates:
                traced = certain_tracer(a, expr)
                if traced is not None and traced.is_array:
                    yield Report(expr, f"Python loop over traced array {describe(ctx, expr, traced, site)} {where(site)} "
                                       "is unrolled: compile time grows with its length; use `jax.vmap`, "
                                       "`lax.map` or `lax.scan`")
                    break
