"""The contexts a file's traced code gives functions of other project files (jitlint.analysis.foreign): the
calls the walks recorded, those the project index resolves to a project function, each with its caller's
witness placed in this file. A run hands them to the callee's file (jitlint.project.runner)."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.foreign import ForeignCall, Place, encode
from jitlint.analysis.values import Taint
from jitlint.analysis import runs
from jitlint.analysis.cardinality import depends_on
from jitlint.analysis.repetition import VARIES, loop_varying
from jitlint.analysis.witness import GUARD_STEP, test_text, traced_path


def foreign_exports(analysis, index, path: str, placer) -> list[ForeignCall]:
    """`placer(nodes)`: a function giving each of those nodes' (line, col) in this file, or None. A call
    whose caller no entry is known to trace (its witness would not be complete) gives nothing: the callee
    would not be known traced. Calls from a data-driven loop to a function of another file that builds a
    jit wrapper when it runs are given as "repeated" calls (the loop and the call are the witness)."""
    pending = []
    for (caller, call, q, specs, values, traces_constants, test), target, (chain, guard) in \
            _candidates(analysis, index):
        steps = [*chain, (call, f"traced `{caller.name}` calls `{q.rpartition('.')[2]}`")]
        if test is not None:
            steps.insert(-1, (test, GUARD_STEP))
            guard = guard or test_text(analysis, test)
        args = tuple((keyword, star, encode(v)) for (keyword, star), v in zip(specs, values))
        pending.append((target, args, traces_constants, caller.name, steps, "traced", guard))
    for site, target in _repeated_candidates(analysis, index):
        # (the call alone: a quick tree places calls, not loops)
        steps = [(site.node, f"a loop calls `{target[1].rpartition('.')[2]}` on every iteration")]
        # which arguments change with the loop: a callable built from them differs between the runs
        varying = loop_varying(analysis, site)
        args = tuple((arg.keyword.value if arg.keyword is not None else None, arg.star,
                      VARIES if depends_on(analysis, site.func, arg.value, varying) else None) for arg in site.node.args)
        pending.append((target, args, False, site.func.name if site.func is not None else "<module>", steps, "repeated",
                        None))
    if not pending:
        return []
    place = placer([node for *_, steps, _, _ in pending for node, _ in steps if not isinstance(node, Place)])
    out: dict[tuple, ForeignCall] = {}
    for (module, function), args, traces_constants, caller, steps, kind, guard in pending:
        key = (module, function, args, traces_constants, kind)
        if key in out and (out[key].guard is None or guard is not None):
            continue  # (a context that reaches the call whatever the tests replaces one that needs a branch)
        placed = []
        for node, text in steps:
            where = (node.line, node.col) if isinstance(node, Place) else place(node)
            if where is None and text == GUARD_STEP:
                continue  # (the guard's text is in the call; a step the tree cannot place is left out)
            if where is None:
                break
            placed.append((node.path if isinstance(node, Place) else path, where[0], where[1], text))
        else:
            out[key] = ForeignCall(module, function, args, traces_constants, caller, tuple(placed), kind, guard)
    return list(out.values())


def _repeated_candidates(analysis, index):
    """(call site, callee (module, function)) for each eager call in a data-driven loop of this file to a
    plain function of another project module that builds a jit wrapper when it runs, or to such a method of
    an object of another module's class (`model = PoissonHMM(...)` then `model.fit_em(...)`: the callee is
    "Class.method" of the module whose class defines it, bases followed)."""
    makes_jit = getattr(index, "makes_jit", None)
    if makes_jit is None:
        return
    for site in analysis.call_sites.values():
        if site.loop is None or not site.eager or site.callee is not None or \
                runs.loops_are_sweeps(analysis, site.func, site.loops, site.node) or \
                runs.builds_collection(analysis, site.loop, site.node):
            continue
        if site.qualified and "." in site.qualified and makes_jit(site.qualified):
            target = index.resolve_function(site.qualified)
            if target is not None:
                yield site, target
                continue
        target = _method_target(analysis, index, site)
        if target is not None:
            yield site, target


def _method_target(analysis, index, site):
    """`obj.method(...)` where `obj` is bound (by the assignment that reaches the call) to an object of
    another project module's class whose method (its own or inherited) builds a jit wrapper when it runs:
    that (module, "Class.method")."""
    func = site.node.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name) or \
            getattr(index, "method_making_jit", None) is None:
        return None
    def class_of(source) -> str | None:
        q = site.scope.qualify(source.func) if isinstance(source, cst.Call) and isinstance(
            source.func, (cst.Name, cst.Attribute)) else None
        return q if q and "." in q else None

    sources = runs.assigned(analysis, site.func, func.value.value)
    if not any(class_of(src) for src in sources):  # (no object of a project class: most calls)
        return None
    if site.func is not None and func.value.value in site.func.assignments:
        reaching = runs.reaching_assignment(site.func, site.node, func.value.value)  # (in the loop, before it)
        sources = [reaching] if reaching is not None else []
    q = class_of(sources[0]) if len(sources) == 1 else None
    return index.method_making_jit(q, func.attr.value) if q else None


def _candidates(analysis, index):
    """(the recorded call, its callee (module, function), its caller's witness), for each call from traced
    code that an entry reaches into a plain function of another project module."""
    if index is None:
        return
    for recorded in analysis.foreign_calls.values():
        caller, _, q = recorded[:3]
        if caller is None or caller.callback or not caller.traced or not any(isinstance(v, Taint) for v in recorded[4]):
            continue  # (with no traced argument the callee computes on Python values: not worth a re-lint)
        target = index.resolve_function(q)
        if target is None:
            continue
        chain = traced_path(analysis, caller)
        if chain is not None:
            yield recorded, target, chain
