"""The contexts a file's traced code gives functions of other project files (jitlint.analysis.foreign): the
calls the walks recorded, those the project index resolves to a project function, each with its caller's
witness placed in this file. A run hands them to the callee's file (jitlint.project.runner)."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.foreign import ForeignCall, Place, encode
from jitlint.analysis.values import Taint
from jitlint.analysis import runs
from jitlint.analysis.cardinality import depends_on, masked_length
from jitlint.analysis.repetition import (PASSED_NONE, SIZE_VARIES, VARIES, loop_varying, repetitions,
                                        skipped_by_repeating_call)
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
    for site, target, rep in _repeated_candidates(analysis, index):
        callee = target[1].rpartition('.')[2]
        if rep is None:
            # (the call alone: a quick tree places calls, not loops)
            steps = [(site.node, f"a loop calls `{callee}` on every iteration")]
        else:  # the calls on the way from the loop that repeats the function making this call
            steps = [(node, text) for node, text in rep.steps if isinstance(node, (cst.Call, Place))]
            steps.append((site.node, f"`{site.func.name}` calls `{callee}` on every run"))
        # which arguments change with the loop: a callable built from them differs between the runs
        varying = loop_varying(analysis, site)
        args = tuple((arg.keyword.value if arg.keyword is not None else None, arg.star,
                      _how_it_varies(analysis, site, arg.value, varying)) for arg in site.node.args)
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


def _how_it_varies(analysis, site, value, varying):
    """VARIES where an argument changes with the loop, SIZE_VARIES where its length does too (a mask the
    loop's data decide selects it), PASSED_NONE for the literal `None`, else None."""
    if isinstance(value, cst.Name) and value.value == "None":
        return PASSED_NONE
    if not depends_on(analysis, site.func, value, varying):
        return None
    return SIZE_VARIES if masked_length(analysis, site.func, value) else VARIES


def _repeated_candidates(analysis, index):
    """(call site, callee (module, function), None) for each eager call in a data-driven loop of this file to a
    plain function of another project module whose every run may compile again (it builds a jit wrapper,
    or feeds an eager data-dependent size to jitted code), or to such a method of an object of a project
    class (`model = PoissonHMM(...)` then `model.fit_em(...)`: the callee is "Class.method" of the module
    whose class defines it, bases followed; on an object declared of a base class, each subclass's). Also
    such a call in a function that a loop of this file repeats, with that repetition (its calls are the
    witness's first steps)."""
    compiles = getattr(index, "compiles_per_run", None)
    if compiles is None:
        return
    for site in analysis.call_sites.values():
        if not site.eager:
            continue
        overrides = ()
        if site.callee is not None:
            # `self.perform_time_step(...)` in a base class's loop, resolved to this file's method: an object
            # of a subclass in another file runs its override (jax-spectral-dns's `Equation.solve`, fresh
            # set BT)
            overrides = _overrides_elsewhere(analysis, index, site)
            if not overrides:
                continue
        rep = None
        if site.loop is None:
            # not in a loop here, but in a function a loop of this file runs again and again (a training
            # loop calling `self.collect_rollouts()`, which calls the other file's builder: rl_jax_lib,
            # fresh set BJ): the same, one call further
            if site.func is None:
                continue
            rep = repetitions(analysis).get(site.func)  # (worked out once per module)
            if rep is None or any(isinstance(node, Place) for node, _ in rep.steps):
                continue  # (repeated from another file: that file's export reaches the callee already)
        elif runs.loops_are_sweeps(analysis, site.func, site.loops, site.node) or \
                runs.builds_collection(analysis, site.loop, site.node) or \
                runs.filled_once_per_key(analysis, site.func, site.node):
            continue
        if overrides:
            if not _once_per_run_of_repeated(analysis, site, rep):
                for target in overrides:
                    yield site, target, rep
            continue
        if site.qualified and "." in site.qualified and compiles(site.qualified):
            if index.value_kind(site.qualified) == "returns function" and site.loop is not None and \
                    runs.keeps_per_item(site.loop, site.node):
                continue  # a factory whose product the loop keeps per item: built once for each (jax-lab's kernels)
            target = index.resolve_function(site.qualified)
            if target is not None:
                if not _once_per_run_of_repeated(analysis, site, rep):
                    yield site, target, rep
                continue
        targets = _method_targets(analysis, index, site)
        if targets and not _once_per_run_of_repeated(analysis, site, rep):
            for target in targets:
                yield site, target, rep


def _once_per_run_of_repeated(analysis, site, rep) -> bool:
    """In a function some loop repeats (`rep`), a call that runs once per object or key however often the
    function runs, as this file's own repetition has it (a lazy `if not hasattr(self, "_fns"): ...`, a
    memo dict, a builder behind `if fns is None` that the repeating call passes)."""
    return rep is not None and (runs.stored_per_key(analysis, site.func, site.node) or
                                runs.filled_once_per_key(analysis, site.func, site.node) or
                                skipped_by_repeating_call(analysis, site, rep))


def _method_targets(analysis, index, site) -> tuple:
    """`obj.method(...)` where `obj` holds an object of a project class (of another module) whose method
    may compile again on every run: each (module, "Class.method") it may run. What `obj` holds: the
    assignment `obj = Class(...)` that reaches the call, a parameter annotated with the class, or for
    `self.attr`, what a method of the enclosing class assigns it (`self.solver = solver`, `solver:
    NEAlgorithm`)."""
    func = site.node.func
    if not isinstance(func, cst.Attribute) or getattr(index, "methods_compiling_per_run", None) is None:
        return ()
    q = _class_of(analysis, site, func.value)
    return index.methods_compiling_per_run(q, func.attr.value) if q else ()


def _overrides_elsewhere(analysis, index, site) -> tuple:
    """`self.m(...)` (or `obj.m(...)` on an object of a class of this file) resolved to a method of a class
    of this file: the overrides of `m` that subclasses in other files define and whose every run may
    compile again, as (module, "Class.method")."""
    func, callee = site.node.func, site.callee
    if not isinstance(func, cst.Attribute) or callee.info.class_name is None or \
            getattr(index, "methods_compiling_per_run", None) is None:
        return ()
    module = analysis.scope.module_name
    if not module:
        return ()
    return tuple(target for target in index.methods_compiling_per_run(f"{module}.{callee.info.class_name}",
                                                                      func.attr.value)
                 if target[0] != module)


def _class_of(analysis, site, expr) -> str | None:
    """The one project class the object `expr` (a name, or `self.attr` in a method) is of, or None."""
    if isinstance(expr, cst.Name):
        return _class_of_name(analysis, site, expr.value)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and site.func is not None \
            and site.func.class_name is not None and site.func.positional[:1] == [expr.value.value]:
        return _class_of_attribute(analysis, site.func.class_name, expr.attr.value)
    return None


def _project_class(scope, expr) -> str | None:
    """The qualified name `Class(...)` or an annotation `Class` names, when it is a dotted (imported) one."""
    if isinstance(expr, cst.Call):
        expr = expr.func
    q = scope.qualify(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    return q if q and "." in q else None


def _annotated_class(info, name: str) -> str | None:
    """The class a parameter `name` of `info` is annotated with (`solver: NEAlgorithm`), qualified."""
    params = info.node.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            return _project_class(info.scope, param.annotation.annotation)
    return None


# Calls returning an object of their argument's class.
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})


def _class_of_name(analysis, site, name: str) -> str | None:
    sources = runs.assigned(analysis, site.func, name)
    if len(sources) == 1 and isinstance(sources[0], cst.Call) and analysis.call_names.get(sources[0]) in _COPIES \
            and sources[0].args:
        # `model = deepcopy(self.model)`: an object of the class the copied one is of
        copied = sources[0].args[0].value
        return None if isinstance(copied, cst.Name) and copied.value == name else _class_of(analysis, site, copied)
    if not sources:
        return _annotated_class(site.func, name) if site.func is not None and name in site.func.params else None
    if not any(_project_class(site.scope, src) for src in sources if isinstance(src, cst.Call)):
        return None  # (no object of a project class: most calls)
    if site.func is not None and name in site.func.assignments:
        reaching = runs.reaching_assignment(site.func, site.node, name)  # (in the loop, before it)
        sources = [reaching] if reaching is not None else []
    return _project_class(site.scope, sources[0]) if len(sources) == 1 and isinstance(sources[0], cst.Call) \
        else None


def _class_of_attribute(analysis, class_name: str, attr: str) -> str | None:
    """`_class_of_self_attribute`, once per (class, attribute) per module."""
    key = (class_name, attr)
    if key not in analysis.attribute_classes:
        analysis.attribute_classes[key] = _class_of_self_attribute(analysis, class_name, attr)
    return analysis.attribute_classes[key]


def _class_of_self_attribute(analysis, class_name: str, attr: str) -> str | None:
    """What the methods of `class_name` assign to `self.attr`: one project class (`self.solver = solver`
    with `solver: NEAlgorithm`, or `self.model = Model(...)`), else None."""
    found: set[str | None] = set()
    for info, value in runs.assigned_to_self(analysis, class_name, attr):
        if isinstance(value, cst.Name) and value.value in info.params:
            found.add(_annotated_class(info, value.value))
        else:
            found.add(_project_class(info.scope, value) if isinstance(value, cst.Call) else None)
    return found.pop() if len(found) == 1 else None


def _candidates(analysis, index):
    """(the recorded call, its callee (module, function), its caller's witness), for each call from traced
    code that an entry reaches into a plain function of another project module."""
    if index is None:
        return
    for (_, variant), recorded in analysis.foreign_calls.items():
        caller, _, q = recorded[:3]
        if caller is None or caller.callback or not caller.traced or not any(isinstance(v, Taint) for v in recorded[4]):
            continue  # (with no traced argument the callee computes on Python values: not worth a re-lint)
        target = index.resolve_function(q)
        if target is None:
            continue
        chain = traced_path(analysis, caller, variant)  # (from the context that makes the call)
        if chain is not None:
            yield recorded, target, chain
