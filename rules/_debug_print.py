"""Rewriting a `print`/logging call of traced values into one `jax.debug.print` format string.

`jax.debug.print(fmt, *args)` formats with `str.format` on the runtime values, which reach the callback
as concrete `jax.Array`s (measured on JAX 0.10.2): `"{}"` is then `format(value, "")`, `"{!s}"` is
`str(value)`, `"{:.3f}"` is `format(value, ".3f")`, exactly as an eager program's f-string, `str()` or
`str.format` shows that value. `print(x)` shows `str(x)`, which differs from `format(x, "")` for a 0-d
array (`0.33333334` against `0.3333333432674408`), so a printed value becomes `"{!s}"`. It always ends
with one line break and has no `sep`/`end`/`file`.

Every piece is converted exactly or the whole conversion is refused (None): `%r`/`!r`/`!a` (a repr
depends on weak types that a callback does not keep), `%d`-style integer conversions of values whose
type is unknown, values that are not traced (a static Python float would be printed as float32),
attribute or index fields (`{0.shape}`), nested format specs, `=` in f-strings.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass, field

import libcst as cst

from jitlint.analysis.facade import ModuleAnalysis
from jitlint.analysis.literals import evaluated

from ._helpers import traced_in

# %[flags][width][.precision]conversion (no mapping keys, no `*`)
_PERCENT = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>\d*)(?:\.(?P<prec>\d+))?(?P<conv>[a-zA-Z%])")
_FLOAT_CONVERSIONS = set("feEFgG")


@dataclass
class Message:
    """A format string being built, the argument expressions it formats, and whether it is exact only
    for scalars (a `%f` of an array: `%` converts a one-element array of any rank, `format` only a 0-d)."""

    pieces: list[str] = field(default_factory=list)
    args: list[cst.BaseExpression] = field(default_factory=list)
    scalar_only: bool = False  # `%.3f`: `%` converts a 1-element array of any rank, `format` only 0-d
    maybe_tuple: bool = False  # `"%s" % v` with `v` not known to be an array: a tuple would spread

    def fmt(self, sep: str = "") -> str:
        return sep.join(self.pieces)


def literal_text(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (also implicitly concatenated), None for anything else."""
    if isinstance(node, cst.SimpleString):
        value = evaluated(node)
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = literal_text(node.left), literal_text(node.right)
        return left + right if left is not None and right is not None else None
    return None


def escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class Converter:
    def __init__(self, analysis: ModuleAnalysis, code_for):
        self.a = analysis
        self.code_for = code_for

    def traced(self, expr: cst.BaseExpression) -> bool:
        return traced_in(self.a, expr) is not None

    # ---- print(...) arguments
    def print_arg(self, value: cst.BaseExpression, msg: Message) -> bool:
        """One positional argument of `print`: what `str(value)` shows."""
        text = literal_text(value)
        if text is not None:
            msg.pieces.append(escape(text))
            return True
        if isinstance(value, (cst.Integer, cst.Float)) or (
                isinstance(value, cst.Name) and value.value in ("True", "False", "None")):
            try:
                msg.pieces.append(escape(str(ast.literal_eval(self.code_for(value)))))
            except (ValueError, SyntaxError):
                return False
            return True
        if isinstance(value, cst.FormattedString):
            return self.fstring(value, msg)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
            return self.percent(value.left, value.right, msg)
        if isinstance(value, cst.Call) and self._is_format_call(value):
            return self.format_call(value, msg)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "str" \
                and self.a.call_names.get(value) == "str" and len(value.args) == 1 \
                and value.args[0].keyword is None and not value.args[0].star:
            value = value.args[0].value
        if not self.traced(value):
            return False
        msg.pieces.append("{!s}")
        msg.args.append(value)
        return True

    def _is_format_call(self, call: cst.Call) -> bool:
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value == "format" and literal_text(func.value) is not None

    # ---- f-strings
    def fstring(self, fs: cst.FormattedString, msg: Message) -> bool:
        prefix = fs.start[:-1] if not fs.start.endswith(('"""', "'''")) else fs.start[:-3]
        quote = fs.start[len(prefix):]
        plain = prefix.replace("f", "").replace("F", "")
        out = []
        for part in fs.parts:
            if isinstance(part, cst.FormattedStringText):
                # the text as a plain literal: `{{`/`}}` stay doubled, which a format string wants too
                try:
                    text = ast.literal_eval(plain + quote + part.value + fs.end)
                except (ValueError, SyntaxError):
                    return False
                if not isinstance(text, str):
                    return False
                out.append(text)
            elif isinstance(part, cst.FormattedStringExpression):
                if part.equal is not None or part.conversion not in (None, "s"):
                    return False
                spec = ""
                if part.format_spec:
                    if not all(isinstance(s, cst.FormattedStringText) for s in part.format_spec):
                        return False
                    spec = "".join(s.value for s in part.format_spec)
                    if "\\" in spec or "{" in spec or "}" in spec:
                        return False
                if not self.traced(part.expression):
                    return False
                out.append("{" + ("!s" if part.conversion else "") + (":" + spec if spec else "") + "}")
                msg.args.append(part.expression)
            else:
                return False
        msg.pieces.append("".join(out))
        return True

    # ---- "...".format(...)
    def format_call(self, call: cst.Call, msg: Message) -> bool:
        template = literal_text(call.func.value)
        positional, named = [], {}
        for arg in call.args:
            if arg.star:
                return False
            if arg.keyword is None:
                positional.append(arg.value)
            else:
                named[arg.keyword.value] = arg.value
        used: set = set()
        auto, manual = 0, False
        out = []
        try:
            parsed = list(string.Formatter().parse(template))
        except ValueError:
            return False
        for text, name, spec, conversion in parsed:
            out.append(escape(text))
            if name is None:
                continue
            if conversion not in (None, "s") or (spec and ("{" in spec or "}" in spec)):
                return False
            if name == "":
                key: int | str = auto
                auto += 1
            elif name.isdigit():
                key = int(name)
                manual = True
            elif name.isidentifier():
                key = name
            else:
                return False  # `{0.shape}`, `{x[0]}`
            value = positional[key] if isinstance(key, int) and key < len(positional) else named.get(key)
            if value is None or not self.traced(value):
                return False
            if key in used and not isinstance(value, cst.Name):
                return False  # formatted twice: the expression would be computed twice
            used.add(key)
            out.append("{" + ("!s" if conversion else "") + (":" + spec if spec else "") + "}")
            msg.args.append(value)
        if auto and manual:
            return False  # `"{} {0}".format(...)` raises ValueError: nothing to rewrite it to
        if len(used) != len(positional) + len(named):
            return False  # an argument the template does not show: dropping it could drop a side effect
        msg.pieces.append("".join(out))
        return True

    # ---- "..." % args (and logging's msg, *args)
    def percent(self, template_node: cst.BaseExpression, rhs: cst.BaseExpression | None, msg: Message,
                values: list[cst.BaseExpression] | None = None) -> bool:
        template = literal_text(template_node)
        if template is None:
            return False
        if values is None:
            if isinstance(rhs, cst.Tuple):
                if any(el.star if isinstance(el, cst.StarredElement) else False for el in rhs.elements):
                    return False
                values = [el.value for el in rhs.elements]
            elif isinstance(rhs, (cst.Dict, cst.List, cst.Set)):
                return False
            else:
                values = [rhs]
                t = traced_in(self.a, rhs)
                if t is None or not t.is_array:
                    msg.maybe_tuple = True  # a tuple at run time would spread over the conversions
        out, pos, k = [], 0, 0
        for m in _PERCENT.finditer(template):
            if "%" in template[pos:m.start()]:
                return False  # a `%(name)s` mapping key or a `*` width
            out.append(escape(template[pos:m.start()]))
            pos = m.end()
            conv, flags, width, prec = m.group("conv"), m.group("flags"), m.group("width"), m.group("prec")
            if conv == "%":
                if flags or width or prec:
                    return False
                out.append("%")
                continue
            if k >= len(values):
                return False
            value = values[k]
            k += 1
            if not self.traced(value):
                return False
            align = "<" if "-" in flags else ""
            if conv == "s":
                if set(flags) - {"-"}:
                    return False
                spec = ((align or (">" if width else "")) + width + (f".{prec}" if prec is not None else ""))
                out.append("{!s" + (":" + spec if spec else "") + "}")
            elif conv in _FLOAT_CONVERSIONS:
                sign = "+" if "+" in flags else " " if " " in flags else ""
                zero = "0" if "0" in flags and not align else ""
                spec = align + sign + ("#" if "#" in flags else "") + zero + width + (
                    f".{prec}" if prec is not None else "") + conv
                out.append("{:" + spec + "}")
                msg.scalar_only = True
            else:
                return False  # %r, %a, %d (of a float it truncates, `{:d}` refuses), %x, %c ...
            msg.args.append(value)
        if "%" in template[pos:] or k != len(values):
            return False  # a `%(name)s` mapping key, a `*` width, or too many arguments
        out.append(escape(template[pos:]))
        msg.pieces.append("".join(out))
        return True


def format_literal(fmt: str) -> str:
    """A Python string literal for `fmt`, in double quotes when it has none."""
    literal = repr(fmt)
    if '"' not in fmt and literal.startswith("'"):
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return literal


def debug_print_call(jax_name: str, msg: Message, sep: str = "", ordered: bool = False) -> cst.Call | None:
    """`ordered`: where a function prints more than once, unordered debug prints may come out in any order
    (measured: they do), so the fix asks for the program's order."""
    fmt = msg.fmt(escape(sep))
    try:  # the format string must take exactly the arguments given
        string.Formatter().parse(fmt) and list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    args = [cst.Arg(cst.SimpleString(format_literal(fmt))), *(cst.Arg(v) for v in msg.args)]
    if ordered:
        args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("ordered"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    func = cst.Attribute(cst.Attribute(cst.Name(jax_name), cst.Name("debug")), cst.Name("print"))
    return cst.Call(func=func, args=args)
