"""The codes only the runtime mode reports (JIT9xx): what the program did that no static rule saw.

They are not static rules (the engine never reports them); `jitlint run` emits them from what it
observed. They are in the one catalogue of codes (jitlint.catalog), so `select`, `ignore`,
`per-file-ignores`, `# noqa` and `jitlint rule` treat them as any code. Each one carries its docs and
the advice its findings end with; a retrace code names the retrace causes it reports
(jitlint.runtime.evidence).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from jitlint.core.finding import Severity
from jitlint.rules.registry import rule_by_code
from jitlint.runtime.evidence import FUNCTION_TYPES


@dataclass(frozen=True)
class RuntimeCode:
    code: str
    name: str
    summary: str
    severity: Severity
    what: str
    why: str
    advice: str = ""  # the last sentence of its findings: what to do
    causes: frozenset[str] = frozenset()  # the retrace causes it reports (JIT901-905)
    related: tuple[str, ...] = ()  # the static rules that predict what it reports, when one does

    def docs(self) -> str:
        """Its page, as Markdown (what `jitlint rule CODE` prints)."""
        parts = [f"# {self.code}: {self.name}", "", self.summary, "", f"**Severity:** {self.severity.value}  ",
                 "**Reported by:** `jitlint run` only (what the program did at runtime)", "",
                 "## What it does", textwrap.dedent(self.what).strip("\n"), "",
                 "## Why is this bad?", textwrap.dedent(self.why).strip("\n")]
        if self.advice:
            parts += ["", "## What to do", self.advice[0].upper() + self.advice[1:] + "."]
        if self.causes:
            parts += ["", "## When it is reported",
                      "Only when the recompiles repeat: the function was traced again for this cause "
                      "at least `runtime-min-retraces` times (default 3), or its cache grows with the calls "
                      "(at least 3 entries, and a new one on most calls, or new ones still coming in the second "
                      "half of the calls: values that do not come back). A bounded set is never a finding, "
                      "whatever it took to compile: a function meant to take two shapes (a ragged last batch) "
                      "or two modes compiles twice and is a row of the report's cost table, which lists every "
                      "function's traces and compiles and what padding to one shape would save. The threshold "
                      "is `runtime-min-retraces` in `[tool.jitlint]` and the `jitlint run` option of that name."]
        if self.related:
            names = ", ".join(f"[{c}]({c}.md)" for c in self.related)
            parts += ["", "## Related static rules",
                      f"{names}: the static rule{'s' if len(self.related) > 1 else ''} that predict"
                      f"{'' if len(self.related) > 1 else 's'} this from the source. The finding names the one "
                      "that fits what the run saw; when that rule already reported the line, the run gives "
                      "its finding a runtime status instead of reporting this code."]
        parts += ["", "## Silencing it",
                  "A `# noqa` for this code, or for a static rule that predicts the same cause (e.g. "
                  "`# noqa: JIT301` for a retrace caused by a static argument, `# noqa: JIT101` for a new "
                  "function object), silences it: on the line of the finding (the call)"
                  + (", or on the jitted function's `def` or decorator line, or on the line that calls "
                     "`jax.jit` on it" if self.causes else "") + "."]
        return "\n".join(parts) + "\n"


_RETRACE_WHY = """\
    Every retrace runs the Python function again and compiles a new program with XLA: often far more
    time than the computation itself, paid again on every new signature."""

SHAPE_CHANGE = RuntimeCode(
    "JIT901", "recompiled-on-shape-change",
    "a jitted function was traced again because an argument's shape changed (e.g. a ragged last batch)",
    Severity.WARNING,
    "Reports a call where the run saw a jitted function traced and compiled again because an array "
    "argument's shape differed from every earlier call (a ragged last batch, variable-length inputs).",
    _RETRACE_WHY, "pad or bucket the shapes (e.g. pad or drop a ragged last batch), or mark the function's "
                  "calls with few shapes as intended with `# noqa: JIT901` on its def line", frozenset({"shape"}))
DTYPE_CHANGE = RuntimeCode(
    "JIT902", "recompiled-on-dtype-change",
    "a jitted function was traced again because an argument's dtype or weak type changed",
    Severity.WARNING,
    "Reports a call where the run saw a retrace because an argument's dtype changed, or it switched "
    "between a Python scalar (weakly typed) and a typed array.",
    _RETRACE_WHY, "give the argument a fixed dtype (e.g. `jnp.asarray(v, jnp.float32)`), so Python scalars and "
                  "typed arrays do not alternate", frozenset({"dtype", "weak_type"}))
STATIC_CHANGE = RuntimeCode(
    "JIT903", "recompiled-on-static-or-structure-change",
    "a jitted function was traced again because a static argument's value or the argument structure changed",
    Severity.WARNING,
    "Reports a call where the run saw a retrace because a static argument's value changed (or a new "
    "object hashed by identity was passed as one), or the argument structure changed (positional vs "
    "keyword, pytree keys).",
    _RETRACE_WHY, "keep static arguments to a few hashable values, or pass the value as a traced argument",
    frozenset({"static", "structure"}), ("JIT301", "JIT302", "JIT303", "JIT201", "JIT203"))
NEW_FUNCTION = RuntimeCode(
    "JIT904", "recompiled-new-function-object",
    "a jitted function was traced again because a new function object was jitted (same source line)",
    Severity.WARNING,
    "Reports a call where the run saw a retrace because `jax.jit` was applied to a new function object "
    "created at the same source line (a def or lambda inside a loop or a repeatedly called function).",
    _RETRACE_WHY, "create the function and its `jax.jit` once, outside the loop or the repeatedly-called function",
    frozenset({"new_function"}), ("JIT101",))
OTHER_RECOMPILE = RuntimeCode(
    "JIT905", "recompiled-other-cause",
    "a jitted function was traced again for another reason (JAX config or context, or unexplained)",
    Severity.INFO,
    "Reports a retrace whose cause is a change of JAX configuration or context, or one JAX did not explain.",
    _RETRACE_WHY, "see JAX's explanation (run with JAX_EXPLAIN_CACHE_MISSES=1)", frozenset({"context", "unknown"}))
TRACE_ERROR = RuntimeCode(
    "JIT906", "trace-time-error",
    "a JAX tracing error was raised at this line",
    Severity.ERROR,
    "Reports a JAX tracing error (a `jax.errors` class, or a known JAX message such as \"Non-hashable "
    "static arguments\") raised at a line no static finding covers.",
    "The program fails there: the error is certain, on the inputs the run used.",
    "make the value static (`static_argnames`) if it is configuration, or write the computation with "
    "`jnp.where`, `lax.cond` or `size=` so it does not need a concrete value",
    related=("JIT401", "JIT402", "JIT403", "JIT404", "JIT405", "JIT406", "JIT407", "JIT408", "JIT601", "JIT602",
             "JIT603", "JIT604", "JIT304", "JIT202"))
TRACER_OUTPUT = RuntimeCode(
    "JIT907", "tracer-printed",
    "a traced value was printed or logged at trace time",
    Severity.WARNING,
    "Reports `print` or `logging` receiving a staging tracer (`JitTracer(...)`) at a line no static "
    "finding covers.",
    "It prints once, while tracing, and shows the tracer's type instead of the values; later calls "
    "print nothing. `jax.debug.print` prints the values on every call.",
    "use `jax.debug.print` (or `jax.debug.callback` for logging) to see the values on every call",
    related=("JIT501", "JIT502"))

RUNTIME_CODES: tuple[RuntimeCode, ...] = (SHAPE_CHANGE, DTYPE_CHANGE, STATIC_CHANGE, NEW_FUNCTION, OTHER_RECOMPILE,
                                          TRACE_ERROR, TRACER_OUTPUT)


def code_for_cause(cause: str) -> RuntimeCode:
    """The code that reports a retrace of this cause (see jitlint.runtime.evidence)."""
    return next((c for c in RUNTIME_CODES if cause in c.causes), OTHER_RECOMPILE)


def related_rule(code: RuntimeCode, traces=(), error_types=(), output_kind: str | None = None):
    """The static rule (a jitlint.rules.base.Rule) that predicts what this runtime finding saw, or None."""
    rules = [r for r in map(rule_by_code, code.related) if r is not None]
    if code.causes:
        causes = {c for t in traces for c in t.causes()}
        details = " ".join(t.detail or "" for t in traces)
        values = [v for t in traces for v in (t.static_values or ())]
        fits = [r for r in rules if causes & r.confirmed_by.retraces]
        if "static" in causes and fits:
            kinds = {c.kind for t in traces for c in t.changes if c.cause in ("static", "identity")}
            if kinds & FUNCTION_TYPES or any(v.startswith(("<function", "functools.partial", "<lambda"))
                                             for v in values):
                want = ("JIT201",)  # a new function object as a static argument
            elif "hashed by identity" in details:
                want = ("JIT203",)
            elif values and all(_is_float(v) for v in values) and any("." in v for v in values):
                want = ("JIT302",)
            else:
                want = ("JIT301",)
            fits = [r for r in fits if r.code in want] or fits
        return fits[0] if fits else None
    if error_types:
        exact = [r for r in rules if error_types[0] in r.raises]
        near = [r for r in rules if set(error_types) & set(r.raises)]
        return (exact or near or [None])[0]
    if output_kind is not None:
        return next((r for r in rules if (r.code == "JIT502") == (output_kind == "logging")), None)
    return None


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def by_code(code: str) -> RuntimeCode | None:
    return next((c for c in RUNTIME_CODES if c.code == code), None)
