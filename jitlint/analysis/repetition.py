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

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.cardinality import depends_on, masked_length, names_read, varying_names
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import FunctionInfo
from jitlint.analysis.sites import CallSite, JitCreation, call_arguments, parameters_filled
from jitlint.source.cstwalk import descendants


@dataclass(frozen=True)
class Repetition:
    reason: str  # for messages: "`step` is called inside a loop, `step(x)`"
    steps: tuple  # witness steps (node or foreign.Place, text), from the loop to the call of the function
    # Called from a loop in another file: the parameters of the chain's first function whose arguments
    # there change with the loop (a call in this file is read where it is written), and those of them
    # whose length changes too (arrays selected by a mask the loop's data decide).
    varying_params: frozenset = frozenset()
    resized_params: frozenset = frozenset()
    # Called from another file: the parameters that call passes (None: read the call in this file).
    passed_params: frozenset | None = None


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
        if callee is None or runs.builds_collection(a, site.loop, site.node, callee) or once_per_key(callee) or \
                runs.filled_once_per_key(a, site.func, site.node):
            continue
        if callee not in found:
            loop = next((lp for lp in reversed(site.loops) if runs.repeats_same_work(a, site.func, lp, site.node)),
                        site.loop)
            masked = [(param, expr) for param, expr in call_arguments(site, callee)
                      if masked_length(a, site.func, expr)]  # (rare: the dependence is asked of those only)
            varying = loop_varying(a, site) if masked else set()
            resized = frozenset(param for param, expr in masked if depends_on(a, site.func, expr, varying))
            found[callee] = Repetition(
                f"`{callee.name}` is called inside a loop, `{_short(a, site.node)}`",
                ((loop, "this loop repeats it"), (site.node, f"calls `{callee.name}` on every iteration")),
                resized_params=resized)
    for call in getattr(a, "incoming", ()):  # called from a data-driven loop in another file
        info = _incoming_callee(a, call.function) if call.kind == "repeated" else None
        if info is not None and info not in found and not once_per_key(info):
            path, line = call.steps[-1][0], call.steps[-1][1]
            specs = [(keyword, star) for keyword, star, _ in call.args]
            filled = [(param, value) for param, (_, _, value) in zip(parameters_filled(info, specs), call.args)
                      if param is not None]
            varying = frozenset(param for param, value in filled if value in (VARIES, SIZE_VARIES))
            resized = frozenset(param for param, value in filled if value == SIZE_VARIES)
            if len(call.steps) > 1:  # through the functions that loop's calls run (`self.collect_rollouts()`)
                path, line = call.steps[0][0], call.steps[0][1]
                reason = f"`{info.name}` runs on every iteration of a loop in another file, at {_base(path)}:{line}"
            else:
                reason = f"`{info.name}` is called inside a loop in another file, at {_base(path)}:{line}"
            found[info] = Repetition(reason, tuple(call.places()), varying, resized,
                                     frozenset(param for param, value in filled if value != PASSED_NONE))
    # What a repeated function calls runs repeatedly too.
    changed = True
    while changed:
        changed = False
        for site in a.call_sites.values():
            if site.func in found:
                callee = called_function(a, site)
                # `cache[key] = make_fn(key)`: the builder runs once per key, however often its caller runs.
                if callee is not None and callee not in found and callee is not site.func and \
                        not once_per_key(callee) and not runs.stored_per_key(a, site.func, site.node) and \
                        not runs.filled_once_per_key(a, site.func, site.node) and \
                        not skipped_by_repeating_call(a, site, found[site.func]):
                    found[callee] = Repetition(
                        f"`{callee.name}` is called from `{site.func.name}`, which runs repeatedly",
                        (*found[site.func].steps, (site.node, f"`{site.func.name}` calls `{callee.name}`")))
                    changed = True
    return found


def skipped_by_repeating_call(a: ModuleFacts, site: CallSite, rep: Repetition) -> bool:
    """The call runs only where a parameter of its function is None (`if fns is None: fns = build(...)`),
    and the call that repeats that function passes the parameter: the repeated runs never make it
    (cosmocnc_jax's cached sigma functions, passed on every call of a profiling loop: fresh set BK). Or it
    runs only where a parameter defaulting to None is not None, and that call leaves it out (JAX-ENT's
    jit smoke test behind `if _jit_test_args is not None:`, fresh set BF)."""
    func = site.func
    if func is None:
        return False
    needs = {p for p in site.needs_none if p not in func.assignments}
    wants = {p for p in site.needs_value if p not in func.assignments and _defaults_to_none(func, p)}
    if not needs and not wants:
        return False
    passed = rep.passed_params
    if passed is None:
        node = rep.steps[-1][0] if rep.steps else None
        repeating = a.call_sites.get(node) if isinstance(node, cst.Call) else None
        if repeating is None:
            return False
        caller = repeating.func
        # (`waveform_function=waveform_function`, the caller's own parameter defaulting to None, may be None:
        # jaxus's per-transmit simulation, set AX)
        passed = frozenset(param for param, expr in call_arguments(repeating, func)
                           if not (isinstance(expr, cst.Name) and (expr.value == "None" or caller is not None and
                                                                    expr.value in caller.params and
                                                                    _defaults_to_none(caller, expr.value))))
        if any(arg.star for arg in repeating.node.args):
            return False  # (`f(*args, **kw)`: which are passed is not seen)
    return bool(needs & passed) or bool(wants - passed)


def _defaults_to_none(func: FunctionInfo, param: str) -> bool:
    default = func.default_const(param)
    return default is not None and default.value is None


def _incoming_callee(a: ModuleFacts, name: str) -> FunctionInfo | None:
    """The function an incoming call names: a module-level function, or "Class.method" (a method an
    object of this or a derived class runs, called on it in another file)."""
    cls, _, method = name.rpartition(".")
    if cls:
        return a.method(cls, method) if cls in a.classes else None
    info = a.module_defs.get(name)
    return info if info is not None and info.class_name is None else None


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


# ------------------------------------------------------------------------------ what differs between runs


def called_free_names(a: ModuleFacts, wrapped: cst.CSTNode, own: set[str]) -> set[str]:
    """The names a callable's body calls as functions, or hands to `functools.partial` or a JAX transform
    as the function (`fn(x)`, `partial(impl, **kw)`, `jax.grad(loss)`), that it does not bind itself
    (`own`: its parameters and locals). Attribute calls (`model.apply(...)`) do not count: an object that
    changes between runs usually keeps the same methods (a train state's `apply_fn`)."""
    out: set[str] = set()
    for node in descendants(wrapped):
        if not isinstance(node, cst.Call):
            continue
        if isinstance(node.func, cst.Name):
            out.add(node.func.value)
        q = a.call_names.get(node)
        if q == "functools.partial" or q in jaxapi.TRANSFORMS:
            first = next((arg.value for arg in node.args if arg.keyword is None and not arg.star), None)
            if isinstance(first, cst.Name):
                out.add(first.value)
    return out - own


def varies_between_runs(a: ModuleFacts, func: FunctionInfo | None, names: set[str], rebound: set[str],
                        rep: Repetition | None, items: bool = False) -> bool:
    """Do `names`, read in `func`, hold different values on different runs of the code reading them?
    Inside a loop: they derive from a name the loop rebinds (`rebound`). In a function that runs
    repeatedly: they derive from a parameter whose argument, at the call that repeats it (or at the calls
    on the way from the loop), derives from what that loop rebinds. A call from another file is not seen:
    not shown to vary. `items`: a sweep's items count as changing (see loop_varying)."""
    if not names:
        return False
    if rebound and any(n in rebound or any(depends_on(a, func, src, rebound) for src in runs.assigned(a, func, n))
                       for n in names):
        return True
    if rep is None:
        return False
    calls = [node for node, _ in rep.steps if isinstance(node, cst.Call)]
    for node in [*reversed(calls), None]:
        if func is None:
            return False
        params = {p for p in func.params if p in names or any(depends_on(a, func, src, {p})
                                                              for n in names for src in runs.assigned(a, func, n))}
        if node is None:  # the chain's first function: called from another file, or nothing more seen
            return bool(params & rep.varying_params)
        site = a.call_sites.get(node)
        if site is None:
            return False
        passed = call_arguments(site, func)
        args = [expr for param, expr in passed if param in params]
        defaults = []
        if func.def_loop is not None and func.def_loop in site.loops:
            # a def made on each pass evaluates its defaults on each pass: `def make_fwd(dim_=dim)` called
            # as `make_fwd()` reads this pass's `dim` (jax-quantum-research's per-size benchmark, fresh set BT)
            written = {param for param, _ in passed}
            defaults = [func.default_expr(p) for p in params - written if func.default_expr(p) is not None]
        if not args and not defaults:
            return False
        varying = loop_varying(a, site, items)
        if any(depends_on(a, site.func, expr, varying) for expr in (*args, *defaults)):
            return True
        if not args:
            return False
        func, names = site.func, set().union(*(names_read(expr) for expr in args))
    return False


def loop_varying(a: ModuleFacts, site: "CallSite | JitCreation", items: bool = False) -> set[str]:
    """The names that hold a different value on each iteration of the loops around a call (or a jit
    creation: it keeps the same loop records): those the loops
    rebind, and the functions defined in them (a new function object each time). Not a sweep's items: a
    data-driven loop around the sweep runs each item's program again (`for batch in data: for name, fn in
    algorithms.items(): bench(fn, batch)` compiles each `fn` once per batch). `items`: a sweep's items too
    (where only sweeps repeat the call: each item is another program)."""
    rebound = {name for name, kind in site.varying.items() if kind in ("varying", "bounded")} if items \
        else varying_names(site)
    return rebound | {f.name for f in a.functions
                                  if f.parent is site.func and f.def_loop is not None and f.def_loop in site.loops}


# What a call from another file says of an argument that changes with the loop around the call; of one
# whose length also changes, selected by a mask the loop's data decide (`mem["FLUX"][msel]`).
VARIES = ("varies",)
SIZE_VARIES = ("size varies",)
# ... of an argument written as the literal `None` (the parameter is not filled with a value).
PASSED_NONE = ("none",)
