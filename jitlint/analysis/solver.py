"""The worklist: walks a module's code until the recorded values stop growing (``Scheduler``'s implementation).

Functions are evaluated from a worklist: module-level code and untraced functions once, eagerly (to
find transforms); trace contexts with their parameters' values; helpers called from traced code with
the values their callers pass, until nothing grows. Values only grow, so the walk terminates, and the
per-node results (in ``jitlint.analysis.model.ModuleFacts``) are the union over every way the code is traced.
"""

from __future__ import annotations

import dataclasses
from typing import Hashable

from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval import Evaluator
from jitlint.analysis.eval.binding import bind_arguments
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import (JOINED, MAX_VARIANTS, FunctionInfo, TraceEdge, Value, Variant, merge_values,
                                     value_taint, variant_key)
from jitlint.analysis.scheduler import ContextStart
from jitlint.analysis.values import TRACED, Const, KnownTruth, ModuleRef, NotNone, Taint, join

MAX_SETTLE_DEPTH = 6  # callees walked at once, nested; deeper call chains fall back to the worklist


class Solver:
    """Runs the evaluator over one module's facts, per function and calling context, to a fixed point."""

    def __init__(self, facts: ModuleFacts):
        self.facts = facts
        self._worklist: list[tuple[FunctionInfo, Variant]] = []
        self._queued: set[tuple[int, tuple]] = set()
        # fact -> the (reader, reader's context key) pairs whose walks read it (dicts as ordered sets: the
        # order re-walks are queued in must not depend on memory addresses)
        self._readers: dict[Hashable, dict[tuple[FunctionInfo, tuple], None]] = {}
        # How each context was started, to restart it when a defaulted parameter turns out passed.
        self._starts: dict[int, list[ContextStart]] = {}
        self._budget = self._budget_total = 0
        self._settle_depth = 0
        self._eager_again: list[FunctionInfo] = []

    # ---------------------------------------------------------------- the run
    def run(self) -> None:
        facts = self.facts
        Evaluator(facts, self, None).run_module()
        self._start_incoming()
        self._budget = 50 * (len(facts.functions) + 10)  # bounds re-walks, whatever the code looks like
        self._budget_total = self._budget
        # Eager code first: what it passes to jitted functions (objects of known classes, factories'
        # arguments) is then known when the traced bodies are walked, so no walk sees less than the run.
        # Every function not reached by tracing is walked once, eagerly, to find transforms; walking may
        # create lambda infos, so iterate by position, and again after tracing reached more code.
        # Constructors first: what `self.x = ...` stores is read by the other methods.
        for info in facts.functions:
            if info.class_name and info.name in ("__init__", "setup", "__post_init__") and not info.traced:
                info.eager_done = True
                Evaluator(facts, self, info).run_function()
        i = 0
        deferred: list[FunctionInfo] = []
        while True:
            while i < len(facts.functions) or self._eager_again:
                if i < len(facts.functions):
                    info = facts.functions[i]
                    i += 1
                    if info.eager_done or info.traced:
                        continue
                    if info.parent is not None and info.parent.traced and not info.parent.eager_done:
                        # a def nested in a function that only runs traced so far (a scan body inside the
                        # vmapped solver a jit wraps): the tracing walks reach it; walked eagerly only if
                        # they do not, so its calls are not taken for eager ones (jaxvacua, fresh set BC)
                        deferred.append(info)
                        continue
                else:
                    # walked already, before a later eager caller told what it passes (a function handed to
                    # a helper defined above the caller): walked again with it
                    info = self._eager_again.pop(0)
                    if info.traced:
                        continue
                info.eager_done = True
                Evaluator(facts, self, info).run_function()
            if not self._worklist:
                waiting = [d for d in deferred if not d.traced and not d.eager_done]
                deferred = []
                if not waiting:
                    return
                self._eager_again.extend(waiting)
                continue
            self._drain()
            if self._budget <= 0:
                return

    def _start_incoming(self) -> None:
        """Trace the module's functions that other modules' traced code calls, with the values it passes
        (jitlint.analysis.foreign): the same request a call from this module would make."""
        for call in self.facts.incoming:
            if call.kind != "traced":
                continue  # (a call from a loop: the rules read it, nothing is traced)
            info = self.facts.module_defs.get(call.function)
            if info is None or info.class_name is not None:
                continue
            params = bind_arguments(info, list(info.positional), [(k, s) for k, s, _ in call.args],
                                    [v for _, _, v in call.values()], {})
            context = Context(ContextKind.HELPER, caller=call.caller, traces_constants=call.traces_constants)
            self.request(info, context, params, None, call.traces_constants,
                         TraceEdge("foreign", info.node, "", None, call))

    def _drain(self) -> None:
        """Walk queued (function, context) pairs until values stop growing (or the budget runs out)."""
        while self._worklist and self._budget > 0:
            self._budget -= 1
            info, variant = self._worklist.pop()
            self._queued.discard((id(info), variant.key))
            Evaluator(self.facts, self, info, variant).run_function()

    @property
    def out_of_budget(self) -> bool:
        """Did the worklist stop at its budget (`run`) rather than when nothing grew?"""
        return self._budget <= 0

    @property
    def budget_used(self) -> int:
        return self._budget_total - self._budget

    # ---------------------------------------------------------------- Scheduler
    def settle(self, info: FunctionInfo, variant: Variant | None) -> None:
        """Walk a just-requested callee now, so its caller reads its real return value on this walk (a
        guess now would stay in the recorded values, which only grow). Bounded: deep call chains fall
        back to the worklist."""
        if variant is None or variant.returns_known or info.callback or self._settle_depth >= MAX_SETTLE_DEPTH \
                or self._budget <= 0:
            return
        self._settle_depth += 1
        self._budget -= 1
        try:
            Evaluator(self.facts, self, info, variant).run_function()
        finally:
            self._settle_depth -= 1

    def enqueue(self, info: FunctionInfo, variant: Variant | None = None) -> None:
        """Queue one context of `info` (or every context, when something all of them read changed)."""
        for v in ([variant] if variant is not None else list(info.variants.values())):
            if (id(info), v.key) not in self._queued:
                self._queued.add((id(info), v.key))
                self._worklist.append((info, v))

    def reads(self, fact: Hashable, reader: FunctionInfo, key: tuple) -> None:
        self._readers.setdefault(fact, {})[(reader, key)] = None

    def changed(self, fact: Hashable) -> None:
        for reader, key in self._readers.get(fact, ()):
            if key in reader.variants:  # walked with what the fact was before
                self.enqueue(reader, reader.variants[key])

    def walk_eager_again(self, info: FunctionInfo) -> None:
        if info not in self._eager_again:
            self._eager_again.append(info)

    def started(self, info: FunctionInfo, start: ContextStart) -> None:
        self._starts.setdefault(id(info), []).append(start)

    def request(self, info: FunctionInfo, context: Context, params: dict[str, Value],
                closure: dict[str, Value] | None = None, traces_constants: bool = True,
                via: TraceEdge | None = None) -> Variant | None:
        """Trace `info` in the calling context these parameter values describe; returns that context's
        summary (shared with earlier callers of the same kind)."""
        if info.callback:
            return None
        if self.facts.skips_when_traced(info) and any(isinstance(v, Taint) for v in params.values()):
            return None  # its decorator returns before running it when handed a tracer (`@skip_if_traced`)
        every = not info.traced  # what every context reads changed: re-walk them all
        info.traced = True
        if context not in info.contexts:
            info.contexts.append(context)
            every = True
        if traces_constants and not info.traces_constants:
            info.traces_constants = True
            every = True
        truths: dict[str, KnownTruth | NotNone | Const] = {}
        if closure:
            for name, value in closure.items():
                if isinstance(value, (KnownTruth, NotNone)) or isinstance(value, Const) and \
                        (isinstance(value.value, ModuleRef) or _scalar(value.value) and name in info.names_read):
                    # what this branch decided (`if nbrs is None: return ...` before `lax.cond(..., fn, ...)`),
                    # the array module a caller chose (`xp`), a Python constant the enclosing context holds
                    # (`sampling_factor` None in one caller, 2.0 in another: a name bound from a traced value
                    # in one only is tested behind it): part of this context, not of every one
                    truths[name] = value
                    continue
                if name not in info.closure:
                    info.closure[name] = value
                    every = every or isinstance(value, (Taint, Const))
                    continue
                old = info.closure[name]
                merged = merge_values(old, value)
                if merged is not old and not (isinstance(old, Taint) and old == merged):
                    info.closure[name] = merged
                    every = every or isinstance(merged, Taint) or isinstance(old, Const)
        variant, changed = self._variant(info, params, truths, traces_constants)
        if via is not None:
            edges = self.facts.trace_edges.setdefault(info, {})
            where = (via.kind, id(via.node), via.caller_variant, variant.key)
            known = edges.get(where)
            # (the first step of this kind, or a context that reaches the call whatever the tests)
            if known is None or _guard_of(known) is not None and _guard_of(via) is None:
                edges[where] = dataclasses.replace(via, variant=variant.key)
        if traces_constants and info.parent is None and info.class_name is None:
            # (under plain `jax.grad` the rules get concrete arrays, as the primal's arguments do)
            for rule, role, node in self.facts.derivative_rules(info):
                # (JAX calls the rule on `info`'s behalf: "called from traced `f`")
                rule_context = Context(ContextKind.HELPER, caller=info.name, traces_constants=context.traces_constants)
                self.request(rule, rule_context, _rule_params(info, rule, role, params), None, traces_constants,
                             TraceEdge("rule", node, role, info, guard=via.guard if via is not None else None,
                                       caller_variant=variant.key))
        if every:
            self.enqueue(info)
        elif changed:
            self.enqueue(info, variant)
        return variant

    def _variant(self, info: FunctionInfo, params: dict[str, Value],
                 truths: dict[str, KnownTruth | NotNone | Const] | None = None,
                 traces_constants: bool = True) -> tuple[Variant, bool]:
        key = variant_key(info.params, params)
        if traces_constants:
            key = (*key, ("staged",))
        if truths:
            key = (*key, ("closure", tuple(sorted((n, _closure_fact(t)) for n, t in truths.items()))))
        variant = info.variants.get(key)
        if variant is None and len(info.variants) >= MAX_VARIANTS:
            key = JOINED
            variant = info.variants.get(key)
        if variant is None:
            variant = info.variants[key] = Variant(key, {n: params.get(n) for n in info.params},
                                                   closure=dict(truths or {}) if key != JOINED else {},
                                                   traces_constants=traces_constants)
            return variant, True
        changed = False
        if traces_constants and not variant.traces_constants:  # (the joined one: staged if any is)
            variant.traces_constants = changed = True
        for name in info.params:
            old, new = variant.params.get(name), params.get(name)
            if key == JOINED:
                merged = join(value_taint(old), value_taint(new)) or (old if old == new else None)
            else:
                merged = join(old, new) if isinstance(old, Taint) else old
            if merged != old:
                variant.params[name] = merged
                changed = True
        return variant, changed

    def refresh(self, info: FunctionInfo) -> None:
        """A caller told more about the parameters (a default is passed, a Module's class): restart its
        contexts. Contexts not walked yet are replaced, not kept beside the better ones."""
        if not any(v.returns_known for v in info.variants.values()):
            self._worklist = [(i, v) for i, v in self._worklist if i is not info]
            self._queued = {(q, key) for q, key in self._queued if q != id(info)}
            info.variants.clear()
        for start in self._starts.get(id(info), []):
            Evaluator(self.facts, self, start.parent).restart_context(start)


def _guard_of(edge: TraceEdge):
    """The undecided test a step passes (for a call from another file, the one on its caller's way)."""
    return edge.foreign.guard if edge.kind == "foreign" else edge.guard


def _rule_params(primal: FunctionInfo, rule: FunctionInfo, role: str, params: dict[str, Value]) -> dict[str, Value]:
    """What a custom derivative rule receives where JAX differentiates a traced call of `primal`: the forward
    rule, the primal's arguments; the backward rule, the residuals (whatever the forward rule kept: of
    unknown kind) and the output cotangents, traced; a JVP rule, tuples of the traced primals and
    tangents. Arguments before those (`nondiff_argnums`) stay unknown."""
    if role == "fwd":
        return {r: params[p] for p, r in zip(primal.positional, rule.positional) if p in params}
    names = rule.positional
    if len(names) < 2:
        return {}
    first, second = names[-2], names[-1]
    if role == "bwd":
        return {first: Taint(TRACED, first, opaque=True), second: Taint(TRACED, second)}
    values = tuple(params.get(p) if isinstance(params.get(p), Taint) else None for p in primal.positional)
    return {first: Taint(TRACED, first, container=True, elements=values or None),
            second: Taint(TRACED, second, container=True)}


def _scalar(value: object) -> bool:
    return value is None or type(value) in (bool, int, float, str)


def _closure_fact(value: KnownTruth | NotNone | Const) -> object:
    """What a context-specific closure value contributes to its context's key."""
    if isinstance(value, KnownTruth):
        return value.truth
    if isinstance(value, Const):
        # (a scalar by its repr: a NaN is not equal to itself, and would make every request a new context)
        return value.value.name if isinstance(value.value, ModuleRef) else ("const", type(value.value).__name__,
                                                                           repr(value.value))
    return "not-none"
