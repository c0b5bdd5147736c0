"""The contexts a file's traced code gives functions of other project files (jitlint.analysis.foreign): the
calls the walks recorded, those the project index resolves to a project function, each with its caller's
witness placed in this file. A run hands them to the callee's file (jitlint.project.runner)."""

from __future__ import annotations

from jitlint.analysis.foreign import ForeignCall, Place, encode
from jitlint.analysis.values import Taint
from jitlint.analysis.witness import traced_path


def foreign_exports(analysis, index, path: str, placer) -> list[ForeignCall]:
    """`placer(nodes)`: a function giving each of those nodes' (line, col) in this file, or None. A call
    whose caller no entry is known to trace (its witness would not be complete) gives nothing: the callee
    would not be known traced."""
    pending = []
    for (caller, call, q, specs, values, traces_constants), target, chain in _candidates(analysis, index):
        steps = [*chain, (call, f"traced `{caller.name}` calls `{q.rpartition('.')[2]}`")]
        args = tuple((keyword, star, encode(v)) for (keyword, star), v in zip(specs, values))
        pending.append((target, args, traces_constants, caller.name, steps))
    if not pending:
        return []
    place = placer([node for *_, steps in pending for node, _ in steps if not isinstance(node, Place)])
    out: dict[tuple, ForeignCall] = {}
    for (module, function), args, traces_constants, caller, steps in pending:
        key = (module, function, args, traces_constants)
        if key in out:
            continue
        placed = []
        for node, text in steps:
            where = (node.line, node.col) if isinstance(node, Place) else place(node)
            if where is None:
                break
            placed.append((node.path if isinstance(node, Place) else path, where[0], where[1], text))
        else:
            out[key] = ForeignCall(module, function, args, traces_constants, caller, tuple(placed))
    return list(out.values())


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
