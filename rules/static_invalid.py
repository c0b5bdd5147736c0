"""JIT304-JIT305: static arguments JAX rejects.

Static arguments are hashed to look up the compile cache: a list, dict or array cannot be hashed, and the
call fails (jitlint.analysis.cardinality says what makes a value unhashable). Bad `static_argnums` /
`static_argnames` fail when `jax.jit(...)` is called.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis.cardinality import Unhashable, class_hash_kind, unhashable
from jitlint.core.finding import Applicability, Severity
from jitlint.rules.base import Confirmation, FixSpec, Replace, Report, Rule, RuleContext
from jitlint.source.cstwalk import children

from ._calls import callee_name, forwarded, jitted_method_calls, static_arguments
from ._helpers import builtin_usable, certain_tracer, describe, where


class UnhashableStaticArg(Rule):
    code = "JIT304"
    witness = "call"
    name = "unhashable-static-arg"
    summary = "A list, dict, set or array passed as a static argument raises ValueError"
    severity = Severity.ERROR
    confirmed_by = Confirmation(retraces=frozenset({"static", "structure"}))
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
        A list literal at the call becomes a tuple, `list(range(n))` becomes `tuple(range(n))`, a set
        literal a `frozenset` (not where an element is itself a list, dict or set: still unhashable). Safe when the elements are literals, the jitted
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
        (
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="steps")
            def unroll(x, steps):
                for s in steps:
                    x = x * s
                return x


            y = unroll(jax.numpy.ones(4), steps=list(range(3)))
            """,
            """
            from functools import partial

            import jax


            @partial(jax.jit, static_argnames="steps")
            def unroll(x, steps):
                for s in steps:
                    x = x * s
                return x


            y = unroll(jax.numpy.ones(4), steps=tuple(range(3)))
            """,
        ),
    )
    no_fix_examples = (
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="sizes")
        def split(x, sizes):
            return x

        def run(x, widths):
            return split(x, sizes=list(widths))  # elements of unknown kind: a tuple may not be hashable
        """,
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

    messages = {
        "passed": "{value} is passed to static parameter `{param}` of jitted `{callee}`: static arguments must be "
                  "hashable, so the call raises ValueError; pass a tuple, or make it a traced argument",
        "forwarded": "{value} is passed to `{via}`, which hands it to static parameter `{param}` of jitted `{callee}`: "
                     "static arguments must be hashable, so the call raises ValueError; pass a tuple",
        "self": "`{receiver}`, a `{cls}` object (a dataclass without `frozen=True`, or `__eq__` without `__hash__`), "
                "is the static `self` of jitted `{cls}.{method}`: static arguments must be hashable, so the call "
                "raises ValueError; make the class frozen (`frozen=True`) or hash it by value",
        "through": "`{name}`, {value}",
        # the kinds of unhashable value (jitlint.analysis.cardinality.Unhashable)
        "list": "a list",
        "dict": "a dict",
        "set": "a set",
        "call": "a {name}",
        "jax array": "a JAX array",
        "numpy array": "a NumPy array",
        "class": "a `{name}` object (a dataclass without `frozen=True`, or `__eq__` without `__hash__`)",
        "namespace": "an `argparse.Namespace` (it defines `__eq__` without `__hash__`)",
        "schedule": "a JAX array (what an optax schedule returns)",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for site, sig, arg in static_arguments(ctx):
            what = unhashable(a, site.func, arg.expr)
            if what is not None:
                yield Report(arg.expr, self.message("passed", value=self.described(what), param=arg.param,
                                                    callee=callee_name(sig)),
                             fix=_hashable_fix(ctx, sig, arg))
                continue
            # Through a helper's parameter: report at the call that builds the value.
            for outer, expr, _, via in forwarded(a, site, arg.expr):
                what = unhashable(a, outer.func, expr)
                if what is not None:
                    yield Report(expr, self.message("forwarded", value=self.described(what), via=via, param=arg.param,
                                                    callee=callee_name(sig)))
        # `self` made static (`static_argnums=0`) on an object that cannot be hashed.
        for call in jitted_method_calls(ctx):
            receiver, class_name, info = call.receiver, call.class_name, call.method
            if call.self_static and class_hash_kind(a, class_name) == "unhashable":
                yield Report(receiver, self.message("self", receiver=ctx.short(receiver), cls=class_name,
                                                    method=info.name))

    @classmethod
    def described(cls, what: Unhashable) -> str:
        """`sizes`, a list: the unhashable value, through the names that hold it."""
        text = cls.message(what.kind, name=what.name)
        for name in reversed(what.through):
            text = cls.message("through", name=name, value=text)
        return text


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
    if isinstance(expr, cst.Call) and ctx.analysis.call_names.get(expr) == "list" and len(expr.args) == 1 \
            and not expr.args[0].keyword and not expr.args[0].star \
            and isinstance(expr.args[0].value, cst.Call) and ctx.analysis.call_names.get(expr.args[0].value) == "range" \
            and builtin_usable(ctx, "tuple"):
        # `list(range(n))` -> `tuple(range(n))`: the same integers, hashable
        safe = _only_read(ctx, _callee(ctx, sig), arg.param, True)
        return FixSpec("Pass a tuple", (Replace(expr.func, cst.Name("tuple")),),
                       Applicability.SAFE if safe else Applicability.UNSAFE)
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


class TracedStaticArg(Rule):
    code = "JIT306"
    name = "traced-static-arg"
    summary = "A traced value passed to a static parameter of a jitted function raises ValueError"
    severity = Severity.ERROR
    raises = ("ValueError",)
    what = """
        Finds calls, inside traced code, of a jitted function that pass a traced value to one of its
        static parameters (`static_argnums`/`static_argnames`): a jitted helper called from another
        jitted function with an argument of the outer one (jaxus's `get_f_number_mask(..., f_number)`).
        """
    why = """
        A jitted function called while another is traced is traced into the outer program, but its
        static arguments are still hashed to pick the program. A tracer cannot be hashed, so the call
        raises `ValueError: Non-hashable static arguments are not supported` (`unhashable type:
        'DynamicJaxprTracer'`, measured on JAX 0.10.2) the first time the outer function is traced.
        """
    instead_note = "Make the value static in the outer function too, or make the parameter a traced one."
    invalid = (
        """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1,))
        def mask(x, f_number):
            return x * jnp.arctan(0.5 / f_number)

        @jax.jit
        def beamform(x, f_number):
            return mask(x, f_number).sum()
        """,
    )
    valid = (
        """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1,))
        def mask(x, f_number):
            return x * jnp.arctan(0.5 / f_number)

        @partial(jax.jit, static_argnums=(1,))
        def beamform(x, f_number):
            return mask(x, f_number).sum()
        """,
    )

    messages = {
        "passed": "traced value {value} is passed to static parameter `{param}` of jitted `{callee}` {where}: "
                  "a tracer cannot be hashed, so the call raises ValueError; make `{param}` static in the "
                  "caller too, or traced in `{callee}`",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for site, sig, arg in static_arguments(ctx):
            if not site.traced:
                continue
            traced = certain_tracer(a, arg.expr)
            place = a.sites.get(site.node)
            if traced is None or place is None or traced.origin in place.func.defaults:
                continue  # (a parameter with a Python default: the traced call may leave it a Python value)
            yield Report(arg.expr, self.message("passed", value=describe(ctx, arg.expr, traced, place),
                                                param=arg.param, callee=callee_name(sig), where=where(place)))


class InvalidStaticSpec(Rule):
    code = "JIT305"
    witness = "call"
    name = "invalid-static-argnums"
    summary = "`static_argnums`/`static_argnames` that do not match the function's parameters"
    severity = Severity.ERROR
    confirmed_by = Confirmation(retraces=frozenset({"static", "structure"}))
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

    messages = {
        "argnums": "`static_argnums` includes {num}, but `{name}` accepts only {count} positional arguments: "
                   "`jax.jit` raises ValueError",
        "argnames": "`static_argnames` names {names}, which `{name}` does not take: `jax.jit` raises ValueError",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        for node, binding in ctx.analysis.bindings.items():
            info = binding.target
            if info is None or binding.static_argnums is None or binding.static_argnames is None:
                continue
            nums, unknown = info.invalid_static_options(binding.static_argnums, binding.static_argnames,
                                                        binding.bound, binding.bound_self)
            if nums:
                yield Report(node, self.message("argnums", num=nums[0], name=info.name,
                                                count=len(binding.free_positional())))
            if unknown:
                yield Report(node, self.message("argnames", names=", ".join(repr(u) for u in unknown), name=info.name))
