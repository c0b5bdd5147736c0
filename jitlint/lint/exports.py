"""The contexts a file's traced code gives functions of other project files (jitlint.analysis.foreign): the
calls the walks recorded, those the project index resolves to a project function, each with its caller's
witness placed in this file. A run hands them to the callee's file (jitlint.project.runner)."""

from __future__ import annotations

from jitlint.analysis.foreign import ForeignCall, Place, encode
from jitlint.analysis.witness import traced_path


def foreign_exports(analysis, index, path: str, placer) -> list[ForeignCall]:
    """`placer(nodes)`: a function giving each of those nodes' (line, col) in this file, or None. A call
    whose caller no entry is known to trace (its witness would not be complete) gives nothing: the callee
    would not be known traced."""
    if index is None or not analysis.foreign_calls:
        return []
    pending = []
    for caller, call, q, specs, values, traces_constants in analysis.foreign_calls.values():
        if caller is None or caller.callback or not caller.traced:
            continue
        target = index.resolve_function(q)
        if target is None:
            continue
        chain = traced_path(analysis, caller)
        if chain is None:
            continue
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
