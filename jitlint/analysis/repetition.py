"""Which functions of a module run repeatedly with the same meaning, and the chain of calls that shows it.

A function runs repeatedly when a data-driven loop calls it (in this file, or in another one: an incoming
"repeated" call, jitlint.analysis.foreign), or when a function that runs repeatedly calls it. Only
data-driven loops count: a sweep over a fixed set of configurations runs a different computation per
item, and `{k: make(v) for ...}` keeps one result per item. A memoized function runs once per key, and so
does what it calls. No function is assumed repeated for its name.

Each repeated function gets a ``Repetition``: the short reason for messages, and the steps from the loop
to it (the loop, then each call on the way) for its findings' witnesses.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jitlint.analysis import runs
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import FunctionInfo
from jitlint.analysis.sites import CallSite


@dataclass(frozen=True)
class Repetition:
    reason: str  # for messages: "`step` is called inside a loop, `step(x)`"
    steps: tuple  # witness steps (node or foreign.Place, text), from the loop to the call of the function


def repetitions(facts: ModuleFacts) -> dict[FunctionInfo, Repetition]:
    """Every function of the module that runs repeatedly, worked out once per module (several rules and
    the witnesses ask); read only."""
    if facts._repetitions is None:
        facts._repetitions = _repetitions(facts)
    return facts._repetitions


def _repetitions(a: ModuleFacts) -> dict[FunctionInfo, Repetition]:
    found: dict[FunctionInfo, Repetition] = {}
    # the module's own memoizers only: other files' ones, from the index, are not asked about here yet
    memoized: dict[FunctionInfo, bool] = {}

    def once_per_key(info: FunctionInfo) -> bool:
        if info not in memoized:
            memoized[info] = runs.memoized(a, info)
        return memoized[info]

    for site in a.call_sites.values():
        if site.loop is None or runs.loops_are_sweeps(a, site.func, site.loops, site.node):
            continue
        callee = called_function(a, site)
        if callee is None or runs.builds_collection(a, site.loop, site.node, callee) or once_per_key(callee):
            continue
        if callee not in found:
            loop = next((lp for lp in reversed(site.loops) if runs.repeats_same_work(a, site.func, lp, site.node)),
                        site.loop)
            found[callee] = Repetition(
                f"`{callee.name}` is called inside a loop, `{_short(a, site.node)}`",
                ((loop, "this loop repeats it"), (site.node, f"calls `{callee.name}` on every iteration")))
    for call in getattr(a, "incoming", ()):  # called from a data-driven loop in another file
        info = a.module_defs.get(call.function) if call.kind == "repeated" else None
        if info is not None and info.class_name is None and info not in found and not once_per_key(info):
            path, line = call.steps[-1][0], call.steps[-1][1]
            found[info] = Repetition(f"`{info.name}` is called inside a loop in another file, at {_base(path)}:{line}",
                                     tuple(call.places()))
    # What a repeated function calls runs repeatedly too.
    changed = True
    while changed:
        changed = False
        for site in a.call_sites.values():
            if site.func in found:
                callee = called_function(a, site)
                # `cache[key] = make_fn(key)`: the builder runs once per key, however often its caller runs.
                if callee is not None and callee not in found and callee is not site.func and \
                        not once_per_key(callee) and not runs.stored_per_key(a, site.func, site.node):
                    found[callee] = Repetition(
                        f"`{callee.name}` is called from `{site.func.name}`, which runs repeatedly",
                        (*found[site.func].steps, (site.node, f"`{site.func.name}` calls `{callee.name}`")))
                    changed = True
    return found


def called_function(a: ModuleFacts, site: CallSite) -> FunctionInfo | None:
    """The module's function a call runs: the callee, a local class's `__init__`, or `__call__` of an
    object of a local class."""
    if site.callee is not None and site.callee.transform is None:
        return site.callee.info
    func = site.node.func
    if isinstance(func, cst.Name) and func.value in a.classes:
        return a.method(func.value, "__init__")
    if isinstance(func, cst.Name):
        table = site.func.assignments if site.func is not None else a.module_assignments
        classes = {src.func.value for src in table.get(func.value, []) if isinstance(src, cst.Call)
                   and isinstance(src.func, cst.Name) and src.func.value in a.classes}
        if len(classes) == 1:
            return a.method(classes.pop(), "__call__")
    return None


def _base(path: str) -> str:
    return path.replace("\\", "/").rpartition("/")[2]


def _short(a: ModuleFacts, node: cst.CSTNode) -> str:
    text = " ".join(a.module.code_for_node(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
