"""JIT3xx: static arguments fed values that keep changing, or that cannot be hashed.

Every distinct value of a static argument is its own compiled executable, kept forever. A loop counter,
a float learning rate or a per-batch length as a static argument means one compile per value; a list,
dict or array cannot be hashed at all and fails at call time. Bad `static_argnums`/`static_argnames`
fail when `jax.jit(...)` is called.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi

from jitlint.analysis import runs
from jitlint.analysis.facade import FuncValue, InstanceValue
from jitlint.source.cstwalk import children
from jitlint.core.finding import Applicability, Severity
from jitlint.analysis.literals import evaluated, kwarg, positional_args
from jitlint.rules.base import Confirmation, FixSpec, Replace, Report, Rule, RuleContext

from ._calls import (built_by, callee_name, class_hash_kind, forwarded, is_python_scalar, jitted_calls,
                     jitted_method_calls)
from ._helpers import builtin_usable

_UNHASHABLE_CALLS = ("list", "dict", "set", "bytearray", "argparse.Namespace")
_PARSERS = {"argparse.ArgumentParser"}  # their `parse_args()` returns an argparse.Namespace (no __hash__)
_NUMPY_ARRAY_MAKERS = {"array", "asarray", "zeros", "ones", "full", "arange", "linspace", "eye", "empty", "stack",
                       "concatenate", "zeros_like", "ones_like", "full_like"}
_DATA_METHODS = ("item", "sum", "max", "min", "mean", "argmax", "argmin", "tolist", "count_nonzero")


def _names_in(expr: cst.CSTNode) -> set[str]:
    """Variable names an expression reads (not attribute names, not names bound inside lambdas)."""
    out: set[str] = set()

    def walk(node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            out.add(node.value)
            return
        if isinstance(node, cst.Attribute):
            walk(node.value)
            return
        if isinstance(node, cst.Lambda):
            return
        for child in node.children:
            walk(child)

    walk(expr)
    return out


def _assigned(ctx: RuleContext, site, name: str) -> list[cst.BaseExpression]:
    """What a name is assigned where the call can see it (the enclosing functions, else the module)."""
    return runs.assigned(ctx.analysis, site.func, name)


def _is_bool_expr(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Comparison) or (
        isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)) or (
        isinstance(expr, cst.Name) and expr.value in ("True", "False")) or (
        isinstance(expr, cst.BooleanOperation) and _is_bool_expr(expr.left) and _is_bool_expr(expr.right))


def _bounded(ctx: RuleContext, site, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """A value from a small fixed set, whatever the iteration: a bool, a literal, a choice between bounded
    values (`3 if i < 50 else 5`), an element of a literal dict or tuple (`SIZES[key]`), `i % 4`."""
    if depth > 4:
        return False
    if _is_bool_expr(expr) or isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)) or \
            isinstance(expr, cst.Name) and expr.value == "None":
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _bounded(ctx, site, expr.expression, depth + 1)
    if isinstance(expr, cst.IfExp):
        return _bounded(ctx, site, expr.body, depth + 1) and _bounded(ctx, site, expr.orelse, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Modulo) and isinstance(expr.right, cst.Integer) and \
                int(evaluated(expr.right)) <= 64:
            return True  # `i % 4`: at most 4 values
        return _bounded(ctx, site, expr.left, depth + 1) and _bounded(ctx, site, expr.right, depth + 1)
    if isinstance(expr, cst.Subscript):
        container = expr.value
        if isinstance(container, cst.Name):
            sources = _assigned(ctx, site, container.value) or ctx.analysis.module_assignments.get(container.value, [])
            container = sources[0] if len(sources) == 1 else container
        return isinstance(container, (cst.Dict, cst.Tuple, cst.List)) and len(container.elements) <= 64
    if isinstance(expr, cst.Name):
        sources = _assigned(ctx, site, expr.value)
        return bool(sources) and all(_bounded(ctx, site, src, depth + 1) for src in sources)
    return False


def _unhashable(ctx: RuleContext, func, expr: cst.BaseExpression, depth: int = 0) -> str | None:
    """What makes `expr` unhashable, seen from `func` (the function around it, None at module level)."""
    if isinstance(expr, (cst.List, cst.ListComp)):
        return "a list"
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return "a dict"
    if isinstance(expr, (cst.Set, cst.SetComp)):
        return "a set"
    if isinstance(expr, cst.Call):
        q = ctx.analysis.call_names.get(expr)
        if q in _UNHASHABLE_CALLS:
            return f"a {q}"
        if q and q.startswith(("jax.numpy.", "jax.random.", "jax.lax.")) and q not in jaxapi.STATIC_FUNCS:
            return "a JAX array"
        if q and q.startswith("numpy.") and q.rsplit(".", 1)[-1] in _NUMPY_ARRAY_MAKERS:
            return "a NumPy array"
        a = ctx.analysis
        called = expr.func
        if isinstance(called, cst.Name) and called.value in a.classes and \
                class_hash_kind(a, called.value) == "unhashable":
            return f"a `{called.value}` object (a dataclass without `frozen=True`, or `__eq__` without `__hash__`)"
        if isinstance(called, cst.Attribute) and called.attr.value == "parse_args" and \
                built_by(a, func, called.value, _PARSERS):
            return "an `argparse.Namespace` (it defines `__eq__` without `__hash__`)"
        if built_by(a, func, called, jaxapi.ARRAY_SCHEDULES):
            return "a JAX array (what an optax schedule returns)"
        callee = a.lookup_function(called.value, func) if isinstance(called, cst.Name) and depth < 3 else None
        if callee is not None and not runs.assigned(a, func, called.value):
            # `args = parse_args()`: what a helper of the module returns on every path
            kinds = [_unhashable(ctx, callee, r.value, depth + 1) if r.value is not None else None
                     for r in runs.own_returns(callee)]
            if kinds and all(kinds):
                return kinds[0]
    if isinstance(expr, cst.Name) and depth < 3:
        sources = runs.assigned(ctx.analysis, func, expr.value)
        kinds = [_unhashable(ctx, func, s, depth + 1) for s in sources]
        if sources and all(kinds):
            return f"`{expr.value}`, {kinds[0]}"
    return None


def _data_derived(ctx: RuleContext, site, expr: cst.BaseExpression, varying: set[str], depth: int = 0) -> str | None:
    """`len(batch)` of loop data, `x.shape[0]` of per-batch data, `int(x.sum())`, `x.item()`."""
    a = ctx.analysis
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q == "len" and expr.args and _names_in(expr.args[0].value) & varying:
            return f"`{ctx.short(expr)}`, the length of data that changes every iteration"
        if q in ("int", "float") and expr.args and _computes_on_data(ctx, expr.args[0].value):
            return f"`{ctx.short(expr)}`, a number computed from array data"
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item":
            return f"`{ctx.short(expr)}`, a number computed from array data"
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        if _names_in(expr.value.value) & varying:
            return f"`{ctx.short(expr)}`, a per-batch size"
    if isinstance(expr, cst.BinaryOperation):
        return _data_derived(ctx, site, expr.left, varying, depth) or _data_derived(ctx, site, expr.right, varying, depth)
    if isinstance(expr, cst.Name) and depth < 3:
        for source in _assigned(ctx, site, expr.value):
            found = _data_derived(ctx, site, source, varying, depth + 1)
            if found is not None:
                return f"`{expr.value}` = {found}"
    return None


def _computes_on_data(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _DATA_METHODS:
            return True
        q = ctx.analysis.call_names.get(expr)
        return bool(q and q.startswith(("jax.numpy.", "numpy.")) and q.rsplit(".", 1)[-1] in (
            "sum", "max", "min", "mean", "argmax", "argmin", "count_nonzero", "prod"))
    return False


def _is_float(ctx: RuleContext, site, expr: cst.BaseExpression, depth: int = 0) -> bool:
    if isinstance(expr, cst.Float):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _is_float(ctx, site, expr.expression, depth)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, cst.Divide) or _is_float(ctx, site, expr.left, depth) or \
            _is_float(ctx, site, expr.right, depth)
    if isinstance(expr, cst.Call):
        q = ctx.analysis.call_names.get(expr)
        return q == "float" or (q or "").startswith("math.")
    if isinstance(expr, cst.Name) and depth < 3:
        return any(_is_float(ctx, site, s, depth + 1) for s in _assigned(ctx, site, expr.value))
    return False


def _is_computed_float(ctx: RuleContext, site, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """A float that is computed (not a literal written at the call or bound once to a name)."""
    if isinstance(expr, (cst.Float, cst.UnaryOperation)):
        return False
    if isinstance(expr, cst.Name):
        sources = _assigned(ctx, site, expr.value)
        return depth < 3 and any(_is_computed_float(ctx, site, s, depth + 1) for s in sources)
    return _is_float(ctx, site, expr, depth)


def _static_calls(ctx: RuleContext):
    for site, sig, args in jitted_calls(ctx):
        for arg in args:
            if arg.static is True:
                yield site, sig, arg



def _module_fields_per_iteration(ctx: RuleContext):
    """An equinox Module built (or rebuilt by `eqx.tree_at`) on every iteration with a Python number field
    that changes, passed to a filtered transform: the field is static there, so each value is a new
    compile."""
    a = ctx.analysis
    for site, sig, args in jitted_calls(ctx):
        if not sig.filtered or site.loop is None:
            continue
        varying = _varying_names(site)
        for arg in args:
            if not isinstance(arg.value, InstanceValue) or a.framework_of(arg.value.class_name) != "equinox":
                continue
            cls = arg.value.class_name
            built = [arg.expr] if isinstance(arg.expr, cst.Call) else _assigned(ctx, site, arg.expr.value) \
                if isinstance(arg.expr, cst.Name) else []
            for call in built:
                if not isinstance(call, cst.Call):
                    continue
                if isinstance(call.func, cst.Name) and call.func.value == cls:
                    fields, how = _constructor_fields(a, cls, call), "built"
                elif a.call_names.get(call) in jaxapi.TREE_REPLACE:
                    fields = _replaced_field(call, jaxapi.TREE_REPLACE[a.call_names[call]])
                    how = f"rebuilt by `{ctx.short(call.func)}`"
                else:
                    continue
                for field, value in fields:
                    if a.field_kind(cls, field, True) == "static" and _names_in(value) & varying and \
                            is_python_scalar(site, value, a):
                        article = "an" if cls[:1].lower() in "aeiou" else "a"
                        yield Report(arg.expr, f"`{ctx.short(arg.expr)}`, {article} `{cls}` {how} on every iteration, "
                                               f"is passed to `{callee_name(sig)}` with field `{field}` = "
                                               f"`{ctx.short(value)}`, which changes every iteration: a non-array "
                                               f"field is static under `{sig.transform}`, so each value is a new "
                                               "compile; keep its values few (bucket them), or make it an array field "
                                               "if it only enters arithmetic")
                        break


def _replaced_field(call: cst.Call, params: tuple[str, str, str]) -> list:
    """[(field, new value)] of `eqx.tree_at(lambda m: m.field, model, value)`; [] for any other `where`."""
    where_name, _, replace_name = params
    positional = positional_args(call)
    where_arg = positional[0] if positional else kwarg(call, where_name)
    value_arg = positional[2] if len(positional) > 2 else kwarg(call, replace_name)
    if where_arg is None or value_arg is None:
        return []
    where, value = where_arg.value, value_arg.value
    if not isinstance(where, cst.Lambda) or len(where.params.params) != 1 or \
            where.params.star_arg is not cst.MaybeSentinel.DEFAULT or where.params.kwonly_params:
        return []
    body, param = where.body, where.params.params[0].name.value
    if isinstance(body, cst.Attribute) and isinstance(body.value, cst.Name) and body.value.value == param:
        return [(body.attr.value, value)]
    return []


def _constructor_fields(a, cls: str, call: cst.Call):
    """(field, argument) pairs of `Cls(...)` for a dataclass-style Module (no `__init__` of its own)."""
    fields = list(a.declared_fields(cls))
    own_init = a.method(cls, "__init__") is not None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    out = [] if own_init else list(zip(fields, (arg.value for arg in positional)))
    out += [(arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None and arg.keyword.value in fields]
    return out


def _subject(sig, arg) -> str:
    if sig.filtered:
        return (f"parameter `{arg.param}` of `{callee_name(sig)}` (static: `{sig.transform}` keeps non-array "
                "arguments static)")
    return f"static parameter `{arg.param}` of jitted `{callee_name(sig)}`"


def _remedy(ctx: RuleContext, site, sig, param: str) -> str:
    """What to do about a static argument with many values, by how the jitted function uses it: a value
    that sets a shape, a loop bound or a Python `if` must stay static (bucket it); one that only enters
    arithmetic can be traced."""
    uses = _structural_uses(ctx, site, param)
    traced = "pass it as an array (`jnp.asarray(...)`), which is traced" if sig.filtered else \
        "pass it as a traced argument"
    if uses is None:
        return (f"{traced} if it only enters arithmetic; if it sets a shape, a loop bound or a Python `if`, keep "
                "it static and round it to a few buckets")
    if uses:
        return f"it sets {uses} in the function, so keep it static and round it to a few buckets (or pad)"
    return traced


def _structural_uses(ctx: RuleContext, site, param: str) -> str | None:
    """How the jitted function's body uses `param` structurally ("a shape", "a loop bound", "a Python `if`"),
    "" when only in arithmetic, None when the body is not in this file."""
    callee = site.callee
    info = callee.info if callee is not None else None
    if info is None or not isinstance(info.node, cst.FunctionDef):
        return None
    a = ctx.analysis
    found: list[str] = []

    def mentions(expr) -> bool:
        return expr is not None and param in _names_in(expr)

    stack: list[cst.CSTNode] = [info.node.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.While)) and mentions(node.test) or isinstance(node, cst.IfExp) and \
                mentions(node.test):
            found.append("a Python `if`")
        elif isinstance(node, cst.For) and mentions(node.iter):
            found.append("a loop bound")
        elif isinstance(node, cst.Call):
            q = a.call_names.get(node)
            if q in jaxapi.SHAPE_ARGS and any(mentions(arg.value) for arg in node.args):
                found.append("a shape")
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in jaxapi.SHAPE_METHODS and any(
                    mentions(arg.value) for arg in node.args):
                found.append("a shape")
            elif q == "range" and any(mentions(arg.value) for arg in node.args):
                found.append("a loop bound")
        elif isinstance(node, cst.Slice) and any(mentions(p) for p in (node.lower, node.upper, node.step)):
            found.append("a slice bound")
        stack.extend(children(node))
    return ", ".join(sorted(set(found)))

def _varying_names(site) -> set[str]:
    return {name for name, kind in site.varying.items() if kind == "varying"}


def _is_object(ctx: RuleContext, site, expr: cst.BaseExpression, value) -> bool:
    """Callables and instances (and their attributes): a new one each iteration is JIT201/JIT203's
    business, not a question of how many values a number takes."""
    if isinstance(value, (FuncValue, InstanceValue)) or isinstance(expr, cst.Lambda):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        return (isinstance(func, cst.Name) and func.value in ctx.analysis.classes) or \
            ctx.analysis.call_names.get(expr) in ("functools.partial", "jax.tree_util.Partial")
    if isinstance(expr, cst.Attribute):
        base = expr.value
        if isinstance(base, cst.Name):
            return any(_is_object(ctx, site, source, None) for source in _assigned(ctx, site, base.value))
        return _is_object(ctx, site, base, None)
    return False


# A static argument fed changing or unhashable values: the retraces a run shows.
STATIC_RETRACES = Confirmation(retraces=frozenset({"static", "structure"}))


class LoopVaryingStaticArg(Rule):
    code = "JIT301"
    name = "loop-varying-static-arg"
    summary = "A static argument fed a loop variable (or a value reassigned in the loop) compiles per value"
    severity = Severity.WARNING
    confirmed_by = STATIC_RETRACES
    what = """
        Finds calls of a jitted function inside a loop that pass, to a static parameter, the loop variable
        or a value reassigned on each iteration (`step(x, i)`, `step(x, n=i * 2)`). Under
        `equinox.filter_jit` every Python number is static: a loop counter, a value computed from it
        (`math.*`, a schedule function), or a Module built per iteration with a changing Python-number
        field (by its constructor or by `eqx.tree_at`, such as an annealed temperature). Values from a
        small fixed set are not reported: a bool, a choice between literals (`3 if i < 50 else 5`), an
        entry of a literal dict or tuple, `i % 4`, a sweep over a literal collection of configurations.
        """
    why = """
        Each distinct value of a static argument compiles a new executable, and none are ever evicted: a
        loop over 1,000 steps compiles 1,000 times. Booleans and other small fixed sets of values are fine
        and are not reported.
        """
    instead_note = """
        Pass the value as a regular (traced) argument and use `lax.cond`/`jnp.where`/`lax.fori_loop` on it
        inside the function; keep static arguments for configuration that takes few values.
        """
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=1)
        def shift(x, k):
            return x + k

        def run(x):
            for i in range(100):
                x = shift(x, i)
            return x
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def shift(x, k):
            return x + k

        def run(x):
            for i in range(100):
                x = shift(x, i)  # traced: one compile
            return x
        """,
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="first")
        def step(x, first):
            return x if first else x * 2

        def run(x):
            for i in range(100):
                x = step(x, first=i == 0)  # a bool: two compiles at most
            return x
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        yield from _module_fields_per_iteration(ctx)
        for site, sig, arg in _static_calls(ctx):
            if site.loop is None or _bounded(ctx, site, arg.expr) or _is_object(ctx, site, arg.expr, arg.value):
                continue  # a few values: a few compiles, by design
            if _unhashable(ctx, site.func, arg.expr) is not None:
                continue  # the call raises (JIT304) before anything compiles
            varying = _varying_names(site)
            used = sorted(_names_in(arg.expr) & varying)
            if not used:
                continue
            if _data_derived(ctx, site, arg.expr, varying) or _is_computed_float(ctx, site, arg.expr):
                continue  # reported by the more specific JIT302/JIT303
            text = ctx.short(arg.expr)
            through = "" if text == used[0] else f" (through `{used[0]}`)"
            yield Report(arg.expr, f"{_subject(sig, arg)} gets `{text}`, "
                                   f"which changes every iteration{through}: one compile per distinct value, "
                                   f"never evicted; {_remedy(ctx, site, sig, arg.param)}")


class FloatStaticArg(Rule):
    code = "JIT302"
    name = "float-static-arg"
    summary = "A static argument fed a computed float that changes (a learning rate schedule) compiles per value"
    severity = Severity.WARNING
    confirmed_by = STATIC_RETRACES
    what = """
        Finds calls that pass a computed float that changes between calls -- `lr = 0.1 / (epoch + 1)`,
        `BASE_LR * (step + 1)` in a loop -- to a static parameter of a jitted function. (Floats read from
        array data, such as `float(x.mean())`, are JIT303.)
        """
    why = """
        Floats take practically unlimited values, and every new value is a new compile cache key: a decaying
        learning rate compiles the step again every epoch. (A float literal passed every time is a single
        value and is not reported.)
        """
    instead_note = "Pass floats as regular (traced) arguments: `step(params, x, lr)` with `lr` not in `static_argnames`."
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="lr")
        def sgd(w, g, lr):
            return w - lr * g

        def train(w, grads):
            for epoch, g in enumerate(grads):
                lr = 0.1 / (epoch + 1)
                w = sgd(w, g, lr=lr)
            return w
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def sgd(w, g, lr):
            return w - lr * g

        def train(w, grads):
            for epoch, g in enumerate(grads):
                lr = 0.1 / (epoch + 1)
                w = sgd(w, g, lr)
            return w
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for site, sig, arg in _static_calls(ctx):
            if not _is_computed_float(ctx, site, arg.expr):
                continue
            varying = _varying_names(site)
            data = _data_derived(ctx, site, arg.expr, varying)
            if not (_names_in(arg.expr) & varying or _depends_on_varying(ctx, site, arg.expr, varying)) or data:
                continue
            yield Report(arg.expr, f"{_subject(sig, arg)} gets the computed "
                                   f"float `{ctx.short(arg.expr)}`, which changes between calls: one compile per "
                                   f"value; {_remedy(ctx, site, sig, arg.param)}")


def _depends_on_varying(ctx: RuleContext, site, expr: cst.BaseExpression, varying: set[str], depth: int = 0) -> bool:
    for name in _names_in(expr):
        if name in varying:
            return True
        if depth < 3:
            for source in _assigned(ctx, site, name):
                if _depends_on_varying(ctx, site, source, varying, depth + 1):
                    return True
    return False


class DataDerivedStaticArg(Rule):
    code = "JIT303"
    name = "data-derived-static-arg"
    summary = "A static argument fed a per-batch length or a value read from array data compiles per value"
    severity = Severity.WARNING
    confirmed_by = STATIC_RETRACES
    what = """
        Finds static arguments fed data-derived counts: `len(batch)` or `batch.shape[0]` of data that
        changes each iteration, `int(x.sum())`, `x.item()`.
        """
    why = """
        Values read from the data take as many values as the data does: each one compiles a new executable,
        and the cache grows without bound (a ragged last batch alone costs an extra compile per epoch).
        """
    instead_note = """
        Pad batches to a fixed size and pass a mask, or pass the count as a traced argument and use
        `jnp.where`/`lax.fori_loop` with it.
        """
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def mean_first(x, n):
            return x[:n].mean()

        def run(batches):
            for batch in batches:
                mean_first(batch, n=len(batch))
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def mean_first(x, n):
            return x[:n].mean()

        def run(batches, n):
            for batch in batches:
                mean_first(batch, n=n)  # the same value every iteration
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for site, sig, arg in _static_calls(ctx):
            if site.func is None and site.loop is None:
                continue
            found = _data_derived(ctx, site, arg.expr, _varying_names(site))
            if found is not None:
                yield Report(arg.expr, f"{_subject(sig, arg)} gets {found}: "
                                       f"one compile per distinct value; {_remedy(ctx, site, sig, arg.param)}")


class UnhashableStaticArg(Rule):
    code = "JIT304"
    name = "unhashable-static-arg"
    summary = "A list, dict, set or array passed as a static argument raises ValueError"
    severity = Severity.ERROR
    confirmed_by = STATIC_RETRACES
    raises = ("ValueError",)
    what = """
        Finds lists, dicts, sets, NumPy/JAX arrays (an optax schedule's value too), `argparse.Namespace`
        objects and instances of unhashable local classes passed to static parameters of jitted functions,
        and such an object as the static `self` of a jitted method (`static_argnums=0`).
        """
    why = """
        Static arguments are hashed to look up the compile cache. These types are unhashable, so the call
        fails with `ValueError: Non-hashable static arguments are not supported`.
        """
    instead_note = "Pass a tuple (`tuple(sizes)`) or a frozen dataclass; pass arrays as regular, traced arguments."
    fixable = True
    fix_note = """
        A list literal at the call becomes a tuple, a set literal a `frozenset` (not where an element is
        itself a list, dict or set: still unhashable). Safe when the elements are literals, the jitted
        function is in this file and it only reads them (`for n in sizes`, `sizes[i]`, `len(sizes)`,
        `n in sizes`, `*sizes`): a tuple then behaves the same. Unsafe otherwise: a tuple is not a list
        (`sizes + [1]` raises, `sizes == [2, 3]` is False, `.append` does not exist). A dict gets no fix:
        no hashable stand-in behaves like one.
        """
    fix_examples = (
        (
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="sizes")
            def split(x, sizes):
                return [x[:n].sum() for n in sizes]


            parts = split(jax.numpy.ones(4), sizes=[2, 3])
            """,
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="sizes")
            def split(x, sizes):
                return [x[:n].sum() for n in sizes]


            parts = split(jax.numpy.ones(4), sizes=(2, 3))
            """,
        ),
        (
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="sizes")
            def grow(x, sizes):
                return x * len(sizes + [1])


            y = grow(jax.numpy.ones(4), sizes=[2, 3])
            """,
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="sizes")
            def grow(x, sizes):
                return x * len(sizes + [1])


            y = grow(jax.numpy.ones(4), sizes=(2, 3))
            """,
        ),
    )
    no_fix_examples = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="cfg")
        def scale(x, cfg):
            return x * cfg["k"]

        y = scale(1.0, cfg={"k": 2})
        """,
    )
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="sizes")
        def split(x, sizes):
            return x

        y = split(1.0, sizes=[2, 3])
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="sizes")
        def split(x, sizes):
            return x

        y = split(1.0, sizes=(2, 3))
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for site, sig, arg in _static_calls(ctx):
            kind = _unhashable(ctx, site.func, arg.expr)
            if kind is not None:
                yield Report(arg.expr, f"{kind} is passed to static parameter `{arg.param}` of jitted "
                                       f"`{callee_name(sig)}`: static arguments must be hashable, so the call raises "
                                       "ValueError; pass a tuple, or make it a traced argument",
                             fix=_hashable_fix(ctx, sig, arg))
                continue
            # Through a helper's parameter: report at the call that builds the value.
            for outer, expr, _, via in forwarded(ctx.analysis, site, arg.expr):
                kind = _unhashable(ctx, outer.func, expr)
                if kind is not None:
                    yield Report(expr, f"{kind} is passed to `{via}`, which hands it to static parameter "
                                       f"`{arg.param}` of jitted `{callee_name(sig)}`: static arguments must be "
                                       "hashable, so the call raises ValueError; pass a tuple")
        # `self` made static (`static_argnums=0`) on an object that cannot be hashed.
        for call in jitted_method_calls(ctx):
            receiver, class_name, info = call.receiver, call.class_name, call.method
            if call.self_static and class_hash_kind(ctx.analysis, class_name) == "unhashable":
                yield Report(receiver, f"`{ctx.short(receiver)}`, a `{class_name}` object (a dataclass without "
                                       "`frozen=True`, or `__eq__` without `__hash__`), is the static `self` of "
                                       f"jitted `{class_name}.{info.name}`: static arguments must be hashable, so "
                                       "the call raises ValueError; make the class frozen (`frozen=True`) or "
                                       "hash it by value")


# How a callee may use a static list (or set) for a tuple (frozenset) to behave the same: it only reads
# the elements. `len`, `sorted`, ...: builtins whose result does not depend on the argument's type.
_READERS = {"len", "tuple", "list", "sorted", "sum", "min", "max", "enumerate", "zip", "reversed", "any", "all",
            "iter", "set", "frozenset", "range"}


def _callee(ctx: RuleContext, sig):
    """The jitted function's definition, when it is in this file."""
    if sig.path and sig.path != ctx.path:
        return None
    matches = [f for f in ctx.analysis.functions
               if isinstance(f.node, cst.FunctionDef) and (sig.qualname == f.qualname or sig.qualname.endswith("." + f.qualname))]
    return matches[0] if len(matches) == 1 else None


def _only_read(ctx: RuleContext, info, param: str, ordered: bool) -> bool:
    """Does the function's body use `param` only by reading its elements: `for v in p`, `p[i]` (`ordered`:
    a list's), `v in p`, `len(p)`, `*p`, ...? Then a tuple (a frozenset) in its place changes nothing."""
    if info is None or param in info.assignments:
        return False
    a = ctx.analysis

    def ok(node, parent) -> bool:
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
            return True
        if ordered and isinstance(parent, cst.Subscript) and parent.value is node:
            return True
        if isinstance(parent, cst.ComparisonTarget) and parent.comparator is node and isinstance(
                parent.operator, (cst.In, cst.NotIn)):
            return True
        return False

    def walk(node, parent, grand) -> bool:
        if isinstance(node, cst.Name) and node.value == param:
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                return True
            if isinstance(parent, cst.Arg) and parent.keyword is node:
                return True
            if isinstance(parent, cst.Param):
                return parent.name is node and parent in ownparams
            if ok(node, parent):
                return not (isinstance(parent, cst.Subscript) and isinstance(grand, (cst.AssignTarget, cst.Del,
                                                                                    cst.AugAssign)))
            if isinstance(parent, cst.Arg) and parent.value is node and isinstance(grand, cst.Call) and (
                    parent.star == "*" or a.call_names.get(grand) in _READERS):
                return parent.star == "*" or parent.keyword is None
            return False
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and node is not info.node:
            return param not in ctx.code(node)  # a nested scope that may rebind it: only when unmentioned
        return all(walk(child, node, parent) for child in children(node))

    ownparams = set(info.node.params.params) | set(info.node.params.posonly_params) | set(info.node.params.kwonly_params)
    return walk(info.node, None, None)


def _hashable(expr: cst.BaseExpression) -> bool | None:
    """Is an element hashable: True for literals (and tuples of them), False for a list, dict or set,
    None when unknown (a name, a call)."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _hashable(expr.expression)
    if isinstance(expr, cst.Tuple):
        kinds = [_hashable(el.value) if not isinstance(el, cst.StarredElement) else None for el in expr.elements]
        return False if False in kinds else (True if all(kinds) else None)
    if isinstance(expr, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return False
    return None


def _hashable_fix(ctx: RuleContext, sig, arg) -> FixSpec | None:
    """[2, 3] -> (2, 3) and {2, 3} -> frozenset({2, 3}) at the call; safe when the callee (in this file)
    only reads the elements, unsafe otherwise (a tuple is not a list: `p + [4]`, `p == [2, 3]`, `.append`).
    A dict has no hashable stand-in that behaves the same, so it gets no fix."""
    expr = arg.expr
    if not isinstance(expr, (cst.List, cst.Set)):
        return None
    kinds = [_hashable(el.value) if not isinstance(el, cst.StarredElement) else None for el in expr.elements]
    if False in kinds:
        return None  # `[[1, 2], [3]]` -> `([1, 2], [3])` would still be unhashable
    known = all(kinds)
    if isinstance(expr, cst.List):
        elements = list(expr.elements)
        if len(elements) == 1 and elements[0].comma is cst.MaybeSentinel.DEFAULT:
            elements[0] = elements[0].with_changes(comma=cst.Comma())
        replacement = cst.Tuple(elements, lpar=[cst.LeftParen(whitespace_after=expr.lbracket.whitespace_after)],
                                rpar=[cst.RightParen(whitespace_before=expr.rbracket.whitespace_before)])
        title, ordered = "Pass a tuple", True
    elif isinstance(expr, cst.Set) and builtin_usable(ctx, "frozenset"):
        replacement = cst.Call(cst.Name("frozenset"), [cst.Arg(expr)])
        title, ordered = "Pass a frozenset", False
    else:
        return None
    safe = known and _only_read(ctx, _callee(ctx, sig), arg.param, ordered)
    return FixSpec(title, (Replace(expr, replacement),), Applicability.SAFE if safe else Applicability.UNSAFE)


class InvalidStaticSpec(Rule):
    code = "JIT305"
    name = "invalid-static-argnums"
    summary = "`static_argnums`/`static_argnames` that do not match the function's parameters"
    severity = Severity.ERROR
    confirmed_by = STATIC_RETRACES
    raises = ("ValueError",)
    what = """
        Finds `jax.jit(f, static_argnums=...)` / `static_argnames=...` (decorator, `partial` or call form)
        naming a position past the function's positional parameters or a name it does not have.
        """
    why = """
        `jax.jit` validates these when it wraps the function and raises `ValueError` (`Jitted function has
        invalid argnames {...} in static_argnames`, or `... has static_argnums=(5,), but only accepts 2
        positional arguments`). Functions with `*args`/`**kwargs` accept any position/name.
        """
    instead_note = "Fix the index or the name (keyword-only parameters can only be static by name)."
    invalid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="nn")
        def f(x, n):
            return x * n
        """,
    )
    valid = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def f(x, n):
            return x * n
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for node, binding in ctx.analysis.bindings.items():
            info = binding.target
            if info is None or binding.static_argnums is None or binding.static_argnames is None:
                continue
            nums, unknown = info.invalid_static_options(binding.static_argnums, binding.static_argnames,
                                                        binding.bound, binding.bound_self)
            if nums:
                yield Report(node, f"`static_argnums` includes {nums[0]}, but `{info.name}` accepts only "
                                   f"{len(binding.free_positional())} positional arguments: `jax.jit` raises ValueError")
            if unknown:
                yield Report(node, f"`static_argnames` names {', '.join(repr(u) for u in unknown)}, which "
                                   f"`{info.name}` does not take: `jax.jit` raises ValueError")
