"""Witnesses: the path that makes a finding true, from where the code is traced (or repeated) to the line.

A finding in traced code is true in some context: a transform or a control-flow call traces a function
(the entry), which calls a helper, which calls the next ... down to the function holding the line. The
walks record each step as a ``TraceEdge`` (``ModuleFacts.trace_edges``); ``traced_path`` finds the
shortest chain of them from an entry to a function. A finding about repetition (a jit re-created in a
loop, a static argument changing per iteration) is true because a loop repeats it: ``loop_step``.

Steps are (node, text) pairs; the lint layer turns the nodes into positions (a ``foreign.Place``, a step in
another file, is one already). No step's text decides
anything: the rules decided already, the witness says why.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import NamedTuple

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.contexts import ContextKind
from jitlint.analysis.foreign import Place
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import FunctionInfo, TraceEdge
from jitlint.analysis.sites import Site
from jitlint.analysis.repetition import repetitions
from jitlint.source.cstwalk import descendants

Step = tuple[cst.CSTNode, str]
# the step at an undecided test a chain passes (traced_path): the call after it runs on one branch only
GUARD_STEP = "the call after this runs only on one branch of this test, which jitlint cannot decide"


def traced_path(facts: ModuleFacts, func: FunctionInfo, variant: tuple | None = None) -> \
        tuple[list[Step], str | None] | None:
    """The shortest chain of steps from an entry that traces `func` (entry first), or None when no entry is
    known. Steps go through traced callers ("call") and through the traced function a nested one is
    defined in ("defined"), each from the calling context that reaches the next (`TraceEdge.variant`): a
    chain is one context all the way, not a caller's step from one context joined to another's. With it,
    None -- or, when every chain passes a call under a test the walk could not decide (`if
    self.model.is_precessing:`), that test's source: `func` is traced only on the branch it takes, so what
    its lines would raise there is not certain (the test is a step of the chain). `variant`: the chain
    must end in that context of `func`."""
    found = _search(facts, func, variant, False)
    return (found, None) if found is not None else _search(facts, func, variant, True)


def _search(facts: ModuleFacts, func: FunctionInfo, variant: tuple | None, guarded: bool):
    """Breadth first from `func` back to an entry; through guarded calls only when `guarded` (then the
    result is (steps, the guard nearest `func`))."""
    seen = {(id(func), variant)}
    queue: deque[tuple[FunctionInfo, tuple | None, list[Step], str | None]] = deque([(func, variant, [], None)])
    while queue:
        current, wanted, after, guard = queue.popleft()
        edges = [edge for edge in facts.trace_edges.get(current, {}).values()
                 if wanted is None or edge.variant == wanted]
        for edge in edges:
            if edge.kind == "entry":
                steps = [(edge.node, f"{edge.how} traces `{current.name}`"), *after]
                return (steps, guard) if guarded else steps
        for edge in edges:
            if edge.kind == "foreign" and (guarded or edge.foreign.guard is None):
                # the caller's witness, in its own file (foreign.Place steps)
                steps = [*edge.foreign.places(), *after]
                return (steps, guard or edge.foreign.guard) if guarded else steps
        for edge in edges:
            caller = edge.caller
            if caller is None or (id(caller), edge.caller_variant) in seen or edge.guard is not None and not guarded:
                continue
            seen.add((id(caller), edge.caller_variant))
            step = [_step(edge, current)]
            test = guard
            if edge.guard is not None:
                test = test or test_text(facts, edge.guard)
                step.insert(0, (edge.guard, GUARD_STEP))
            queue.append((caller, edge.caller_variant, [*step, *after], test))
    return None


class _StepText(str):
    """A step's text, knowing the edge it says: its kind ("call", "defined", "rule") and the traced function
    on the caller's side (what a report's message names: `claim_site`)."""

    kind: str = ""
    caller: str | None = None


def _said(text: str, kind: str, caller: str | None) -> _StepText:
    out = _StepText(text)
    out.kind, out.caller = kind, caller
    return out


def _step(edge: TraceEdge, target: FunctionInfo) -> Step:
    caller = edge.caller.name if edge.caller is not None else None
    shown = caller or "module code"
    if edge.kind == "defined":
        return edge.node, _said(f"`{target.name}` is defined inside traced `{shown}`", "defined", caller)
    if edge.kind == "rule":  # (`how`: its role)
        role = {"fwd": "forward", "bwd": "backward", "jvp": "JVP"}.get(edge.how, edge.how)
        return edge.node, _said(f"`{target.name}` is the {role} rule of traced `{shown}`: JAX traces it where it "
                                f"differentiates `{shown}`", "rule", caller)
    return edge.node, _said(f"traced `{shown}` calls `{target.name}`", "call", caller)


def test_text(facts: ModuleFacts, test: cst.BaseExpression) -> str:
    """A test's source on one line, shortened for a message."""
    text = " ".join(facts.module.code_for_node(test).split())
    return text if len(text) <= 60 else text[:57] + "..."


def loop_step(loop: cst.CSTNode) -> Step:
    """The loop that repeats a finding's line (its `for`/`while` statement)."""
    return loop, "this loop runs it on every iteration"


class Witness(NamedTuple):
    steps: list[Step]
    unreached: bool  # a claim about traced code that no entry is known to reach
    guard: str | None = None  # an undecided test every known chain from an entry passes (traced_path)


def witness_of(facts: ModuleFacts, node: cst.CSTNode, claim: str) -> Witness:
    """The steps that make a report at `node` true, whether its claim is about traced code that no entry
    is known to reach, and the undecided test on the way to it if any. `claim` (a rule's `witness`): "traced" -- the path from an entry that traces
    the function holding `node`; "repeated" -- the loop around the call or jit creation it belongs to;
    "call" -- nothing (the call itself says it)."""
    if claim == "traced":
        site = facts.sites.get(node) or facts.sites.get(facts.owner_of(node))
        func = site.func if site is not None else facts.function_of(node)
        if func is None or not func.traced or func.callback:
            return Witness([], False)
        path = _path_of_claim(facts, func, node)[0]
        return Witness(path[0], False, path[1]) if path is not None else Witness([], True)
    if claim == "repeated":
        call = facts.call_sites.get(node) or facts.call_sites.get(facts.owner_of(node))
        loop = call.loop if call is not None else None
        creation = facts.jit_creations.get(node) or next(  # (a decorated def's is reported at its decorator)
            (c for c in facts.jit_creations.values() if c.node is node), None)
        if loop is None and creation is not None:
            loop = creation.loop
        if loop is not None:
            loop = _repeating_loop(facts, call if call is not None and call.loop is not None else creation, node,
                                   loop)
        if loop is None:
            # the function holding it runs repeatedly: the loop that calls it (here or in another file) and
            # the calls on the way
            func = creation.func if creation is not None else call.func if call is not None else None
            repetition = repetitions(facts).get(func) if func is not None else None
            if repetition is not None:
                return Witness([*repetition.steps, (node, f"runs on every call of `{func.name}`")], False)
        return Witness([loop_step(loop)] if loop is not None else [], False)
    return Witness([], False)


def claim_site(facts: ModuleFacts, node: cst.CSTNode) -> Site:
    """The site of `node` as a report there states it: in the calling context its witness goes into,
    where the walks of several contexts recorded it, and named after the caller that chain goes through
    (one context of a helper may be reached from several callers)."""
    found = facts._claim_sites.get(node)
    if found is None:
        site = facts.sites[node]
        variants = facts.variant_sites.get(node) or {}
        found = site
        if len(variants) > 1 or site.context.caller is not None and len(facts.trace_edges.get(site.func, ())) > 1:
            key, last = claim_variant(facts, site.func, node)
            found = variants.get(key, site) if key is not None else site
            context = found.context
            if last is not None and context.caller not in (None, last[1]) and \
                    (context.kind, last[0]) in ((ContextKind.HELPER, "call"), (ContextKind.NESTED, "defined")):
                found = dataclasses.replace(found, context=dataclasses.replace(context, caller=last[1]))
        facts._claim_sites[node] = found
    return found


def claim_variant(facts: ModuleFacts, func: FunctionInfo, node: cst.CSTNode) -> \
        tuple[tuple | None, tuple[str, str] | None]:
    """The calling context (a Variant key) a report at `node` is about -- the one its witness goes into --
    and its last step: ("call", the traced function that calls `func`) or ("defined", the one defining
    it); None where an entry traces it, or no chain reaches it."""
    path, key = _path_of_claim(facts, func, node)
    text = path[0][-1][1] if path is not None and path[0] else None
    if isinstance(text, _StepText) and text.caller is not None and text.kind in ("call", "defined"):
        return key, (text.kind, text.caller)
    return key, None  # (an entry, another file's place, a rule of differentiation)


def _claim_contexts(facts: ModuleFacts, node: cst.CSTNode) -> dict[tuple, int]:
    """The calling contexts (Variant keys, with the taint level) in which the walk found the values at `node`
    traced."""
    inner: dict[tuple, int] = {}
    for part in descendants(node):
        if part is node:
            continue
        for key, level in facts.taint_contexts.get(part, {}).items():
            inner[key] = max(level, inner.get(key, level))
    own = facts.taint_contexts.get(node)
    # The node's own value where it has one, in the contexts where what it is made of is traced too: a
    # report at `jnp.ones((length,))` is about its shape, traced only where `length` is (a wrapper with
    # `static_argnums=(0,)` beside one without, fresh set BY), while the array it makes is traced in both.
    contexts = ({key: level for key, level in own.items() if key in inner} or dict(own)) if own else inner
    return contexts


def _path_of_claim(facts: ModuleFacts, func: FunctionInfo, node: cst.CSTNode):
    """The chain to the calling contexts in which the walk found the values at `node` traced (a helper
    called with a traced mask from one caller and with precomputed indices from another is wrong in the
    first only: its witness is that caller's chain): an unguarded one first, then the shortest. Where no
    value at `node` is traced (a `print` in traced code), or no chain reaches those contexts, the chain to
    any context. (the chain or None, the context it goes into or None)"""
    contexts = _claim_contexts(facts, node)
    # (the contexts where it is traced as the report says: under a jit, not only where grad traces it)
    top = max(contexts.values(), default=0)
    paths = [(path, key) for key, level in contexts.items() if level == top
             if (path := traced_path(facts, func, key)) is not None]
    best = min(paths, key=lambda found: (found[0][1] is not None, len(found[0][0])), default=None)
    return best if best is not None else (traced_path(facts, func), None)


def dispatch_guard(facts: ModuleFacts, node: cst.CSTNode) -> tuple[str, str] | None:
    """The undecided test a report in traced code sits under -- of a traced value's shape (`if j.ndim ==
    0:`), of a value's type (`if isinstance(sig, np.ndarray):`) or of a flag the callers choose (`if
    flag:`) -- as (its source, "shapes", "types" or "flags"), or None: the line runs only for what passes
    it, so its claim is not certain."""
    owner = node if node in facts.sites else facts.owner_of(node)
    site = claim_site(facts, owner) if owner in facts.sites else None
    guard = site.dispatch_guard if site is not None else None
    if guard is None:
        return None
    test, tested = guard
    return " ".join(facts.module.code_for_node(test).split()), tested


def _repeating_loop(facts: ModuleFacts, where, node: cst.CSTNode, innermost: cst.CSTNode) -> cst.CSTNode:
    """The innermost enclosing loop that repeats the same work (`for epoch in range(n)` around `for key in
    d.keys()`: the epoch loop), not a sweep over configurations, a pass over names or a retry."""
    for loop in reversed(getattr(where, "loops", ()) or ()):
        if runs.repeats_same_work(facts, where.func, loop, node):
            return loop
    return innermost


def caught_here(facts: ModuleFacts, node: cst.CSTNode, raises: tuple[str, ...]) -> str | None:
    """Whether `node` sits in the body of a `try` (in its own function) with an `except` that catches one
    of the errors `raises` names (that class or a base of it, or a bare `except`): the code handles what a
    trace makes it raise there (`try: jnp.flatnonzero(w) except ConcretizationTypeError: raise ValueError`).
    "jax" where the handler names JAX's own error class (`except jax.errors.TracerBoolConversionError:`:
    the code checks only what is concrete, on purpose), "broad" where it catches it otherwise (`except
    Exception:`, a bare `except`), None where nothing catches it."""
    caught = {c for name in raises for c in jaxapi.ERROR_CLASSES.get(name, (name,))}
    info = facts.function_of(node)
    scope = info.scope if info is not None else facts.scope
    found: str | None = None

    class _Tries(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return info is not None and n is info.node

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return info is not None and n is info.node

        def visit_ClassDef(self, n: cst.ClassDef) -> bool:
            return False

        def visit_Try(self, n: cst.Try) -> bool:
            nonlocal found
            if not found and _holds(n.body, node):
                kinds = [k for k in (_catches(_handled(facts, h.type), scope, caught) for h in n.handlers)
                         if k is not None]
                if kinds:
                    found = "jax" if "jax" in kinds else "broad"
            return not found

    (info.node if info is not None else facts.module).visit(_Tries())
    return found


def handled_at_entry(facts: ModuleFacts, steps: list[Step], raises: tuple[str, ...], notebook: bool,
                     node: cst.CSTNode | None = None) -> str | None:
    """`caught_here` for the traces that raise: every entry tracing the witness's first function starts inside
    a `try` that catches the error (`try: jax.jit(g)(1.0) except TracerBoolConversionError: ...`), or, in a
    notebook (nothing imports it), is a jit decorator whose def is only called so, or a wrapper bound to a
    name only called so (`bad = jit(f)`, then `try: bad(10, 4) except Exception:`) -- code demonstrating the
    error (jax-course's solutions, fresh set BW; a quickstart's traced shape, fresh set BY). Where the report
    at `node` sits in that function, only the entries of the contexts in which its values are traced count
    (not `jit(f, static_argnums=(0,))` beside it, where they are static). None where some entry is not
    handled, or starts in another file."""
    if not steps or not raises or isinstance(steps[0][0], Place):
        return None
    first = steps[0][0]
    traced = next((f for f in facts.functions if any(e.kind == "entry" and e.node is first
                                                     for e in facts.trace_edges.get(f, {}).values())), None)
    edges = list(facts.trace_edges.get(traced, {}).values()) if traced is not None else []
    if any(e.kind == "foreign" for e in edges):
        return None
    claimed = _claim_contexts(facts, node) if node is not None and facts.function_of(node) is traced else {}
    kinds = []
    for edge in (e for e in edges if e.kind == "entry" and (not claimed or e.variant in claimed)):
        if isinstance(edge.node, cst.Call):
            kind = caught_here(facts, edge.node, raises)
            calls = _calls_of_bound_wrapper(facts, edge.node) if kind is None and notebook else []
            kinds += [caught_here(facts, call, raises) for call in calls] or [kind]
        elif isinstance(edge.node, cst.Decorator) and notebook:  # (the decorated def is the traced function)
            sites = [s.node for s in facts.call_sites.values() if s.callee is not None and s.callee.info is traced]
            kinds += [caught_here(facts, site, raises) for site in sites] or [None]
        else:
            kinds.append(None)
    if not kinds or None in kinds:
        return None
    return "jax" if all(k == "jax" for k in kinds) else "broad"


def _calls_of_bound_wrapper(facts: ModuleFacts, creation: cst.Call) -> list[cst.Call]:
    """The calls of the module-level name a wrapper is bound to once (`bad = jit(f)`, then `bad(10, 4)`),
    where nothing else uses the name; [] otherwise."""
    names = [name for name, values in facts.module_assignments.items() if any(v is creation for v in values)]
    if len(names) != 1 or len(facts.module_assignments[names[0]]) != 1:
        return []
    uses = [n for n in descendants(facts.module) if isinstance(n, cst.Name) and n.value == names[0]]
    calls = [site.node for site in facts.call_sites.values()
             if isinstance(site.node.func, cst.Name) and site.node.func.value == names[0]]
    return calls if len(uses) == len(calls) + 1 else []  # (the name bound, and only called)


def _handled(facts: ModuleFacts, kind: cst.BaseExpression | None, depth: int = 0) -> cst.BaseExpression | None:
    """The exception classes an `except` names, as a display where it names a module-level constant built
    from one (`except _TRACER_ERRORS:` of `_TRACER_ERRORS = tuple(_errors)`, `_errors = [TypeError,
    jax.errors.ConcretizationTypeError]`: xpcsjax's array-hash helper, fresh set AZ). Appending to such a
    list only adds classes, so its display's classes are caught at least."""
    if depth > 3 or kind is None:
        return kind
    if isinstance(kind, cst.Call) and isinstance(kind.func, cst.Name) and kind.func.value in ("tuple", "list") \
            and len(kind.args) == 1 and not kind.args[0].star and kind.args[0].keyword is None:
        return _handled(facts, kind.args[0].value, depth + 1)
    if isinstance(kind, cst.Name):
        values = facts.module_assignments.get(kind.value, [])
        if len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List, cst.Call, cst.Name)):
            resolved = _handled(facts, values[0], depth + 1)
            if isinstance(resolved, (cst.Tuple, cst.List)):
                return cst.Tuple([cst.Element(el.value) for el in resolved.elements
                                  if isinstance(el, cst.Element)])
    return kind


def _catches(kind: cst.BaseExpression | None, scope, caught: set[str]) -> str | None:
    """"jax" (a JAX error class among `caught`), "broad" (another of them, or a bare `except:`) or None."""
    if kind is None:
        return "broad"  # a bare `except:`
    kinds = [el.value for el in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    found = None
    for k in kinds:
        name = scope.qualify(k) if isinstance(k, (cst.Name, cst.Attribute)) else None
        if name is None and isinstance(k, cst.Name):
            name = k.value  # a builtin: TypeError, Exception
        if name in caught:
            if name.startswith("jax."):
                return "jax"
            found = "broad"
    return found


def _holds(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal found
            if n is node:
                found = True
            return not found

    tree.visit(_Find())
    return found
