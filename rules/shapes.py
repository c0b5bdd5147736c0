"""JIT6xx: data-dependent shapes.

Under `jit` every array's shape must be known from the input shapes alone. Operations whose output
size depends on the *values* -- boolean masks, `nonzero`, `unique` -- or shapes computed from traced
values raise at trace time.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.cardinality import depends_on, names_read, varying_names
from jitlint.analysis.literals import kwarg, positional_args
from jitlint.analysis.names import dotted
from jitlint.core.finding import Applicability, Severity
from jitlint.core.fixes import comments
from jitlint.rules.base import Confirmation, FixSpec, Replace, Report, Rule, RuleContext
from jitlint.source.cstwalk import bound_names, descendants

from ._calls import callee_name, jitted_calls, repeated_functions
from ._helpers import builtin_usable, certain_tracer, describe, traced_in, where


def sizeless(a, node: cst.Call) -> str | None:
    """`jnp.unique(x)`, `jnp.nonzero(m)`, one-argument `jnp.where(c)`... without `size=`: the function's
    qualified name (its output length is the number of matches), else None."""
    q = a.call_names.get(node)
    if q not in jaxapi.SIZE_DEPENDENT or any(arg.keyword is not None and arg.keyword.value == "size"
                                             for arg in node.args):
        return None
    if q == "jax.numpy.where" and (len(positional_args(node)) != 1 or any(
            arg.keyword is not None and arg.keyword.value in ("x", "y") for arg in node.args)):
        return None
    return q


def _traced_mask(a, index: cst.BaseExpression):
    t = traced_in(a, index)
    if t is not None and t.is_bool and not t.container:
        return t
    return None


def _mask_of(node: cst.Subscript) -> cst.BaseExpression | None:
    for el in node.slice:
        if isinstance(el.slice, cst.Index):
            return el.slice.value
    return None


def _is_at(node: cst.Subscript) -> bool:
    return isinstance(node.value, cst.Attribute) and node.value.attr.value == "at"


class BooleanMaskIndex(Rule):
    code = "JIT601"
    name = "boolean-mask-index"
    summary = "Indexing with a traced boolean mask (`x[x > 0]`) has a data-dependent shape"
    severity = Severity.ERROR
    raises = ("NonConcreteBooleanIndexError",)
    what = """
        Finds indexing with a traced boolean array inside traced code: `x[x > 0]`, `x[mask]` where
        `mask` is computed from traced values (including a constant `jnp.array([True, ...])` built
        inside `jit`).
        """
    why = """
        The result has one element per `True`, so its shape depends on the data: JAX raises
        `NonConcreteBooleanIndexError` while tracing. A concrete NumPy mask closed over, or a Python
        bool (`x[x.shape[0] > 2]`), is fine and is not reported.
        """
    instead_note = """
        Keep the shape fixed: `jnp.where(mask, x, 0)`, reductions with `where=` (`jnp.sum(x, where=mask)`),
        or `x[jnp.nonzero(mask, size=n, fill_value=...)]` with a static bound `n`.
        """
    fixable = True
    fix_note = """
        A reduction of the masked elements (`x[m].sum()`, `.mean()`, `.prod()`, `.std()`, `.var()`,
        `.any()`, `.all()`, or `jnp.sum(x[m])` ...) becomes the reduction with `where=m`: safe, the same
        value and dtype (an empty mask too: 0, 1, nan, False, True; measured on JAX 0.10.2). `.max()` and
        `.min()` need `initial=` with `where=` (JAX raises ValueError without it): the fix passes
        `initial=float("-inf")` (`"inf"`), unsafe because an empty mask then gives -inf where indexing
        raised. Only where the mask is computed element by element from `x` itself (`x > 0`,
        `jnp.isfinite(x)`, `~m`, `m1 & m2`): another mask can broadcast against `x` differently with
        `where=` than it selects as an index (a row mask selects rows).
        """
    fix_examples = (
        (
            """
            import jax


            @jax.jit
            def stats(x):
                return x[x > 0].sum(), x[x > 0].mean()
            """,
            """
            import jax


            @jax.jit
            def stats(x):
                return x.sum(where=x > 0), x.mean(where=x > 0)
            """,
        ),
        (
            """
            import jax
            import jax.numpy as jnp


            @jax.jit
            def peak(x):
                return jnp.max(x[jnp.isfinite(x)])
            """,
            """
            import jax
            import jax.numpy as jnp


            @jax.jit
            def peak(x):
                return jnp.max(x, where=jnp.isfinite(x), initial=float("-inf"))
            """,
        ),
    )
    no_fix_examples = (
        """
        import jax

        @jax.jit
        def row_total(x, keep):
            return x[keep > 0].sum()  # `keep` may be a row mask: `where=` would broadcast it over columns
        """,
    )
    invalid = (
        """
        import jax

        @jax.jit
        def positive_sum(x):
            return x[x > 0].sum()
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_sum(x):
            return jnp.sum(x, where=x > 0)
        """,
        """
        import jax
        import numpy as np

        EVEN = np.arange(6) % 2 == 0

        @jax.jit
        def evens(x):
            return x[EVEN]  # a concrete NumPy mask: static shape
        """,
    )

    messages = {
        "mask": "boolean mask {value} is traced {where}: the result's size depends on the data, so JAX raises "
                "NonConcreteBooleanIndexError; use `jnp.where(mask, x, 0)` or a reduction with `where=mask`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Subscript):
            if _is_at(node):
                continue
            mask = _mask_of(node)
            traced = _traced_mask(a, mask) if mask is not None else None
            if traced is not None:
                yield Report(node, self.message("mask", value=describe(ctx, mask, traced, site), where=where(site, a, node)),
                             fix=_reduction_fix(ctx, node, mask))


# Reductions whose `where=` form gives what reducing the selected elements gives (measured on JAX 0.10.2,
# an empty mask included: sum 0, prod 1, mean/std/var nan, any False, all True, the same dtypes).
_EXACT_REDUCTIONS = {"sum", "prod", "mean", "std", "var", "any", "all"}
# max/min need `initial=` with `where=` (JAX raises ValueError without it): an empty mask then gives the
# initial value where indexing raised, so the fix is unsafe.
_INITIAL = {"max": 'float("-inf")', "min": 'float("inf")'}
_ELEMENTWISE_TESTS = {"jax.numpy.isnan", "jax.numpy.isfinite", "jax.numpy.isinf", "jax.numpy.isposinf",
                      "jax.numpy.isneginf"}


def _reduction_of(ctx: RuleContext, sub: cst.Subscript) -> tuple[cst.Call, str, bool] | None:
    """The reduction applied to `x[mask]` right there: (the call, its name, method form)."""
    return ctx.memo(_reduction_of, lambda: _reductions(ctx)).get(sub)


def _reductions(ctx: RuleContext) -> dict[cst.Subscript, tuple[cst.Call, str, bool]]:
    """Every subscript a reduction is applied to in traced code, with the reduction (as `_reduction_of`)."""
    found = {}
    for call, _ in ctx.analysis.sites_of(cst.Call):
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript) and not call.args:
            found[func.value] = (call, func.attr.value, True)
        q = ctx.analysis.call_names.get(call) or ""
        if q.startswith("jax.numpy.") and len(call.args) == 1 and call.args[0].keyword is None \
                and not call.args[0].star and isinstance(call.args[0].value, cst.Subscript):
            found[call.args[0].value] = (call, q.rsplit(".", 1)[-1], False)
    return found


def _same_expr(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """The same plain name or attribute chain (`x`, `self.w`): the same value both times it is read."""
    return dotted(a) is not None and dotted(a) == dotted(b) and not a.lpar and not b.lpar


def _is_number(e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        e = e.expression
    return isinstance(e, (cst.Integer, cst.Float))


def _elementwise_of(ctx: RuleContext, mask: cst.BaseExpression, x: cst.BaseExpression) -> bool:
    """Is the mask computed element by element from `x` alone (so it has `x`'s shape): `x > 0`,
    `jnp.isfinite(x)`, `~m`, `m1 & m2`? Any other mask may broadcast against `x` differently with `where=`
    than it selects as an index (a row mask selects rows, `where=` would pair it with columns)."""
    if isinstance(mask, cst.Comparison) and len(mask.comparisons) == 1:
        right = mask.comparisons[0].comparator
        op = mask.comparisons[0].operator
        if not isinstance(op, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal,
                               cst.NotEqual)):
            return False
        return (_same_expr(mask.left, x) and _is_number(right)) or (_same_expr(right, x) and _is_number(mask.left))
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        return _elementwise_of(ctx, mask.expression, x)
    if isinstance(mask, cst.BinaryOperation) and isinstance(mask.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _elementwise_of(ctx, mask.left, x) and _elementwise_of(ctx, mask.right, x)
    if isinstance(mask, cst.Call) and ctx.analysis.call_names.get(mask) in _ELEMENTWISE_TESTS:
        return len(mask.args) == 1 and mask.args[0].keyword is None and not mask.args[0].star and \
            _same_expr(mask.args[0].value, x)
    return False


def _reduction_fix(ctx: RuleContext, sub: cst.Subscript, mask: cst.BaseExpression) -> FixSpec | None:
    """x[x > 0].sum() -> x.sum(where=x > 0); jnp.mean(x[m]) -> jnp.mean(x, where=m): only where the
    mask is element by element from `x`, and for reductions whose `where=` form is exact."""
    found = _reduction_of(ctx, sub)
    if found is None or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return None
    call, name, method = found
    x = sub.value
    if name not in _EXACT_REDUCTIONS and name not in _INITIAL:
        return None
    if not _elementwise_of(ctx, mask, x) or (name in _INITIAL and not builtin_usable(ctx, "float")):
        return None
    if comments(ctx.code(call)) != []:
        return None
    eq = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    kwargs = [cst.Arg(mask.with_changes(lpar=[], rpar=[]) if not isinstance(mask, cst.BinaryOperation) else mask,
                      keyword=cst.Name("where"), equal=eq)]
    if name in _INITIAL:
        kwargs.append(cst.Arg(cst.parse_expression(_INITIAL[name]), keyword=cst.Name("initial"), equal=eq))
    if method:
        replacement = call.with_changes(func=call.func.with_changes(value=x), args=kwargs)
    else:
        replacement = call.with_changes(args=[cst.Arg(x), *kwargs])
    replacement = replacement.with_changes(args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                                 for a in replacement.args])
    safe = name in _EXACT_REDUCTIONS
    return FixSpec(f"Use `{name}(..., where=mask)`", (Replace(call, replacement),),
                   Applicability.SAFE if safe else Applicability.UNSAFE)


class BooleanMaskAt(Rule):
    code = "JIT602"
    name = "boolean-mask-at-update"
    summary = "`.at[mask]` with a traced boolean mask raises NonConcreteBooleanIndexError"
    severity = Severity.ERROR
    raises = ("NonConcreteBooleanIndexError",)
    what = "Finds `x.at[mask].set/add/get/...(...)` where `mask` is a traced boolean array."
    why = """
        `.at[]` indexes like `x[mask]`, and JAX does not support traced boolean masks there either: it
        raises `NonConcreteBooleanIndexError` while tracing, even though the update would keep `x`'s shape.
        """
    instead_note = "Write the update as a select: `jnp.where(mask, new_value, x)`."
    invalid = (
        """
        import jax

        @jax.jit
        def clip_negative(x):
            return x.at[x < 0].set(0.0)
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clip_negative(x):
            return jnp.where(x < 0, 0.0, x)
        """,
    )

    messages = {
        "at": "`.at[]` with traced boolean mask {value} {where} raises NonConcreteBooleanIndexError; use "
              "`jnp.where(mask, new, x)`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Subscript):
            if not _is_at(node):
                continue
            mask = _mask_of(node)
            traced = _traced_mask(a, mask) if mask is not None else None
            if traced is not None:
                yield Report(node, self.message("at", value=describe(ctx, mask, traced, site), where=where(site, a, node)))


class SizeDependentOutput(Rule):
    code = "JIT603"
    name = "data-dependent-output-size"
    summary = "`jnp.nonzero`/`where(c)`/`argwhere`/`unique`/`compress`... without `size=` on traced values"
    severity = Severity.ERROR
    raises = ("ConcretizationTypeError", "TracerBoolConversionError")
    what = """
        Finds `jnp.nonzero`, one-argument `jnp.where`, `jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique`
        (and its variants), `jnp.compress`, `jnp.extract` and the set operations called on traced values
        without a static `size=`.
        """
    why = """
        Their output length is the number of matches, which depends on the data: JAX raises
        `ConcretizationTypeError` (`TracerBoolConversionError` for `compress`/`extract`) while tracing.
        Three-argument `jnp.where(c, a, b)` keeps the shape and is fine.
        """
    instead_note = """
        Pass a static upper bound and a fill value: `jnp.nonzero(mask, size=n, fill_value=-1)`,
        `jnp.unique(x, size=n, fill_value=0)`; or use a fixed-shape formulation (`jnp.where(c, a, b)`).
        """
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def active(x):
            return jnp.nonzero(x > 0)[0]
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def active(x):
            return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)[0]
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu(x):
            return jnp.where(x > 0, x, 0.0)
        """,
    )

    messages = {
        "size": "`{call}` of {what} {where} has a data-dependent output size and fails at trace time; pass a static "
                "`size=` (and `fill_value=`)",
        # what the call is applied to
        "traced": "traced value {value}",
        "computed": "`{expr}`, computed from traced `{origin}`",
        "constant": "a constant (inside `jit`, `jnp` turns it into a tracer too)",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            q = sizeless(a, node)
            if q is None:
                continue
            n = jaxapi.SIZE_DEPENDENT[q]
            checked = [arg.value for arg in node.args if arg.keyword is None][:n] + [
                arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value in (
                    "a", "ar", "arr", "condition", "ar1", "ar2", "x")]
            short = q.replace("jax.numpy.", "jnp.")
            # (their array arguments are traced by jnp itself: a module-level array too)
            traced = next(((e, t) for e, t in ((e, certain_tracer(a, e, array_argument=True)) for e in checked)
                           if t), None)
            maybe = next(((e, t) for e, t in ((e, traced_in(a, e, array_argument=True)) for e in checked) if t),
                         None)
            if traced is not None:
                what = self.message("traced", value=describe(ctx, traced[0], traced[1], site))
            elif maybe is not None and site.constants_traced:
                # (under jit jnp traces whatever it is given; under `ensure_compile_time_eval` a value of
                # unknown kind may be concrete, and then the size is known)
                what = self.message("computed", expr=ctx.short(maybe[0], 30), origin=maybe[1].origin)
            elif checked and site.constants_traced:
                what = self.message("constant")
            else:
                continue
            yield Report(node, self.message("size", call=short, what=what, where=where(site, a, node)))


class TracedShape(Rule):
    code = "JIT604"
    name = "traced-shape"
    summary = "A traced value used as a shape (`jnp.zeros(n)`, `jnp.arange(n)`, `x.reshape(n, -1)`)"
    severity = Severity.ERROR
    raises = ("TypeError", "ConcretizationTypeError", "ValueError")
    what = """
        Finds traced values used where JAX needs a static shape or size: array constructors
        (`jnp.zeros`, `ones`, `full`, `empty`, `eye`, `arange`, `linspace(num=)`, `*_like(shape=)`),
        `reshape`, `broadcast_to`, `tile`, `jnp.pad` widths, `jnp.split` counts, `jnp.expand_dims` axes,
        `jax.nn.one_hot(num_classes)`, `lax.top_k(k)`, `lax.dynamic_slice` sizes, `lax.scan(length=)`,
        and `jax.random.*(key, shape)` and `jax.random.split(key, num)`; and the other ints JAX needs
        concrete: the `axis` of reductions and sorts (`jnp.sum(x, axis)`, `argsort`, `flip`, ...), the
        offset of `jnp.triu`/`tril`, `jnp.argpartition`'s `kth`, and `jnp.repeat`'s counts without
        `total_repeat_length=`.
        """
    why = """
        Shapes must be known at trace time. A non-static argument is traced even when the caller passes
        a Python int, so `jnp.zeros(n)` raises `TypeError: Shapes must be 1D sequences of concrete
        values` (or `ConcretizationTypeError` for `arange`). Shapes taken from `x.shape` are static and
        fine. The same holds for an axis or an offset: `jnp.sum(x, axis)` raises `ConcretizationTypeError`,
        and `jnp.argsort(x, axis=axis)` or `jnp.triu(m, k)` a `ValueError` (JAX 0.10.2).
        """
    instead_note = "Mark the size argument static (`static_argnames=\"n\"`) or derive it from an input's `.shape`."
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def make_buffer(x, n):
            return jnp.zeros(n) + x.sum()
        """,
    )
    valid = (
        """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames="n")
        def make_buffer(x, n):
            return jnp.zeros(n) + x.sum()
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def like(x):
            return jnp.zeros(x.shape[0] * 2)
        """,
    )

    messages = {
        "shape": "shape argument {value} is traced {where}: shapes must be static, so JAX raises at trace time; make "
                 "it a static argument or derive it from `x.shape`",
        "int": "`{keyword}` argument {value} is traced {where}: it must be a Python int, so JAX raises at trace time; "
               "make it a static argument",  # (an axis, an offset: jaxapi.STATIC_INT_ARGS)
        "repeats": "repeat counts {value} are traced {where}: they set the result's size, so JAX raises at trace "
                   "time; pass `total_repeat_length=` (a static bound) or make them a static argument",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for node, site in a.sites_of(cst.Call):
            q = a.call_names.get(node)
            shape_exprs: list[cst.BaseExpression] = []
            keyword = "shape"
            if q in jaxapi.SHAPE_ARGS and kwarg(node, jaxapi.SHAPE_ARGS_UNLESS.get(q, "")) is None:
                position, keyword = jaxapi.SHAPE_ARGS[q]
                pos = positional_args(node)
                if q == "jax.numpy.arange":
                    shape_exprs = [arg.value for arg in pos[:3]] + [
                        arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value in ("start", "stop", "step")]
                else:
                    if position < len(pos):
                        shape_exprs.append(pos[position].value)
                    shape_exprs += [arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == keyword]
            elif (q is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in jaxapi.SHAPE_METHODS
                  and certain_tracer(a, node.func.value) is not None):
                shape_exprs = [arg.value for arg in node.args if arg.keyword is None or arg.keyword.value in ("shape", "newshape")]
            for expr in shape_exprs:
                traced = _traced_in_shape(a, expr)
                if traced is not None:
                    case = "repeats" if keyword == "repeats" else "int" if q in jaxapi.STATIC_INT_ARGS else "shape"
                    yield Report(node, self.message(case, keyword=keyword, value=describe(ctx, expr, traced, site),
                                                    where=where(site, a, node)))
                    break


def _traced_in_shape(a, expr: cst.BaseExpression):
    if isinstance(expr, (cst.Tuple, cst.List)):
        for el in expr.elements:
            t = _traced_in_shape(a, el.value)
            if t is not None:
                return t
        return None
    return certain_tracer(a, expr)


class EagerSizelessIntoJit(Rule):
    code = "JIT605"
    witness = "repeated"
    name = "eager-data-dependent-size-into-jit"
    summary = "An eager `jnp.unique`/`nonzero`/`where(c)` without `size=` fed to a jitted function again and again"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"shape"}))
    what = """
        Finds calls of a jitted function, in a data-driven loop (or a function called from one), passed
        the result of `jnp.unique`, `jnp.nonzero`, `jnp.argwhere`, `jnp.flatnonzero`, one-argument
        `jnp.where` (and the like) computed eagerly, without `size=`, from values that change between
        iterations -- directly, indexed (`jnp.nonzero(m)[0]`) or through a name. Reported at that
        size-less call, where `size=` goes.
        """
    why = """
        Outside `jit` these functions work, and their output is as long as the number of matches, which
        depends on the data. A jitted function compiles once per distinct input shape, so it compiles
        again for every new length (measured on JAX 0.10.2: 6 compiles in 30 generations for
        `update(jnp.unique(idx), table)`, 1 with `size=`), and each compile is kept.
        """
    instead_note = """
        Pass a static upper bound and a fill value that does no harm downstream (an index the update
        ignores or repeats, a zero weight): the jitted function then sees one shape.
        """
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def update(bins, table):
            return table.at[bins].add(1.0)

        def run(batches, table):
            for idx in batches:
                table = update(jnp.unique(idx), table)
            return table
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def update(bins, table):
            return table.at[bins].add(1.0)

        def run(batches, table):
            for idx in batches:
                table = update(jnp.unique(idx, size=idx.shape[0], fill_value=idx[0]), table)
            return table
        """,
    )

    messages = {
        "size": "{value} without `size=`, computed eagerly {place}, is passed to jitted `{jitted}`: its length "
                "depends on the data, so `{jitted}` compiles again for every new length; pass `size=` (and "
                "`fill_value=`)",
        "direct": "`{call}`",
        "through": "`{name}`, from `{call}`,",
        "loop": "in a loop from values that change every iteration",
        "repeated": "in `{func}`, which runs repeatedly ({why})",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        repeated = None
        for site, sig, args in jitted_calls(ctx):
            if not site.eager or site.traced:
                continue  # inside traced code the call is part of the outer trace (JIT603 there)
            in_loop = site.loop is not None and not runs.loops_are_sweeps(a, site.func, site.loops, site.node)
            if not in_loop:
                repeated = repeated if repeated is not None else repeated_functions(ctx)
                if site.func not in repeated:
                    continue
            for arg in args:
                if arg.static:
                    continue
                found = _sizeless_source(a, site, arg.expr)
                if found is None:
                    continue
                call, name = found
                reads = names_read(call)
                if in_loop:
                    varying = varying_names(site)
                    if not (reads & varying or depends_on(a, site.func, call, varying)):
                        continue  # the same input every pass: one length, one compile
                    place = self.message("loop")
                else:
                    local = set(site.func.params) | set(site.func.assignments)
                    if not reads & local:
                        continue  # computed from module constants: one length
                    place = self.message("repeated", func=site.func.name, why=repeated[site.func])
                short = ctx.short(call, 40)
                value = self.message("through", name=name, call=short) if name else self.message("direct", call=short)
                # at the call without `size=`: where the fix goes, however far it is from the jitted call (a
                # step of the witness, where the run sees the compiles)
                yield Report(call, self.message("size", value=value, place=place, jitted=callee_name(sig)),
                             related=((site.node, f"passed to jitted `{callee_name(sig)}` here"),))


def _sizeless_source(a, site, expr: cst.BaseExpression, depth: int = 0) -> tuple[cst.Call, str | None] | None:
    """(the size-less call `expr` is, or is indexed from, or is bound to; the name it went through)."""
    if isinstance(expr, cst.Subscript):
        expr = expr.value  # `jnp.nonzero(m)[0]`, `jnp.argwhere(m)[:, 0]`
    if isinstance(expr, cst.Call):
        return (expr, None) if sizeless(a, expr) is not None else None
    if isinstance(expr, cst.Name) and depth < 2:
        sources = runs.assigned(a, site.func, expr.value)
        if not sources:
            unpacked = runs.unpacked_from_call(a, site.func, expr.value)  # `(nz,) = jnp.nonzero(m)`
            sources = [unpacked] if unpacked is not None else []
        found = [_sizeless_source(a, site, s, depth + 1) for s in sources]
        if found and all(f is not None for f in found):
            return found[0][0], expr.value
    return None


# Calls that give an array one element (or one slice) longer than their first operand (`jnp.append(h, x)`,
# `jnp.concatenate([h, x])`): a name rebound to one of them on every pass grows on every pass.
_GROWING = frozenset({"jax.numpy.append", "numpy.append", "jax.numpy.concatenate", "numpy.concatenate",
                      "jax.numpy.vstack", "numpy.vstack", "jax.numpy.hstack", "numpy.hstack",
                      "jax.numpy.row_stack", "numpy.row_stack", "jax.numpy.column_stack", "numpy.column_stack"})
# Calls that make one array of a list's items (its length, the list's).
_FROM_LIST = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray", "jax.numpy.stack",
                        "numpy.stack", "jax.numpy.concatenate", "numpy.concatenate", "jax.numpy.vstack",
                        "numpy.vstack", "jax.numpy.hstack", "numpy.hstack"})
_LIST_GROWTH = frozenset({"append", "extend"})
_LIST_SHRINK = frozenset({"pop", "popleft", "clear", "remove"})


class GrowingInputIntoJit(Rule):
    code = "JIT606"
    witness = "repeated"
    name = "growing-input-into-jit"
    summary = "A jitted function called in a loop with an array or list that grows on every iteration"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"shape"}))
    what = """
        Finds calls of a jitted function, in a data-driven loop, passed an array or a list that the loop
        makes longer on every pass with what that call returned (a recurrence: a controller's error
        history, the tokens a model generates): a name rebound there to `jnp.append(h, x)` or
        `jnp.concatenate([h, x])` (`vstack`, `hstack`, NumPy's too), or a list the loop appends to (and
        never shortens or rebuilds), passed as it is or through `jnp.array`/`jnp.stack`, `x` reading the
        call's result (or a name made from it). The growth happens on every pass: at the loop body's own
        level, not under an `if`. Silent on a slice of bounded length (`history[-8:]`), a list emptied or
        rebuilt in the loop, a dataset the loop extends from other work, and calls in traced code.
        """
    why = """
        A jitted function compiles once per distinct input shape (and a list passed to it is a pytree
        whose structure is its length), so an input one element longer every pass compiles again on
        every pass, and every compile is kept (measured on JAX 0.10.2: 6 compiles in 6 passes for a
        `jnp.append` history; 1 for a preallocated buffer with the count passed as an array). A generation
        loop feeding the growing sequence to the model, or a controller fed its error history, pays a full
        compile per token or step.
        """
    instead_note = """
        Preallocate the buffer at its largest size, fill it with `.at[i].set(...)`, and pass the count
        as an array (mask or `lax.dynamic_slice` inside); or pad to a few bucket sizes. For token-by-token
        generation, a fixed-size KV cache with the position as an argument.
        """
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def control(errors):
            return 0.5 * errors[-1] + 0.1 * errors.sum()

        def run(plant, steps):
            errors = jnp.zeros(1)
            for _ in range(steps):
                u = control(errors)
                errors = jnp.append(errors, plant(u))
            return errors
        """,
    )
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def control(errors, count):
            seen = jnp.arange(errors.shape[0]) < count
            return 0.5 * errors[count - 1] + 0.1 * jnp.where(seen, errors, 0.0).sum()

        def run(plant, steps):
            errors = jnp.zeros(steps + 1)
            for t in range(steps):
                u = control(errors, t + 1)
                errors = errors.at[t + 1].set(plant(u))
            return errors
        """,
    )

    messages = {
        "grows": "`{arg}` grows on every iteration (`{growth}`) and is passed to jitted `{jitted}`: a new shape "
                 "each time, so `{jitted}` compiles again on every iteration (each compile is kept); pass a "
                 "fixed-size buffer (preallocated, filled with `.at[i].set`) and the count as an array",
        "step": "grows here on every iteration",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for site, sig, args in jitted_calls(ctx):
            if not site.eager or site.traced or site.loop is None or site.func is not None and \
                    not isinstance(site.func.node, cst.FunctionDef):
                continue
            found = next(((arg, growth) for arg in args if not arg.static
                          for growth in [_growth_fed_back(a, site, arg.expr)] if growth is not None), None)
            if found is not None:  # (one report per call: the first argument that grows)
                arg, growth = found
                yield Report(arg.expr, self.message("grows", arg=ctx.short(arg.expr, 40), growth=ctx.short(growth, 50),
                                                    jitted=callee_name(sig)),
                             related=((growth, self.message("step")),))


def _growth_fed_back(a, site, expr: cst.BaseExpression) -> cst.CSTNode | None:
    """The statement of a loop around `site` (one that repeats the same work) making `expr`'s array or list
    longer on every pass with what the jitted call returned in that pass -- a recurrence: a controller's
    error history, the tokens a model generates -- or None. (A dataset the loop extends from other work,
    Bayesian optimization's new samples, is not followed: the compile of a helper fed it is not the loop's
    cost.)"""
    name = _list_or_array_name(a, expr)
    if name is None:
        return None
    for loop in site.loops:
        growth = _grows_each_pass(a, site.func, loop, name)
        if growth is not None and _reads_result(a, site, loop, _appended(growth)) and \
                runs.repeats_same_work(a, site.func, loop, site.node):
            return growth
    return None


def _appended(growth: cst.CSTNode) -> list[cst.BaseExpression]:
    """What a growth statement adds: `x` of `h = jnp.append(h, x)`, `jnp.concatenate([h, x])`, `h.append(x)`."""
    call = growth.value if isinstance(growth, (cst.Assign, cst.Expr)) else None
    if not isinstance(call, cst.Call):
        return []
    if isinstance(growth, cst.Expr):
        return [arg.value for arg in call.args]
    first = positional_args(call)
    operands = first[0].value.elements[1:] if first and isinstance(first[0].value, (cst.List, cst.Tuple)) else []
    return [el.value for el in operands] or [arg.value for arg in first[1:2]]


def _reads_result(a, site, loop: cst.CSTNode, added: list[cst.BaseExpression]) -> bool:
    """What is added is the jitted call's result, or reads a name the loop binds to it (`u = control(errors)`),
    directly or through one more assignment (`next_token = jnp.argmax(logits[:, -1])`)."""
    call = site.node
    results: set[str] = set()
    for node in descendants(loop.body):
        if isinstance(node, cst.Assign) and any(part is call for part in descendants(node.value)):
            results.update(bound_names(node))
    for expr in added:
        if any(part is call for part in descendants(expr)):
            return True
        read = names_read(expr)
        if read & results:
            return True
        for name in read:
            if any(isinstance(src, cst.BaseExpression) and names_read(src) & results
                   for src in runs.assigned(a, site.func, name)):
                return True
    return False


def _list_or_array_name(a, expr: cst.BaseExpression) -> str | None:
    """The name an argument passes (`history`), or makes one array of (`jnp.stack(frames)`)."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Call) and a.call_names.get(expr) in _FROM_LIST:
        first = positional_args(expr)
        if first and isinstance(first[0].value, cst.Name):
            return first[0].value.value
    return None


def _grows_each_pass(a, func, loop: cst.CSTNode, name: str) -> cst.CSTNode | None:
    """The statement of `loop`'s own body that makes `name` longer on every pass -- `name = jnp.append(name,
    x)` (its only binding in the loop), or `name.append(x)` of a list built as a literal before the loop and
    neither shortened nor rebound in it -- or None."""
    if not isinstance(loop, (cst.For, cst.While)) or loop.orelse is not None:
        return None
    rebinds, shrinks = [], False
    for node in descendants(loop.body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and name in bound_names(node):
            rebinds.append(node)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                isinstance(node.func.value, cst.Name) and node.func.value.value == name and \
                node.func.attr.value in _LIST_SHRINK:
            shrinks = True
        elif isinstance(node, cst.Del) and name in names_read(node):
            shrinks = True
        elif isinstance(node, (cst.For, cst.CompFor)) and name in bound_names(node):
            return None
    for stmt in getattr(loop.body, "body", ()):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and rebinds == [small] and \
                    isinstance(small.value, cst.Call) and _extends(a, small.value, name):
                return small
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and not rebinds and not shrinks:
                call = small.value
                if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) and \
                        call.func.value.value == name and call.func.attr.value in _LIST_GROWTH and \
                        _fresh_list_before(a, func, name):
                    return small
    return None


def _extends(a, call: cst.Call, name: str) -> bool:
    """`jnp.append(name, x)`, `jnp.concatenate([name, x], axis=1)`: `name` is the first operand."""
    if a.call_names.get(call) not in _GROWING:
        return False
    first = positional_args(call)
    if not first:
        return False
    operand = first[0].value
    if isinstance(operand, (cst.List, cst.Tuple)) and len(operand.elements) >= 2:
        operand = operand.elements[0].value
    return isinstance(operand, cst.Name) and operand.value == name


def _fresh_list_before(a, func, name: str) -> bool:
    """`name` is bound once in the function (the loop binds nothing to it), to a list display or `list()`
    (not a `deque(maxlen=...)`, not a parameter whose kind is unknown)."""
    sources = runs.assigned(a, func, name)
    if len(sources) != 1:
        return False
    src = sources[0]
    return isinstance(src, cst.List) or isinstance(src, cst.Call) and a.call_names.get(src) == "list" and not src.args
