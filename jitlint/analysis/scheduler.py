"""What the evaluator asks of whoever runs it: the interface between one walk and the worklist.

A walk (``jitlint.analysis.eval.Evaluator``) meets code that is traced elsewhere: it *requests* a function's
context (a jit, a lax body, a helper called with these values), asks for a callee to be *settled* (walked
now) so as to read its return value, says which facts it *reads* and which it *changed* (a return value,
the apply functions a TrainState holds), *enqueues* a function whose values grew, and asks for a function's
contexts to be *refreshed* (restarted as started, ``ContextStart``) when callers told more about its
parameters. ``jitlint.analysis.solver.Solver`` implements it; the walk never sees more of it than this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Protocol

import libcst as cst

from jitlint.analysis.contexts import Context
from jitlint.analysis.objects import FuncValue, FunctionInfo, TraceEdge, Value, Variant


@dataclass(frozen=True)
class ContextStart:
    """How a transform started a context of `fv`'s function, to start it again (`Scheduler.refresh`)."""

    parent: FunctionInfo | None  # the function whose walk met the transform (None: module level)
    fv: FuncValue
    chain: tuple[tuple[str, cst.Call | None], ...]  # the transforms applied, outermost first
    node: cst.CSTNode  # the decorator or the call
    decorated: bool


def returns_of(info: FunctionInfo, variant: Variant) -> Hashable:
    """The fact "what `info` returns in `variant`" (`Scheduler.reads` / `changed`)."""
    return ("returns", id(info), variant.key)


# The fact "which linen Module classes a TrainState holds the apply function of" (ModuleFacts.apply_fn_classes).
APPLY_FN_CLASSES = ("apply_fn_classes",)


class Scheduler(Protocol):
    """The worklist as one walk sees it."""

    def request(self, info: FunctionInfo, context: Context, params: dict[str, Value],
                closure: dict[str, Value] | None = None, traces_constants: bool = True,
                via: TraceEdge | None = None) -> Variant | None:
        """Trace `info` in the calling context these parameter values describe: that context's summary
        (shared with earlier requests of the same kind), None when `info` is never traced (a callback).
        `via`: where this tracing comes from, for the witnesses of findings in `info`."""
        ...

    def enqueue(self, info: FunctionInfo, variant: Variant | None = None) -> None:
        """Walk `info` again in `variant` (in every context when None): something it reads grew."""
        ...

    def settle(self, info: FunctionInfo, variant: Variant | None) -> None:
        """Walk a just-requested callee now, when its return value is still unknown (within the budget)."""
        ...

    def reads(self, fact: Hashable, reader: FunctionInfo, key: tuple) -> None:
        """The walk of `reader` in its context `key` reads `fact`: walk it again when the fact changes."""
        ...

    def changed(self, fact: Hashable) -> None:
        """`fact` changed: walk again the contexts that read it."""
        ...

    def started(self, info: FunctionInfo, start: ContextStart) -> None:
        """A transform started a context of `info` this way (for `refresh`)."""
        ...

    def walk_eager_again(self, info: FunctionInfo) -> None:
        """An eager caller told more of what `info`'s parameters hold (a function, an object) after its
        eager walk: walk it again."""
        ...

    def refresh(self, info: FunctionInfo) -> None:
        """Callers told more about `info`'s parameters (a default is passed, a Module's class, a scalar):
        start its contexts again as they were started."""
        ...

    @property
    def out_of_budget(self) -> bool:
        """Did the walks stop at the budget rather than when nothing grew?"""
        ...
