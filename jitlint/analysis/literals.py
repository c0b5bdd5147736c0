"""Reading literal arguments from libcst call nodes (static_argnums, in_axes, keyword options)."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.values import Const

_evaluated: dict[tuple[type, str], object] = {}


def evaluated(expr):
    """`expr.evaluated_value` of an Integer, Float, Imaginary or SimpleString node, remembered by its
    spelling: libcst evaluates a literal by parsing it with `ast` every time it is asked."""
    key = (expr.__class__, expr.value)
    try:
        return _evaluated[key]
    except KeyError:
        value = expr.evaluated_value
        if len(key[1]) <= 64:  # not docstrings and other long texts
            _evaluated[key] = value
        return value


def literal_values(expr: cst.BaseExpression | None, kind: type) -> tuple | None:
    """`1`, `-1`, `(0, 2)`, `"n"`, `("a", "b")`, `None` -> a tuple of `kind` values; None when the
    expression is not such a literal (e.g. a variable)."""
    if expr is None or (isinstance(expr, cst.Name) and expr.value == "None"):
        return ()
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        out: list = []
        for el in expr.elements:
            sub = literal_values(el.value, kind)
            if sub is None or len(sub) != 1:
                return None
            out.extend(sub)
        return tuple(out)
    if kind is int and isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_values(expr.expression, int)
        return (-inner[0],) if inner and len(inner) == 1 else None
    if kind is int and isinstance(expr, cst.Integer):
        return (int(evaluated(expr)),)
    if kind is str and isinstance(expr, cst.SimpleString) and isinstance(evaluated(expr), str):
        return (evaluated(expr),)
    if kind is str and isinstance(expr, cst.ConcatenatedString):  # `"n" "m"` is "nm", as Python reads it
        left, right = literal_values(expr.left, str), literal_values(expr.right, str)
        if left is not None and right is not None and len(left) == len(right) == 1 \
                and not isinstance(expr.left, (cst.Tuple, cst.List, cst.Set)):
            return (left[0] + right[0],)
    return None


def literal_ints(expr: cst.BaseExpression | None) -> tuple[int, ...] | None:
    return literal_values(expr, int)


def literal_strs(expr: cst.BaseExpression | None) -> tuple[str, ...] | None:
    return literal_values(expr, str)


def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional_args(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    """The argument a parameter gets: by its keyword, else at its position."""
    arg = kwarg(call, keyword)
    if arg is not None:
        return arg.value
    positional = positional_args(call)
    return positional[position].value if position < len(positional) else None


_NAMED_CONSTANTS = {"True": True, "False": False, "None": None}


def literal_const(expr: cst.BaseExpression | None) -> Const | None:
    """`True`, `None`, `3`, `-1.5`, `"mean"` -> Const; anything else -> None."""
    if expr is None:
        return None
    # Class tests, not isinstance: the analysis asks of most expressions it meets, and libcst's concrete
    # node classes have no subclasses (isinstance against them goes through ABCMeta, several times slower).
    cls = expr.__class__
    if cls is cst.Name:
        return Const(_NAMED_CONSTANTS[expr.value]) if expr.value in _NAMED_CONSTANTS else None
    negative = False
    if cls is cst.UnaryOperation and expr.operator.__class__ is cst.Minus:
        negative, expr = True, expr.expression
        cls = expr.__class__
    if cls is cst.Integer or cls is cst.Float:
        value = evaluated(expr)
        return Const(-value if negative else value)
    if cls is cst.SimpleString and not negative:
        value = evaluated(expr)
        return Const(value) if isinstance(value, str) else None
    return None
