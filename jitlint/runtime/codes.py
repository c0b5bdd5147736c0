"""The codes only the runtime mode reports (JIT9xx): what the program did that no static rule saw.

They are not static rules (the engine never reports them); `jitlint run` emits them from what it
observed, and `# noqa` and `--select`/`--ignore` apply to them as to any code.
"""

from __future__ import annotations

from dataclasses import dataclass

from jitlint.finding import Severity


@dataclass(frozen=True)
class RuntimeCode:
    code: str
    name: str
    summary: str
    severity: Severity


SHAPE_CHANGE = RuntimeCode(
    "JIT901", "recompiled-on-shape-change",
    "a jitted function was traced again because an argument's shape changed (e.g. a ragged last batch)",
    Severity.WARNING)
DTYPE_CHANGE = RuntimeCode(
    "JIT902", "recompiled-on-dtype-change",
    "a jitted function was traced again because an argument's dtype or weak type changed",
    Severity.WARNING)
STATIC_CHANGE = RuntimeCode(
    "JIT903", "recompiled-on-static-or-structure-change",
    "a jitted function was traced again because a static argument's value or the argument structure changed",
    Severity.WARNING)
NEW_FUNCTION = RuntimeCode(
    "JIT904", "recompiled-new-function-object",
    "a jitted function was traced again because a new function object was jitted (same source line)",
    Severity.WARNING)
OTHER_RECOMPILE = RuntimeCode(
    "JIT905", "recompiled-other-cause",
    "a jitted function was traced again for another reason (JAX config or context, or unexplained)",
    Severity.INFO)
TRACE_ERROR = RuntimeCode(
    "JIT906", "trace-time-error",
    "a JAX tracing error was raised at this line",
    Severity.ERROR)
TRACER_OUTPUT = RuntimeCode(
    "JIT907", "tracer-printed",
    "a traced value was printed or logged at trace time",
    Severity.WARNING)

RUNTIME_CODES: tuple[RuntimeCode, ...] = (SHAPE_CHANGE, DTYPE_CHANGE, STATIC_CHANGE, NEW_FUNCTION, OTHER_RECOMPILE,
                                          TRACE_ERROR, TRACER_OUTPUT)

# the cause of a recompile (see jitlint.runtime.evidence) -> the code that reports it
CODE_FOR_CAUSE = {
    "shape": SHAPE_CHANGE,
    "dtype": DTYPE_CHANGE,
    "weak_type": DTYPE_CHANGE,
    "static": STATIC_CHANGE,
    "structure": STATIC_CHANGE,
    "new_function": NEW_FUNCTION,
    "context": OTHER_RECOMPILE,
    "unknown": OTHER_RECOMPILE,
}
