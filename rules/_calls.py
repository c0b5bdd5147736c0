"""Shared facts for the recompile families (JIT1xx, JIT2xx, JIT3xx): calls of jitted functions, what
each argument is, and which functions run more than once."""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from jitlint import jaxapi
from jitlint.analysis import CallSite, FuncValue, FunctionInfo, InstanceValue, ModuleAnalysis
from jitlint.index import JitSignature
from jitlint.rule import RuleContext


@dataclass
class BoundArg:
    """One argument of a call to a jitted function, with the parameter it binds."""

    expr: cst.BaseExpression
    value: object  # the analysis' abstract value (FuncValue, InstanceValue, Taint or None)
    param: str
    static: bool | None  # None: unknown (equinox/nnx filtered transforms, non-literal options)


def signature_for(ctx: RuleContext, site: CallSite) -> tuple[JitSignature, frozenset[str], bool] | None:
    """The jitted function a call targets: (signature, params bound by partial, `self` already bound)."""
    callee = site.callee
    if callee is not None:
        binding = callee.binding or callee.info.jit_binding
        if binding is None or callee.transform is None and callee.info.jit_binding is None:
            return None
        info = callee.info
        static = binding.static_params()
        t = jaxapi.TRANSFORMS[binding.transform]
        sig = JitSignature(info.qualname, binding.transform, tuple(info.positional), tuple(info.kwonly),
                           info.vararg is not None, info.kwarg is not None,
                           tuple(sorted(static)) if static is not None else None, t.filtered, ctx.path)
        return sig, callee.bound, callee.bound_self and info.is_method
    if site.qualified and ctx.index is not None:
        sig = ctx.index.lookup(site.qualified)
        if sig is not None:
            return sig, frozenset(), False
    return None


def bound_args(sig: JitSignature, site: CallSite, bound: frozenset[str], skip_self: bool) -> list[BoundArg]:
    positional = [p for p in sig.positional if p not in bound]
    if skip_self and positional:
        positional = positional[1:]
    out = []
    i = 0
    for arg, value in zip(site.node.args, site.arg_values):
        if arg.star:
            return out  # *args / **kwargs: positions unknown from here on
        if arg.keyword is not None:
            param = arg.keyword.value
        elif i < len(positional):
            param = positional[i]
            i += 1
        else:
            continue
        static = None if sig.filtered or sig.static is None else param in sig.static
        out.append(BoundArg(arg.value, value, param, static))
    return out


def jitted_calls(ctx: RuleContext):
    """Every call of a jitted function in this file (in any code), with its bound arguments."""
    for site in ctx.analysis.call_sites.values():
        found = signature_for(ctx, site)
        if found is None:
            continue
        sig, bound, skip_self = found
        yield site, sig, bound_args(sig, site, bound, skip_self)


# ------------------------------------------------------------------------------ what runs more than once

_REPEATED_NAME = re.compile(r"(^|_)(step|update)(_|$)")


def repeated_functions(a: ModuleAnalysis) -> dict[FunctionInfo, str]:
    """Functions whose body runs more than once, with the reason, for messages."""
    reasons: dict[FunctionInfo, str] = {}
    for info in a.functions:
        if info.name == "__call__":
            reasons[info] = "`__call__` runs on every call of the object"
        elif _REPEATED_NAME.search(info.name) and info.name != "<lambda>":
            reasons[info] = f"`{info.name}` is a step/update function, called once per iteration"
    for site in a.call_sites.values():
        if site.loop is None:
            continue
        callee = _called_function(a, site)
        if callee is not None and callee not in reasons:
            reasons[callee] = f"`{callee.name}` is called inside a loop (line-level: `{_short(a, site.node)}`)"
    # Functions called from a repeated function run repeatedly too.
    changed = True
    while changed:
        changed = False
        for site in a.call_sites.values():
            if site.func in reasons:
                callee = _called_function(a, site)
                if callee is not None and callee not in reasons and callee is not site.func:
                    reasons[callee] = f"`{callee.name}` is called from `{site.func.name}`, which runs repeatedly"
                    changed = True
    return reasons


def _called_function(a: ModuleAnalysis, site: CallSite) -> FunctionInfo | None:
    if site.callee is not None and site.callee.transform is None:
        return site.callee.info
    func = site.node.func
    if isinstance(func, cst.Name) and func.value in a.classes:
        return a.method(func.value, "__init__")
    return None


def _short(a: ModuleAnalysis, node: cst.CSTNode) -> str:
    text = " ".join(a.module.code_for_node(node).split())
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------------------ what an argument is


def created_here(info: FunctionInfo, site_func: FunctionInfo | None) -> bool:
    """Is this def/lambda created anew each time `site_func` runs?"""
    parent = info.parent
    return site_func is not None and parent is site_func


def fresh_callable(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression, value) -> str | None:
    """Describe `expr` if it is a callable built anew on every call/iteration at this call site."""
    a = ctx.analysis
    if isinstance(expr, cst.Lambda):
        return "a lambda written at the call"
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q == "functools.partial":
            return "a `functools.partial` built at the call"
        if q == "jax.tree_util.Partial":
            return "a `jax.tree_util.Partial` built at the call"
        if q in jaxapi.TRANSFORMS:
            return f"a new function from `{q}(...)`"
        return None
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Call):
        inner = expr.value.func
        if isinstance(inner, cst.Name) and inner.value in a.classes:
            return f"a bound method of a new `{inner.value}` object"
        return None
    if isinstance(expr, cst.Name) and isinstance(value, FuncValue) and value.transform is None:
        info = value.info
        if site.func is None:
            return None  # module level: built once
        if value.partial and expr.value in site.func.assignments and site.loop is None:
            return f"`{expr.value}`, a `functools.partial` built in `{site.func.name}` on every call"
        if created_here(info, site.func) and site.loop is None:
            kind = "lambda" if info.name == "<lambda>" else "nested function"
            return f"`{expr.value}`, a {kind} defined in `{site.func.name}` (a new object on every call)"
        if site.loop is not None and info.def_loop is not None and info.parent is site.func:
            return f"`{expr.value}`, a function defined inside the loop (a new object every iteration)"
    return None


def is_function_value(expr: cst.BaseExpression, value) -> bool:
    """A plain Python function (not a pytree): a def, lambda, partial or bound method."""
    if isinstance(expr, cst.Lambda):
        return True
    if isinstance(value, FuncValue) and value.transform is None:
        return True
    return False


def identity_hashed_object(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression, value) -> str | None:
    """An object built per call whose hash is its identity (so it never hits the compile cache)."""
    a = ctx.analysis
    call = expr if isinstance(expr, cst.Call) else None
    class_name = None
    if call is not None and isinstance(call.func, cst.Name) and call.func.value in a.classes:
        class_name = call.func.value
    elif isinstance(expr, cst.Name) and isinstance(value, InstanceValue) and site.func is not None \
            and expr.value in site.func.assignments:
        class_name = value.class_name
    if class_name is not None:
        if site.func is None and site.loop is None:
            return None
        return None if value_hashed_class(a, class_name) else f"a new `{class_name}` object (hashed by identity)"
    if call is not None:
        q = a.call_names.get(call)
        if q and q.startswith("optax.") and (site.func is not None or site.loop is not None):
            return f"a new `{q}` optimizer (its functions are new objects each time)"
    return None


def value_hashed_class(a: ModuleAnalysis, class_name: str) -> bool:
    """Frozen dataclasses, NamedTuples, Enums and classes defining `__hash__`/`__eq__` hash by value."""
    for stmt in a.module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == class_name:
            for dec in stmt.decorators:
                d = dec.decorator
                if isinstance(d, cst.Call):
                    for arg in d.args:
                        if arg.keyword is not None and arg.keyword.value in ("frozen", "unsafe_hash") and \
                                isinstance(arg.value, cst.Name) and arg.value.value == "True":
                            return True
            for base in stmt.bases:
                text = a.module.code_for_node(base.value)
                if any(k in text for k in ("NamedTuple", "Enum", "IntEnum", "StrEnum", "tuple", "str", "int",
                                           "Module", "PyTreeNode", "struct")):
                    return True
            return "__hash__" in a.classes.get(class_name, {})
    return False
