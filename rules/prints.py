"""JIT5xx: printing or logging traced values inside traced code.

Python side effects run while JAX traces the function, not when the compiled code runs: the output
shows a tracer (``JitTracer(float32[3])``) once, at trace time, and nothing on later calls.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.facade import ContextKind
from jitlint.core.finding import Applicability, Severity
from jitlint.core.fixes import comments
from jitlint.rules.base import Confirmation, FixSpec, Replace, Report, Rule, RuleContext
from jitlint.source.cstwalk import descendants

from ._debug_print import Converter, Message, debug_print_call, escape, literal_text
from ._helpers import calls, describe, formatted_tracer, jax_module, mentions_traced, where

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
        value: a non-static parameter, or anything computed from one. Not a value of unknown kind (a field
        of an object jitlint cannot see into, such as `eqn.primitive.name` of a jaxpr an interpreter
        walks): it may as well be a Python value.
        """
    why = """
        `print` is a Python side effect. Under `jit` it runs once, while JAX traces the function, and
        prints the tracer (`JitTracer(float32[3])`) rather than the numbers. Later calls hit the compile
        cache and print nothing, so the output is both useless and misleadingly quiet. Printing static
        values (`x.shape`, `x.dtype`, a static argument, a plain string) is fine and is not reported. An
        f-string field with a format specification (`f"loss={loss:.3f}"`) does not even print: a tracer
        has no formatted value, so building the string raises `TypeError` at trace time; that print is
        reported at error.
        """
    instead_note = """
        `jax.debug.print` is staged into the computation and prints the runtime values on every call.
        """
    fix_note = """
        The fix rewrites the call to `jax.debug.print` with one format string that prints exactly what
        `print` would print for the concrete values: positional arguments become `{!s}` (`print` shows
        `str(x)`, which for a 0-d array differs from `format(x, "")`), f-string fields keep their format
        spec (`{loss:.3f}` -> `{:.3f}`), `.format(...)` and `%` templates are rewritten field by field,
        `sep` is folded into the string and literal braces are doubled; `ordered=True` keeps the order
        where the function prints more than once. `import jax` is added when the module lacks it (an
        alias such as `import jax as J` is used). No fix where it could not be exact: `%r`, `!r`, `%d`, a
        value that is not traced (a static float would be printed as float32), `file=`, `end=` other
        than a line break. The fix is safe where the function is traced by `jax.jit` in this file and
        nothing in the file uses `eval_shape`, `make_jaxpr`, `.lower()` or `.trace()` (there
        `jax.debug.print` prints nothing); unsafe in helpers, lax bodies and under `vmap`/`grad` (who
        traces them is not known here, and under `vmap` it prints per element), and for `%f`-style
        conversions (`%` also accepts a one-element array of any rank, `format` only a 0-d one) or a
        `%` template applied to a value that may be a tuple.
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

    fix_examples = (
        (
            """
            import jax


            @jax.jit
            def step(x):
                loss = (x ** 2).mean()
                print(f"loss={loss:.3f}")
                return x - loss
            """,
            """
            import jax


            @jax.jit
            def step(x):
                loss = (x ** 2).mean()
                jax.debug.print("loss={:.3f}", loss)
                return x - loss
            """,
        ),
        (
            """
            from jax import jit


            @jit
            def step(x, y):
                print("x %s, y %.2f" % (x, y))
                return x + y
            """,
            """
            import jax
            from jax import jit


            @jit
            def step(x, y):
                jax.debug.print("x {!s}, y {:.2f}", x, y)
                return x + y
            """,
        ),
        (
            """
            import jax


            @jax.jit
            def step(x):
                print("{} | {}".format(x.min(), x.max()), "done", sep=" -- ")
                print("x", x, sep="=")
                return x
            """,
            """
            import jax


            @jax.jit
            def step(x):
                jax.debug.print("{} | {} -- done", x.min(), x.max(), ordered=True)
                jax.debug.print("x={!s}", x, ordered=True)
                return x
            """,
        ),
        (
            """
            import jax


            def helper(x):
                print("helper", x)
                return x


            @jax.jit
            def step(x):
                return helper(x) + 1
            """,
            """
            import jax


            def helper(x):
                jax.debug.print("helper {!s}", x)
                return x


            @jax.jit
            def step(x):
                return helper(x) + 1
            """,
        ),
    )
    no_fix_examples = (
        """
        import sys

        import jax

        @jax.jit
        def step(x):
            print("x %r" % x)  # a repr: `jax.debug.print` cannot show the same weak types
            print(x, file=sys.stderr)  # jax.debug.print has no file=
            return x
        """,
    )

    messages = {
        "print": "`print` of traced value {value} {where}: it runs once, at trace time, and shows a tracer instead of "
                 "the values (and nothing on later calls); use `jax.debug.print`",
        "format": "`print` formats traced value {value} with a format specification {where}: a tracer has no "
                  "formatted value, so building the string raises TypeError at trace time and nothing is "
                  "printed; use `jax.debug.print`, which formats the values on the host",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        a = ctx.analysis
        for call, site in a.sites_of(cst.Call):
            if not calls(a, call, "print"):
                continue
            shown = None
            raising = next((found for arg in call.args if isinstance(arg.value, cst.FormattedString)
                            for found in [formatted_tracer(a, arg.value)] if found is not None), None)
            if raising is not None:
                # (certain: the string is never built, nothing is printed; the fix prints what it meant)
                yield Report(call, self.message("format", value=describe(ctx, raising[0], raising[1], site),
                                                where=where(site, a, call)),
                             fix=_debug_print_fix(ctx, call, site), severity=Severity.ERROR)
                continue
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in _PRINT_KEYWORDS:
                    continue
                traced = mentions_traced(a, arg.value)
                if traced is not None:
                    shown = describe(ctx, arg.value, traced, site)
                    break
            if shown is None:
                continue
            printed = [arg.value for arg in call.args if mentions_traced(a, arg.value) is not None]
            if _aborts_after(site, call) or _shown_by_debug_print(a, site, printed):
                continue  # (a dump before stopping; values a debug print of the function shows already)
            yield Report(call, self.message("print", value=shown, where=where(site, a, call)),
                         fix=_debug_print_fix(ctx, call, site))


class LogTracedValue(Rule):
    code = "JIT502"
    name = "log-traced-value"
    summary = "`logging` of a traced value inside jitted code records a tracer once, at trace time"
    severity = Severity.WARNING
    confirmed_by = Confirmation(output=True)
    what = """
        Finds `logging` calls (`logging.info(...)`, `logger.warning(...)` on a logger from
        `logging.getLogger`, `absl.logging`) inside traced code whose arguments include a traced value
        (not a value of unknown kind, as for JIT501).
        """
    why = """
        Like `print`, logging is a Python side effect: under `jit` it runs only while tracing, so the
        record holds `JitTracer(...)` instead of numbers, and later calls log nothing at all.
        """
    instead_note = """
        To log runtime values, hand them to a host callback: `jax.debug.callback(lambda v: log.info("loss %s", v), loss)`,
        or print them with `jax.debug.print`.
        """
    fixable = True
    fix_note = """
        The fix prints the message with `jax.debug.print`, its `%` template rewritten exactly (as for
        JIT501). It is always unsafe: the line goes to standard output, without the logger's level
        filter, name and handlers. To keep logging, use the `jax.debug.callback` form above by hand.
        """
    fix_examples = (
        (
            """
            import logging

            import jax

            log = logging.getLogger(__name__)


            @jax.jit
            def step(x):
                log.info("loss %s", x.sum())
                return x
            """,
            """
            import logging

            import jax

            log = logging.getLogger(__name__)


            @jax.jit
            def step(x):
                jax.debug.print("loss {!s}", x.sum())
                return x
            """,
        ),
    )
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

    messages = {
        "log": "`{call}` of traced value {value} {where}: it runs once, at trace time, and records a tracer, not the "
               "values; log through `jax.debug.callback` or use `jax.debug.print`",
    }

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
                    yield Report(call, self.message("log", call=ctx.short(func), where=where(site, a, call),
                                                    value=describe(ctx, arg.value, traced, site)),
                                 fix=_log_fix(ctx, call, site))
                    break


# Staging that traces without running: there `jax.debug.print` prints nothing, where `print` showed the
# tracer (a shape, on purpose, perhaps). A file that mentions one makes every print fix in it unsafe.


def _applicability(ctx: RuleContext, site) -> Applicability:
    """Safe only where the print runs under a dispatching `jit` (a decorator or `jax.jit(f)` in this
    file) and this file stages nothing without running it. Helpers, lax bodies, vmap and grad are
    unsafe: who traces them, and whether the output is per element, is not known here."""
    contexts = site.func.contexts or [site.context]
    for c in contexts:
        if c.kind is not ContextKind.JIT or c.transform not in jaxapi.JIT_WRAPPERS or "pmap" in c.transform:
            return Applicability.UNSAFE  # (pmap: ordered effects over several devices are not measured here)
    if ctx.file_fact("stages"):
        return Applicability.UNSAFE
    return Applicability.SAFE


def _outputs(ctx: RuleContext, func: cst.CSTNode) -> int:
    """How many calls in this function's body write output (print, logging, jax.debug.*), counted once."""
    return ctx.memo((_outputs, func), lambda: sum(1 for node in descendants(func) if _writes_output(ctx, node)))


def _writes_output(ctx: RuleContext, node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    q = ctx.analysis.call_names.get(node) or ""
    attr = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
    return q == "print" or q.startswith("jax.debug.") or attr in jaxapi.LOGGING_METHODS


def _debug_print(ctx: RuleContext, call: cst.Call, msg: Message | None, sep: str, site, title: str,
                 unsafe: bool = False) -> FixSpec | None:
    """The fix replacing `call` by `jax.debug.print(...)` of `msg` (and adding `import jax` if needed)."""
    if msg is None or comments(ctx.code(call)) != []:  # a comment between the arguments would be lost
        return None
    named = jax_module(ctx, call)
    if named is None:
        return None
    jax_name, import_edit = named
    pmapped = any(c.transform is not None and "pmap" in c.transform for c in site.func.contexts)
    replacement = debug_print_call(jax_name, msg, sep, ordered=_outputs(ctx, site.func.node) > 1 and not pmapped)
    if replacement is None:
        return None
    safe = _applicability(ctx, site) is Applicability.SAFE and not (unsafe or msg.scalar_only or msg.maybe_tuple)
    edits = (Replace(call, replacement),) + ((import_edit,) if import_edit is not None else ())
    return FixSpec(title, edits, Applicability.SAFE if safe else Applicability.UNSAFE)


def _debug_print_fix(ctx: RuleContext, call: cst.Call, site) -> FixSpec | None:
    """print(a, f"b={b:.2f}", sep=", ") -> jax.debug.print("{!s}, b={:.2f}", a, b), when it is exact."""
    sep = " "
    conv = Converter(ctx.analysis, ctx.code)
    msg = Message()
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            key = arg.keyword.value
            text = literal_text(arg.value)
            if key == "sep" and text is not None:
                sep = text
            elif key == "end" and text == "\n":
                pass  # jax.debug.print ends every line with one line break
            elif key == "flush" and isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
                pass  # the text is the same; jax.debug.print's output is written as it comes
            else:
                return None  # file=..., end="" ...: no exact jax.debug.print
            continue
        piece = Message()
        if not conv.print_arg(arg.value, piece):
            return None
        msg.pieces += piece.pieces
        msg.args += piece.args
        msg.scalar_only |= piece.scalar_only
        msg.maybe_tuple |= piece.maybe_tuple
    return _debug_print(ctx, call, msg, sep, site, "Use jax.debug.print")


_LOG_LEVELS = {"debug", "info", "warning", "warn", "error", "critical", "fatal"}


def _log_fix(ctx: RuleContext, call: cst.Call, site) -> FixSpec | None:
    """log.info("loss %s", x) -> jax.debug.print("loss {!s}", x): always unsafe (the line goes to
    standard output, without the logger's level, name and handlers)."""
    if call.func.attr.value not in _LOG_LEVELS or not call.args:
        return None
    if any(a.star or a.keyword is not None for a in call.args):
        return None  # exc_info=, extra=, stacklevel=, *args
    conv = Converter(ctx.analysis, ctx.code)
    msg = Message()
    first, rest = call.args[0].value, [a.value for a in call.args[1:]]
    if rest:
        # logging formats `msg % args` (a lone mapping argument is the mapping: with `%s` only, the same text)
        ok = conv.percent(first, None, msg, values=rest)
    else:
        ok = conv.print_arg(first, msg) if literal_text(first) is None else _plain(first, msg)
    return _debug_print(ctx, call, msg if ok else None, "", site, "Print with jax.debug.print instead of logging",
                        unsafe=True)


def _aborts_after(site, call: cst.Call) -> bool:
    """A later statement of the print's block is a `raise` (`print("sigmoid", s); raise ValueError("Stop")`):
    a dump before stopping, at trace time, where `jax.debug.print` would print nothing -- the trace never
    finishes (Jax-MARLHF's reward model, fresh set BT)."""
    if not isinstance(site.func.node, cst.FunctionDef):
        return False
    for node in descendants(site.func.node.body):
        if not isinstance(node, cst.IndentedBlock):
            continue
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(small, cst.Expr) and small.value is call for small in stmt.body):
                return any(isinstance(later, cst.SimpleStatementLine) and
                           any(isinstance(small, cst.Raise) for small in later.body) for later in node.body[i:])
    return False


def _shown_by_debug_print(a, site, printed: list[cst.BaseExpression]) -> bool:
    """The same function also stages `jax.debug.print` (or a debug callback) of what this `print` shows:
    the run-time values are printed already, and the plain `print` shows the trace-time structure on
    purpose (`print("A", a)` then `jax.debug.print("A:{}", a)`: jax-fem's inverse scripts, fresh set BS).
    Nothing to fix."""
    if not printed or not isinstance(site.func.node, cst.FunctionDef):
        return False
    staged = [arg.value for node in descendants(site.func.node.body)
              if isinstance(node, cst.Call) and a.call_names.get(node) in _STAGED_PRINTS for arg in node.args]
    # (the same expressions: `print(x)` beside `jax.debug.print("{}", x + 1)` still shows only a tracer of `x`)
    return all(any(expr.deep_equals(value) for value in staged) for expr in printed)


_STAGED_PRINTS = frozenset({"jax.debug.print", "jax.debug.callback"})


def _plain(node, msg: Message) -> bool:
    """logging with no arguments does no %-formatting: the text as it is."""
    msg.pieces.append(escape(literal_text(node)))
    return True
