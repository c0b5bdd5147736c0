"""JIT5xx: printing or logging traced values inside traced code.

Python side effects run while JAX traces the function, not when the compiled code runs: the output
shows a tracer (``JitTracer(float32[3])``) once, at trace time, and nothing on later calls.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint import jaxapi
from jitlint.finding import Severity
from jitlint.fixes import comments
from jitlint.rule import Confirmation, FixSpec, Report, Rule, RuleContext

from ._helpers import calls, describe, mentions_traced, where

_PRINT_KEYWORDS = {"sep", "end", "file", "flush"}


class PrintTracedValue(Rule):
    code = "JIT501"
    name = "print-traced-value"
    summary = "`print` of a traced value inside jitted code shows a tracer once, at trace time"
    severity = Severity.WARNING
    confirmed_by = Confirmation(output=True)
    fixable = True
    what = """
        Finds `print(...)` calls inside traced code (a `jax.jit`-decorated function, a function passed
        to `jax.jit`, `vmap`, a `lax` loop body, or a helper they call) whose arguments include a traced
        value: a non-static parameter, or anything computed from one.
        """
    why = """
        `print` is a Python side effect. Under `jit` it runs once, while JAX traces the function, and
        prints the tracer (`JitTracer(float32[3])`) rather than the numbers. Later calls hit the compile
        cache and print nothing, so the output is both useless and misleadingly quiet. Printing static
        values (`x.shape`, `x.dtype`, a static argument, a plain string) is fine and is not reported.
        """
    instead_note = """
        `jax.debug.print` is staged into the computation and prints the runtime values on every call.
        The fix rewrites simple calls (positional arguments and f-strings) to `jax.debug.print`.
        """
    invalid = (
        """
        import jax

        @jax.jit
        def step(x):
            print("x is", x)
            return x * 2
        """,
        """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="n")
        def step(x, n):
            print(f"loss={x.sum():.3f}")
            return x * n
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def step(x):
            jax.debug.print("x is {}", x)
            return x * 2
        """,
        """
        import jax

        @jax.jit
        def step(x):
            print("tracing step for shape", x.shape)  # static: runs once per compile, on purpose
            return x * 2
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for call, site in a.sites_of(cst.Call):
            if not calls(a, call, "print"):
                continue
            shown = None
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in _PRINT_KEYWORDS:
                    continue
                traced = mentions_traced(a, arg.value)
                if traced is not None:
                    shown = describe(ctx, arg.value, traced, site)
                    break
            if shown is None:
                continue
            yield Report(
                call,
                f"`print` of traced value {shown} {where(site)}: it runs once, at trace time, and shows "
                f"a tracer instead of the values (and nothing on later calls); use `jax.debug.print`",
                fix=_debug_print_fix(ctx, call, site),
            )


class LogTracedValue(Rule):
    code = "JIT502"
    name = "log-traced-value"
    summary = "`logging` of a traced value inside jitted code records a tracer once, at trace time"
    severity = Severity.WARNING
    confirmed_by = Confirmation(output=True)
    what = """
        Finds `logging` calls (`logging.info(...)`, `logger.warning(...)` on a logger from
        `logging.getLogger`, `absl.logging`) inside traced code whose arguments include a traced value.
        """
    why = """
        Like `print`, logging is a Python side effect: under `jit` it runs only while tracing, so the
        record holds `JitTracer(...)` instead of numbers, and later calls log nothing at all.
        """
    instead_note = """
        To log runtime values, hand them to a host callback: `jax.debug.callback(lambda v: log.info("loss %s", v), loss)`,
        or print them with `jax.debug.print`.
        """
    invalid = (
        """
        import logging
        import jax

        log = logging.getLogger(__name__)

        @jax.jit
        def step(x):
            log.info("loss %s", x.sum())
            return x
        """,
    )
    valid = (
        """
        import logging
        import jax

        log = logging.getLogger(__name__)

        @jax.jit
        def step(x):
            jax.debug.callback(lambda v: log.info("loss %s", v), x.sum())
            return x
        """,
        """
        import logging
        import jax

        @jax.jit
        def step(x):
            logging.info("compiling step for %s", x.shape)
            return x
        """,
    )

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for call, site in a.sites_of(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in jaxapi.LOGGING_METHODS:
                continue
            receiver = func.value
            q = site.scope.qualify(receiver)
            is_logger = q in jaxapi.LOGGING_MODULES or (
                isinstance(receiver, cst.Name) and receiver.value in a.loggers)
            if not is_logger:
                continue
            for arg in call.args:
                traced = mentions_traced(a, arg.value)
                if traced is not None:
                    yield Report(
                        call,
                        f"`{ctx.short(func)}` of traced value {describe(ctx, arg.value, traced, site)} {where(site)}: it runs once, at "
                        f"trace time, and records a tracer, not the values; log through "
                        f"`jax.debug.callback` or use `jax.debug.print`",
                    )
                    break


def _debug_print_fix(ctx: RuleContext, call: cst.Call, site) -> FixSpec | None:
    """print(a, f"b={b:.2f}") -> jax.debug.print("{} b={:.2f}", a, b), when it can be done exactly."""
    if site.scope.lookup("jax") != "jax" or _jax_rebound(ctx):
        return None
    if comments(ctx.code(call)) != []:  # a comment between the arguments would be lost (or not tokenizable)
        return None
    pieces: list[str] = []
    args: list[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            return None
        value = arg.value
        if isinstance(value, cst.SimpleString):
            text = value.evaluated_value
            if not isinstance(text, str):
                return None
            pieces.append(text.replace("{", "{{").replace("}", "}}"))
        elif isinstance(value, cst.FormattedString):
            text = _fstring_to_format(value, args)
            if text is None:
                return None
            pieces.append(text)
        else:
            pieces.append("{}")
            args.append(cst.Arg(value))
    fmt = " ".join(pieces)
    literal = repr(fmt)
    if '"' not in fmt:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    new_args = [cst.Arg(cst.SimpleString(literal)), *args]
    new_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in new_args]
    replacement = call.with_changes(
        func=cst.Attribute(cst.Attribute(cst.Name("jax"), cst.Name("debug")), cst.Name("print")),
        args=new_args)
    return FixSpec("Use jax.debug.print", call, replacement)


def _jax_rebound(ctx: RuleContext) -> bool:
    """Is the name `jax` bound anywhere in the file other than by `import jax[.sub]`? (`jax = None`,
    a parameter `jax`, `import numpy as jax` ...: then `jax.debug.print` may not name the module.)
    Read with CPython's ast, whose Store/Del contexts mark every binding; once per file."""
    known = getattr(ctx, "_jax_rebound", None)
    if known is None:
        known = ctx._jax_rebound = _binds_jax(ctx.module.code)
    return known


def _binds_jax(code: str) -> bool:
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "jax" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.arg) and node.arg == "jax":
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "jax":
            return True
        if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name == "jax":
            return True
        if isinstance(node, ast.MatchMapping) and node.rest == "jax":
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and "jax" in node.names:
            return True
        if isinstance(node, ast.Import) and any(
                a.asname == "jax" and a.name != "jax" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and any(
                (a.asname or a.name) in ("jax", "*") for a in node.names):
            return True
    return False


def _fstring_to_format(fs: cst.FormattedString, args: list[cst.Arg]) -> str | None:
    out = []
    for part in fs.parts:
        if isinstance(part, cst.FormattedStringText):
            if "\\" in part.value:
                return None
            out.append(part.value)
        elif isinstance(part, cst.FormattedStringExpression):
            if part.equal is not None:
                return None
            spec = ""
            if part.conversion:
                spec += "!" + part.conversion
            if part.format_spec:
                if not all(isinstance(s, cst.FormattedStringText) for s in part.format_spec):
                    return None
                spec += ":" + "".join(s.value for s in part.format_spec)
            out.append("{" + spec + "}")
            args.append(cst.Arg(part.expression))
        else:
            return None
    return "".join(out)
