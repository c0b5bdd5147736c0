"""Small queries the rule modules share."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis import TRACED, ModuleAnalysis, Site, Taint


def traced_in(analysis: ModuleAnalysis, expr: cst.BaseExpression, min_level: int = TRACED) -> Taint | None:
    """The taint of `expr` if it holds a tracer at least at `min_level`."""
    t = analysis.taint(expr)
    if t is not None and t.level >= min_level:
        return t
    return None


def mentions_traced(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Taint | None:
    """Does the text this expression produces show a tracer (directly, or formatted into a string)?"""
    t = traced_in(analysis, expr)
    if t is not None:
        return t
    if isinstance(expr, cst.FormattedString):
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                t = mentions_traced(analysis, part.expression)
                if t is not None:
                    return t
        return None
    if isinstance(expr, cst.ConcatenatedString):
        return mentions_traced(analysis, expr.left) or mentions_traced(analysis, expr.right)
    if isinstance(expr, cst.BinaryOperation):
        return mentions_traced(analysis, expr.left) or mentions_traced(analysis, expr.right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        for el in expr.elements:
            t = mentions_traced(analysis, el.value)
            if t is not None:
                return t
        return None
    if isinstance(expr, cst.Call):
        func = expr.func
        formatting = (isinstance(func, cst.Name) and func.value in ("str", "repr", "format")) or (
            isinstance(func, cst.Attribute) and func.attr.value == "format"
            and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)))
        if formatting:
            for arg in expr.args:
                t = mentions_traced(analysis, arg.value)
                if t is not None:
                    return t
    return None


def describe(ctx, expr: cst.BaseExpression, taint: Taint) -> str:
    """`x`, or `z` (from `x`): the value as written, and the traced value it derives from."""
    text = ctx.short(expr, 30)
    if text == taint.origin:
        return f"`{text}`"
    return f"`{text}` (from `{taint.origin}`)"


def where(site: Site) -> str:
    """`inside jitted `f`` style phrase naming the traced function and how it is traced."""
    func = site.func
    name = func.name if func.name != "<lambda>" else "a lambda"
    ctx = site.context
    if ctx.kind == "helper":
        return f"in `{name}`, which is traced ({ctx.via})"
    if ctx.kind == "lax":
        return f"in `{name}`, a {ctx.via}"
    if ctx.kind == "nested":
        return f"in `{name}` ({ctx.via})"
    return f"in `{name}`, traced by {ctx.via}"


def calls(analysis: ModuleAnalysis, call: cst.Call, *names: str) -> bool:
    """Is `call` a call of one of these qualified names (builtins by bare name, not shadowed)?"""
    return analysis.call_names.get(call) in names
