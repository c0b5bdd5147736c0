"""JIT1xx: a jit wrapper created where it runs more than once.

`jax.jit` caches compiled code on the identity of the wrapped function. Re-wrapping the same stable
function in a loop only costs dispatch overhead, but wrapping a *new* function object -- a lambda, a
nested def, a `functools.partial`, a bound method, `jax.grad(f)`, a factory's new function -- retraces and
recompiles every time (measured on JAX 0.10.2: ~40-90 ms per iteration instead of ~0.05 ms).
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.repetition import (called_free_names, loop_varying, repetitions, skipped_by_repeating_call,
                                         varies_between_runs)
from jitlint.analysis.cardinality import (SHAPE_CONSTRUCTORS, attribute_targets, depends_on, describes_structure,
                                          names_read, shape_inputs, varying_names)
from jitlint.analysis.literals import kwarg, literal_ints, literal_strs
from jitlint.analysis.sites import parameters_filled
from jitlint.analysis.facade import FuncValue, JitCreation
from jitlint.analysis.qualnames import canonical
from jitlint.core.finding import Applicability, Severity
from jitlint.core.fixes import comments
from jitlint.rules.base import Confirmation, FixSpec, InsertBefore, Replace, Report, Rule, RuleContext

from jitlint.source.cstwalk import children, descendants, target_names

from ._calls import jitted_calls, repeated_functions


def _where_repeated(ctx: RuleContext, creation: JitCreation, repeated: dict, stable: bool = False,
                    sweeps: bool = True) -> str | None:
    """Where the wrapper is re-created over and over with the same meaning, or None. `sweeps=False`: a loop
    over configurations written in the source repeats it too (for a fresh function, whose program is
    another per item only where something it compiles changes with the item: `_different_program`)."""
    a = ctx.analysis
    if creation.loop is not None and \
            not runs.loops_are_sweeps(a, creation.func, creation.loops, creation.node, sweeps) and \
            not runs.builds_collection(a, creation.loop, creation.node) and \
            not runs.keeps_per_item(creation.loop, creation.node, creation.wrapped):
        place = "inside a loop"
    elif creation.func is not None and creation.func in repeated and \
            not runs.only_used_by_nested(a, creation.func, creation.node, creation.wrapped) and \
            not _branch_not_repeated(a, creation):
        place = f"in `{creation.func.name}`, which runs repeatedly ({repeated[creation.func]})"
    else:
        return None
    traced = runs.inside_traced_code(creation.func)
    if traced == "staged" or traced == "grad" and stable:
        return None  # inlined into the outer trace, once
    if runs.jitted_by_project_decorator(a, creation.func, ctx.index):
        return None  # jitted by the project's own decorator: inlined too
    if runs.memoized(a, creation.func, ctx.index) or runs.stored_per_key(a, creation.func, creation.node):
        return None  # built once per key
    if runs.only_lowered(a, creation.func, creation.node):
        return None  # compiled ahead of time, never dispatched
    if runs.inside_outer_jit(a, creation.node):
        return None  # traced into the outer wrapper's program: the outer one is reported, if anything
    if runs.only_passed_on(a, creation.func, creation.node, creation.wrapped):
        return None  # handed to other code, which calls it (inside a trace: inlined) or not
    return place


def _branch_not_repeated(a, creation: JitCreation) -> bool:
    """The jit is made on a branch of an `is None` test of a parameter that the call repeating its function
    never takes (JAX-ENT's jit smoke test behind `if _jit_test_args is not None:`, every repeated call
    passing None: fresh set BF)."""
    site = a.call_sites.get(creation.node) if isinstance(creation.node, cst.Call) else None
    rep = repetitions(a).get(creation.func)
    return site is not None and rep is not None and skipped_by_repeating_call(a, site, rep)


def _object_kind(ctx: RuleContext, creation: JitCreation, wrapped: cst.Attribute) -> tuple[str, str] | None:
    """What `base` in `jax.jit(base.f)` is: ("stable", ...) for an object whose function fields are the same
    object at every access (a NamedTuple of functions), ("fresh", ...) for one whose methods are bound
    methods (a Flax module, an instance of a project class of which `f` is a plain method), None when
    unknown."""
    a = ctx.analysis
    base = wrapped.value
    func = creation.func
    if isinstance(base, cst.Call):
        sources = [base]
    elif isinstance(base, cst.Name):
        sources = runs.assigned(ctx.analysis, func, base.value)
    elif isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and func is not None and \
            func.class_name is not None and func.positional[:1] == [base.value.value]:
        # `jax.jit(self.model.apply)`: what the class's methods assign to `self.model` (jax_rl_util's agent,
        # whose `__call__` jits its Flax module's `apply` on every step, fresh set BX)
        sources = [value for _, value in runs.assigned_to_self(a, func.class_name, base.attr.value)]
    else:
        sources = []
    for source in sources:
        if not isinstance(source, cst.Call):
            continue
        q = a.call_names.get(source)
        what = jaxapi.stable_field_factory(q)
        if what is not None:
            return "stable", what
        if q and q.startswith(("flax.linen.", "flax.nnx.")) and q.rsplit(".", 1)[-1][:1].isupper():
            return "fresh", f"a Flax `{q.rsplit('.', 1)[-1]}` module"
        plain_method = getattr(ctx.index, "plain_method", None)
        if q and plain_method is not None and plain_method(q, wrapped.attr.value):
            return "fresh", f"the `{q.rsplit('.', 1)[-1]}` object"
        value_kind = getattr(ctx.index, "value_kind", None)
        if q and value_kind is not None and value_kind(q) == "bound-method class":
            return "fresh", f"a `{q.rsplit('.', 1)[-1]}` Flax module"
        if isinstance(source.func, cst.Name) and source.func.value in a.classes:
            for b in a.class_bases.get(source.func.value, []):
                head, _, rest = b.partition(".")
                bound = a.scope.bindings.get(head)
                if bound and canonical(bound + ("." + rest if rest else "")) in jaxapi.BOUND_METHOD_BASES:
                    return "fresh", f"a `{source.func.value}` Flax module"
    return None


def _wrapped_kind(ctx: RuleContext, creation: JitCreation) -> tuple[str, str] | None:
    """("fresh" | "stable" | "unknown", description) of what the jit wraps, or None to stay silent.

    "unknown" is an attribute of an object jitlint cannot see: a function field (stable) or a bound method
    (fresh); re-wrapping it costs at least the dispatch overhead."""
    a = ctx.analysis
    wrapped = creation.wrapped
    if isinstance(wrapped, cst.FunctionDef):
        return "fresh", f"the nested function `{wrapped.name.value}` (decorated, a new function object each time)"
    if isinstance(wrapped, cst.Lambda):
        return "fresh", "a lambda (a new function object each time)"
    if isinstance(wrapped, cst.Call):
        q = a.call_names.get(wrapped)
        if q == "functools.partial":
            return "fresh", "a `functools.partial` (a new object each time)"
        if q in jaxapi.TRANSFORMS and jaxapi.TRANSFORMS[q].returns_function:
            if _equal_rewrap(a, creation, wrapped, q):
                return None
            if isinstance(_first_argument(wrapped), cst.Lambda) and jaxapi.TRANSFORMS[q].wrapper_by_value and \
                    jaxapi.TRANSFORMS[creation.transform].function_by_value:
                return "fresh", f"`{q}(...)` of a lambda (a new function object each time)"
            return "fresh", f"`{q}(...)`, which returns a new function object each time"
        factory = runs.new_function_factory(a, creation.func, wrapped, ctx.index)
        if factory is not None:
            return "fresh", f"`{factory[0]}(...)`, which returns a new function object ({factory[1]}, defined in it) each time"
        return None
    if isinstance(wrapped, cst.Attribute):
        scope = creation.func.scope if creation.func is not None else a.scope
        if scope.qualify(wrapped) is not None:
            return "stable", f"`{ctx.short(wrapped)}`"
        target = creation.target
        varying = _root_name(wrapped) in creation.varying
        if isinstance(target, FuncValue) and target.bound_self:
            return _bound_method(creation, varying, f"the bound method `{ctx.short(wrapped)}`")
        kind = _object_kind(ctx, creation, wrapped)
        if (kind is None or kind[0] == "stable") and varying:
            return None  # `proposal = fit(...)` every iteration: a different callable each time, nothing to hoist
        if kind is not None and kind[0] == "stable":
            return "stable", f"`{ctx.short(wrapped)}` (a function field of {kind[1]}, a NamedTuple: the same object at every access)"
        if kind is not None:
            return _bound_method(creation, varying, f"the bound method `{ctx.short(wrapped)}` of {kind[1]}")
        if jaxapi.TRANSFORMS[creation.transform].function_by_value:
            # a function field, or a bound method equal to the last one for the same object: no recompile
            return None if varying else ("stable", f"`{ctx.short(wrapped)}` (a function field or a bound method: "
                                                   f"`{creation.transform}` compares functions by value)")
        return "unknown", f"`{ctx.short(wrapped)}`"
    if isinstance(wrapped, cst.Name):
        target = creation.target
        if not isinstance(target, FuncValue):
            q = (creation.func.scope if creation.func else a.scope).qualify(wrapped)
            if q is not None:
                return "stable", f"`{wrapped.value}`"
            sources = runs.assigned(ctx.analysis, creation.func, wrapped.value)
            in_loop = wrapped.value in creation.varying  # rebound in an enclosing loop
            if creation.loop is None:
                # no loop here: the function itself runs repeatedly, and builds the callable on every call
                # (what reaches the jit, where branches build it differently)
                reaching = runs.reaching_assignment(creation.func, creation.node, wrapped.value) \
                    if creation.func is not None and isinstance(creation.func.node, cst.FunctionDef) else None
                for src in [reaching] if reaching is not None else sources:
                    q = a.call_names.get(src) if isinstance(src, cst.Call) and src is not creation.node else None
                    if q in jaxapi.TRANSFORMS and _equal_rewrap(a, creation, src, q):
                        continue
                    if q in jaxapi.TRANSFORMS and jaxapi.TRANSFORMS[q].returns_function or q in _PARTIALS:
                        return "fresh", f"`{wrapped.value}`, built by `{q}(...)` (a new function object) on every call"
                return None  # what each call builds is not known: the same object or a new one
            if sources and not in_loop and all(isinstance(src, cst.Call) for src in sources):
                return "stable", f"`{wrapped.value}` (a callable built once, before the loop)"
            if not sources and not in_loop and runs.unpacked_from_call(ctx.analysis, creation.func, wrapped.value):
                # `init_fn, step_fn = make_solver(...)` once: the same function object every pass
                return "stable", f"`{wrapped.value}` (a callable built once, before the loop)"
            return None
        info = target.info
        if target.partial:
            if creation.loop is not None and wrapped.value not in creation.varying:
                # built once before the loop: the same object every pass, one compile (fresh set I)
                return "stable", f"`{wrapped.value}` (a `functools.partial` built once, before the loop)"
            return "fresh", f"`{wrapped.value}`, a `functools.partial` (a new object each time it is built)"
        if info.parent is None:
            return "stable", f"the module-level function `{wrapped.value}`"
        if info.parent is creation.func:
            if creation.loop is not None and info.def_loop is None:
                return "stable", f"`{wrapped.value}` (defined once, before the loop)"
            return "fresh", f"the nested function `{wrapped.value}` (a new function object each time)"
    return None


def _first_argument(call: cst.Call) -> cst.BaseExpression | None:
    return next((arg.value for arg in call.args if arg.keyword is None and not arg.star), None)


def _equal_rewrap(a, creation: JitCreation, call: cst.Call, q: str) -> bool:
    """`eqx.filter_pmap(eqx.filter_value_and_grad(loss))` made again: the inner wrapper is a Module equal to
    the last one when the function it wraps is the same, and a jit comparing functions by value finds the
    last compile (ginjax's per-step `train_step`, fresh set BC). Not of a lambda or of a def made in the same
    function (a new function object each time)."""
    if not (jaxapi.TRANSFORMS[creation.transform].function_by_value and jaxapi.TRANSFORMS[q].wrapper_by_value):
        return False
    inner = _first_argument(call)
    if isinstance(inner, cst.Lambda):
        return False
    if isinstance(inner, cst.Name) and creation.func is not None and any(
            f.parent is creation.func and f.name == inner.value and (creation.loop is None or f.def_loop is not None)
            for f in a.functions):
        return False
    return True


# Partial objects compare by identity: a new one on every call is a new function to jit.
_PARTIALS = {"functools.partial", "jax.tree_util.Partial"}


def _bound_method(creation: JitCreation, varying: bool, what: str) -> tuple[str, str] | None:
    """A bound method: a new object at each access, so `jax.jit` recompiles for every wrapper; a
    transform comparing functions by value (equinox.filter_jit) finds the last one's compile while the
    object stays the same, and there only the re-wrap costs."""
    if not jaxapi.TRANSFORMS[creation.transform].function_by_value:
        return "fresh", f"{what} (a new bound-method object on each access)"
    if varying:
        return None  # a new object every pass: each compiles once, nothing to hoist
    return "stable", f"{what} (equal to the last one while the object is the same: `{creation.transform}` compares functions by value)"


def _root_name(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _different_program(ctx: RuleContext, creation: JitCreation) -> bool:
    """Is each wrapper a different program by construction? The function it wraps calls a callable that
    differs between the runs (the function each (config, backend) pair passes, a kernel object built from
    each autotuning config), or it binds -- through `partial` or as a closure -- a value describing the
    structure of arrays that differ between the runs (`partial(solve, shapes=[a.shape for a in blocks])`
    with blocks built per spec): then every compile is needed, and hoisting the jit cannot save one."""
    a = ctx.analysis
    wrapped = creation.wrapped
    if _refreshes_baked_attributes(a, creation):
        return True
    structure: set[str] = set()  # names of structure values bound into the program
    bound: set[str] = set()  # names a partial binds into it
    # `jax.jit(jax.grad(loss_fn))`, `jax.jit(partial(step, cfg))`: the function the transform wraps decides
    for _ in range(4):
        q = a.call_names.get(wrapped) if isinstance(wrapped, cst.Call) else None
        if q is None or not (q in _PARTIALS or q in jaxapi.TRANSFORMS and jaxapi.TRANSFORMS[q].returns_function):
            break
        first = next((arg.value for arg in wrapped.args if arg.keyword is None and not arg.star), None)
        if first is None:
            return False
        if q in _PARTIALS:
            for arg in wrapped.args:
                if arg.value is not first and not arg.star:
                    bound |= names_read(arg.value)
                    if describes_structure(a, creation.func, arg.value):
                        structure |= names_read(arg.value)
        wrapped = first
    if isinstance(wrapped, cst.Name) and _function_changes_each_pass(a, creation, wrapped.value):
        return True
    if isinstance(wrapped, cst.Name) and creation.func is not None:
        structure |= _factory_shapes(a, creation, wrapped.value)
    if isinstance(wrapped, cst.Name) and isinstance(creation.target, FuncValue) and wrapped is creation.wrapped:
        infos = [creation.target.info]
    elif isinstance(wrapped, cst.Name):
        # a def of the enclosing function (one per branch, maybe), or a lambda it binds to the name
        infos = [f for f in a.functions if f.parent is creation.func and
                 (isinstance(f.node, cst.FunctionDef) and f.name == wrapped.value or
                  any(src is f.node for src in (creation.func.assignments.get(wrapped.value, [])
                                                if creation.func is not None else [])))]
    else:
        infos = [f for f in a.functions if f.node is wrapped]
    if isinstance(wrapped, cst.Name) and not infos:
        # a callable object bound by assignment (`profile = Profile(kind)` per item of a sweep): the object
        # itself is what the program calls
        bound.add(wrapped.value)
    names = set().union(*(called_free_names(a, f.node.body, set(f.params) | set(f.assignments)) for f in infos))
    for f in infos:  # a closure's free names that hold structure (`n = x.shape[0]`, read in the body)
        free = names_read(f.node.body) - set(f.params) - set(f.assignments)
        structure |= {n for n in free if describes_structure(a, creation.func, cst.Name(n))}
        # ... or that the body makes arrays of (`jnp.ones(dim_)`, `jnp.arange(dim_)`): a shape it bakes in
        structure |= free & _shapes_made(a, f)
    names |= structure | _argument_shape_inputs(a, creation)
    rep = repetitions(a).get(creation.func) if creation.func is not None else None
    if names and varies_between_runs(a, creation.func, names, varying_names(creation), rep):
        return True
    if rep is not None and rep.resized_params and _closes_over_resized(a, creation, infos, rep.resized_params):
        return True
    # Anything the program reads from its closure (a free name, a default `cfg=cfg`, a partial's bound
    # argument) that changes with the items of loops over configurations (runs.sweeps_configurations: a
    # benchmark over implementations, a test over tile sizes): one program per item by construction, and
    # hoisting the jit with the item as an argument compiles as often, or cannot (a kernel config, an impl
    # name). Only when every loop that repeats it is such a sweep: a count or a pass over data around it
    # runs each item's program again.
    return _changes_with_sweep_items(a, creation, rep, bound | set().union(*(_free_reads(f) for f in infos)))


def _shapes_made(a, f) -> set[str]:
    """The names read by the shape arguments of the array constructors in `f`'s body."""
    return set().union(*(shape_inputs(a, f, node) for node in descendants(f.node.body)
                         if isinstance(node, cst.Call) and a.call_names.get(node) in SHAPE_CONSTRUCTORS))


def _refreshes_baked_attributes(a, creation: JitCreation) -> bool:
    """`self.dt = dt` then `self._step_jit = jax.jit(self._step)`, where `_step` reads `self.dt`: the method
    reads the attribute as a constant baked in at trace time, so re-wrapping it after the assignment is how
    the new value reaches the program -- each wrapper a different program, and keeping the old one would
    run with the old value (JAX-differentiable-CFD's `set_fixed_dt`, fresh set BU)."""
    wrapped, func = creation.wrapped, creation.func
    if not (isinstance(wrapped, cst.Attribute) and isinstance(wrapped.value, cst.Name) and func is not None
            and func.class_name is not None and func.positional[:1] == [wrapped.value.value]):
        return False
    method = a.classes.get(func.class_name, {}).get(wrapped.attr.value)
    if method is None or not isinstance(func.node, cst.FunctionDef) or not isinstance(method.node, cst.FunctionDef):
        return False
    assigned = {target.attr.value for target in attribute_targets(func.node.body)
                if isinstance(target.value, cst.Name) and target.value.value == wrapped.value.value}
    this = method.positional[:1]
    read = {node.attr.value for node in descendants(method.node.body) if isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name) and [node.value.value] == this}
    return bool(assigned & read)


def _factory_shapes(a, creation: JitCreation, name: str) -> set[str]:
    """`fwd = jax.remat(make_fwd(dim_, p))`: `name` holds the def a factory of the module returns, made of
    arrays whose shapes the factory's parameters give (`jnp.ones(dim_)` in it): the names passed there are
    baked into the program as shapes (jax-quantum-research's per-size gradient benchmark, fresh set BT)."""
    out: set[str] = set()
    for src in runs.assigned(a, creation.func, name):
        for _ in range(4):  # through `jax.remat(...)`, `jax.vmap(...)`: the function they wrap
            q = a.call_names.get(src) if isinstance(src, cst.Call) else None
            if not (q in jaxapi.TRANSFORMS and jaxapi.TRANSFORMS[q].returns_function and src.args):
                break
            src = src.args[0].value
        if not (isinstance(src, cst.Call) and isinstance(src.func, cst.Name)):
            continue
        factory = a.lookup_function(src.func.value, creation.func)
        returned = {r.value.value for r in runs.own_returns(factory) if isinstance(r.value, cst.Name)} \
            if factory is not None else set()
        product = factory.local_defs.get(returned.pop()) if len(returned) == 1 else None
        if product is None:
            continue
        shaped = _shapes_made(a, product) - set(product.params) - set(product.assignments)
        specs = [(arg.keyword.value if arg.keyword is not None else None, arg.star) for arg in src.args]
        out |= set().union(*(names_read(arg.value) for param, arg in zip(parameters_filled(factory, specs), src.args)
                             if param in shaped))
    return out


def _function_changes_each_pass(a, creation: JitCreation, name: str) -> bool:
    """The function wrapped is itself what each pass changes: the item of a loop over functions (`for
    kernel in kernels: jax.jit(jax.vmap(kernel))`), or a value each pass derives from the last one
    (`fn = jax.jacfwd(fn)`: one derivative order higher). Each wrapper compiles another function, once;
    hoisting the jit cannot save a compile (MSMJax's and virtual-casing-jax's tests, fresh set AR). Only
    where every loop around the creation changes it so, and nothing repeats the enclosing function: an
    outer pass over data, or a caller in a loop, compiles each function again."""
    if not creation.loops or creation.func is None or repetitions(a).get(creation.func) is not None:
        return False
    if any(isinstance(f.node, cst.FunctionDef) and f.name == name and f.parent is creation.func for f in a.functions):
        return False  # a def in the loop: a new function object of the same code each pass
    carried = runs.assigned(a, creation.func, name)
    for loop in creation.loops:
        if isinstance(loop, (cst.For, cst.CompFor)) and name in target_names(loop.target):
            if not runs.counts_passes(a, loop):
                continue  # the loop's item: another function each pass
            return False
        # bound in this loop from what it held before (`fn = transform(fn)`) on every assignment in it
        inside = [src for src in carried if _within(src, loop)]
        if not inside or not all(isinstance(src, cst.BaseExpression) and runs.names_read_any(src, {name})
                                 for src in inside):
            return False
    return True


def _within(node: cst.CSTNode, scope: cst.CSTNode) -> bool:
    return any(n is node for n in descendants(scope))


def _changes_with_sweep_items(a, creation: JitCreation, rep, reads: set[str]) -> bool:
    """Something in `reads` changes with the items of the loops over configurations that alone repeat the
    creation: one program per item by construction. (A sweep's items change too here, and a def in the
    loop is a new function each pass, `fn=fn`.)"""
    return bool(reads) and _only_sweeps_repeat(a, creation, rep) and \
        varies_between_runs(a, creation.func, reads, loop_varying(a, creation, items=True), rep, items=True)


def _options_follow_items(ctx: RuleContext, creation: JitCreation) -> bool:
    """`for device in (cpu, *gpus): f = jax.jit(step, device=device)`: the jit's own options read what
    changes with the items of loops over configurations (and only such loops repeat it), so each pass
    asks for a different program (another device, other static arguments) and the re-wrap is how to get
    it (booz-xform-jax's per-device test, fresh set AO)."""
    a = ctx.analysis
    node = creation.node
    if not isinstance(node, cst.Call):
        return False
    reads = set().union(*(names_read(arg.value) for arg in node.args if arg.keyword is not None))
    rep = repetitions(a).get(creation.func) if creation.func is not None else None
    return _changes_with_sweep_items(a, creation, rep, reads)


def _argument_shapes_vary(ctx: RuleContext, creation: JitCreation) -> bool:
    """The arrays the wrapper is called with where it is made change shape between the runs (`block =
    np.zeros((rows.size, 3))` with `rows` rebuilt per channel): each run compiles for its new shape, hoisted
    or not, so a re-wrap costs nothing beside it (jax-nufft's per-case plans, fresh set AQ)."""
    a = ctx.analysis
    names = _argument_shape_inputs(a, creation)
    rep = repetitions(a).get(creation.func) if creation.func is not None else None
    return bool(names) and varies_between_runs(a, creation.func, names, varying_names(creation), rep)


def _static_arguments_vary(ctx: RuleContext, creation: JitCreation) -> bool:
    """Where it is made, the wrapper is called with a static argument that differs between the runs (one
    derived from what the loop changes: a level's basis size, the bound method of that level's model):
    each run is another program, hoisted or not, so a fresh wrapper costs no compile of its own (motep_jax's
    per-level fit, fresh set BJ)."""
    a = ctx.analysis
    func = creation.func
    target = creation.target.info if isinstance(creation.target, FuncValue) else None
    if func is None or target is None:
        return False
    calls_it = _calls_the_wrapper(creation, target)
    static: set[str] = set()
    for site, _, args in jitted_calls(ctx):
        if calls_it(site):
            static |= set().union(*(names_read(arg.expr) for arg in args if arg.static is True))
    rep = repetitions(a).get(func)
    return bool(static) and varies_between_runs(a, func, static, varying_names(creation), rep)


def _only_sweeps_repeat(a, creation: JitCreation, rep) -> bool:
    """Every loop around the creation, and around each call on the way from the loop that repeats its
    function, goes over configurations (seen in this file: a chain from another file is not known)."""
    loops = [(creation.func, loop) for loop in creation.loops]
    for node, _ in rep.steps if rep is not None else ():
        if isinstance(node, (cst.For, cst.While, cst.CompFor)):
            continue  # the loop that repeats it: among the loops around the call it makes, next
        site = a.call_sites.get(node) if isinstance(node, cst.Call) else None
        if site is None:
            return False  # a step not seen here (another file, a call jitlint cannot place)
        loops += [(site.func, loop) for loop in site.loops]
    return bool(loops) and all(runs.sweeps_configurations(a, func, loop) for func, loop in loops)


def _closes_over_resized(a, creation: JitCreation, infos, resized: frozenset) -> bool:
    """The program reads, from its closure (also through the functions it closes over: `loss` behind
    `value_and_grad = optax.value_and_grad_from_state(loss)`), an array made from a parameter whose length
    the calling loop's data decide on every run (rema-jax's red-sequence fit over each iteration's members,
    selected by a mask, fresh set BA): the constants it bakes in have other shapes each run, so each run is
    another program, and hoisting the jit saves no compile. (`resized`: of the function a loop calls
    directly, here or in another file.)"""
    func = creation.func
    if func is None:
        return False
    seen: set[str] = set()
    todo = set().union(*(_free_reads(f) for f in infos))
    while todo:
        name = todo.pop()
        if name in seen or len(seen) > 64:
            continue
        seen.add(name)
        if name in resized:
            return True
        nested = next((f for f in a.functions if f.parent is func and isinstance(f.node, cst.FunctionDef) and
                       f.name == name), None)
        if nested is not None:
            todo |= _free_reads(nested)
        for src in runs.assigned(a, func, name):
            todo |= names_read(src)
    return False


def _free_reads(info) -> set[str]:
    """The names a def or lambda reads from outside: its body's free names and its parameters' defaults."""
    node = info.node
    params = node.params
    defaults = set().union(*(names_read(p.default) for p in (*params.params, *params.kwonly_params)
                             if p.default is not None))
    return defaults | (names_read(node.body) - set(info.params) - set(info.assignments))


def _argument_shape_inputs(a, creation: JitCreation) -> set[str]:
    """What decides the shapes of the arrays the wrapper is called with where it is made (`W =
    np.random.randn(d, r)` then `loss_and_grad(W)`: {d, r}): when those differ between the runs, so does
    the program (emlp's rank-doubling Krylov solve, fresh set Z)."""
    func = creation.func
    if func is None:
        return set()
    calls_it = _calls_the_wrapper(creation)
    hands_it_on = _hands_the_wrapper_on(creation)
    found: set[str] = set()
    for site in a.call_sites.values():
        if calls_it(site) or hands_it_on(site):
            for arg in site.node.args:
                found |= shape_inputs(a, func, arg.value)
    return found


def _hands_the_wrapper_on(creation: JitCreation):
    """Whether a call site, in the function making the wrapper, hands it to code that calls it, with what
    to call it with beside it (`time_fn(pallas_fn, A, B, ...)`: a benchmark's timer)."""
    func = creation.func
    names = {name for name, exprs in func.assignments.items() if any(e is creation.node for e in exprs)}
    if isinstance(creation.wrapped, cst.FunctionDef) and any(creation.node is d for d in creation.wrapped.decorators):
        names.add(creation.wrapped.name.value)

    def hands_it_on(site) -> bool:
        return site.func is func and any(arg.value is creation.node or isinstance(arg.value, cst.Name) and
                                         arg.value.value in names for arg in site.node.args)
    return hands_it_on


def _sweep_items_only_traced(ctx: RuleContext, creation: JitCreation) -> bool:
    """The loops over configurations around the wrapper go over Python numbers of one type, the wrapper is
    called where it is made, and the shapes of what it is called with do not change with the items (sweeps'
    items counted): what the items change reaches the program only as traced scalars, or through what
    `_different_program` reads. Not where the wrapper is kept for a call elsewhere (a dict of cases per
    problem size, called in another loop): its arguments are not seen."""
    a = ctx.analysis
    func = creation.func
    if func is None or creation.loop is None:
        return False
    if not all(runs.scalar_sweep(a, func, loop) for loop in creation.loops
               if not runs.repeats_same_work(a, func, loop, creation.node)):
        return False  # (items of other kinds, arrays of several shapes, a generator's cases, may be other programs)
    calls_it = _calls_the_wrapper(creation)
    sites = [site for site in a.call_sites.values() if calls_it(site)]
    if not sites or any(site.node.func is not creation.node for site in sites):
        return False
    names = _argument_shape_inputs(a, creation)
    rep = repetitions(a).get(func)
    return not (names and varies_between_runs(a, func, names, loop_varying(a, creation, items=True), rep,
                                              items=True))


def _calls_the_wrapper(creation: JitCreation, target=None):
    """Whether a call site, in the function making the wrapper, calls it: the creation itself, a name bound
    to it, or (`target`: a decorated def's function) the def."""
    func = creation.func
    names = {name for name, exprs in func.assignments.items() if any(e is creation.node for e in exprs)}

    def calls_it(site) -> bool:
        callee = site.node.func
        return site.func is func and (callee is creation.node or isinstance(callee, cst.Name) and callee.value in names
                                      or target is not None and site.callee is not None and site.callee.info is target)
    return calls_it


def _only_called_in_traces(ctx: RuleContext, creation: JitCreation) -> bool:
    """A jit-decorated nested def that is only ever called, and only from traced code (`@jit def _mse` called
    by the jitted loss next to it): each call is inlined into the caller's trace, so it compiles nothing of
    its own (what recompiles is the caller, reported there; diffmah's tests, fresh set X)."""
    a = ctx.analysis
    node = creation.wrapped
    if creation.func is not None and not isinstance(creation.func.node, cst.FunctionDef):
        return False
    if not isinstance(node, cst.FunctionDef):
        return creation.func is not None and _bound_and_called_in_traces(a, creation)
    # (in a function, or in a script's module-level loop: jax-MAML's meta-training script, fresh set BV)
    body = list(descendants(creation.func.node.body if creation.func is not None else a.module))
    # (defs of one name in the branches of the function: a call of the name calls one of them)
    defs = [n for n in body if isinstance(n, cst.FunctionDef) and n.name.value == node.name.value]
    same = {id(n) for n in defs}
    sites = [site for site in a.call_sites.values() if site.callee is not None and id(site.callee.info.node) in same]
    handed = _handed_in_traces(a, body, node.name.value)
    if not (sites or handed) or not all(site.traced and not site.eager for site in sites):
        return False
    called = {id(site.node.func) for site in sites} | handed
    # `grad_fn = jax.grad(loss_fn)`: a transform that compiles nothing of its own wraps it, and what it
    # gives is called only in traced code too (jaxvacua's optax kernel, fresh set BC)
    names, wrapped = {node.name.value}, {id(d.name) for d in defs}
    for n in body:
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) and \
                isinstance(n.value, cst.Call) and len(n.value.args) >= 1 and \
                isinstance(n.value.args[0].value, cst.Name) and n.value.args[0].value.value in names:
            t = jaxapi.TRANSFORMS.get(a.call_names.get(n.value) or "")
            if t is not None and t.kind in ("grad", "vmap", "transparent"):
                names.add(n.targets[0].target.value)
                wrapped.add(id(n.value.args[0].value))
                wrapped.add(id(n.targets[0].target))
    # every other mention of the names is a call: it is not handed on, stored or returned
    return _mentioned_only_at(body, names, called | wrapped)


def _handed_in_traces(a, body: list[cst.CSTNode], name: str) -> set[int]:
    """The mentions of `name` handed, in traced code only, to a transform or a `partial` whose product is
    part of that trace (`grad(maml_loss_batch)(p, xb)` inside a jitted step, `vmap(partial(maml_loss, p))`
    inside a jitted loss: jax-MAML's helpers, fresh set BV)."""
    out: set[int] = set()
    for n in body:
        if not (isinstance(n, cst.Call) and n.args and isinstance(n.args[0].value, cst.Name)
                and n.args[0].value.value == name and n.args[0].keyword is None):
            continue
        q = a.call_names.get(n) or ""
        t = jaxapi.TRANSFORMS.get(q)
        site = a.call_sites.get(n)
        if (q in _PARTIALS or t is not None and t.kind in ("grad", "vmap", "transparent")) and \
                site is not None and site.traced and not site.eager:
            out.add(id(n.args[0].value))
    return out


def _bound_and_called_in_traces(a, creation: JitCreation) -> bool:
    """`grad = jax.jit(jax.grad(energy))` whose name is then only called inside a jitted def beside it
    (`@jax.jit def trial(...): g = grad(state)`): inlined into that trace, no compile of its own
    (jax-solitons' arrested flow, fresh set BD; the caller's own re-creation is reported there)."""
    body = list(descendants(creation.func.node.body))
    target = next((n.targets[0].target for n in body if isinstance(n, cst.Assign) and n.value is creation.node
                   and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)), None)
    if target is None:
        return False
    name = target.value
    if len(creation.func.assignments.get(name, [])) != 1:
        return False
    calls = [n for n in body if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name]
    sites = [a.call_sites.get(c) for c in calls]
    if not calls or not all(site is not None and site.traced and not site.eager for site in sites):
        return False
    return _mentioned_only_at(body, {name}, {id(c.func) for c in calls} | {id(target)})


def _mentioned_only_at(body: list[cst.CSTNode], names: set[str], allowed: set[int]) -> bool:
    """Every `Name` of `names` among the nodes of `body` is one of `allowed` (by id); attribute names
    (`jax.grad`'s `grad`) are no mention."""
    attributes = {id(n.attr) for n in body if isinstance(n, cst.Attribute)}
    return all(id(n) in allowed or id(n) in attributes for n in body if isinstance(n, cst.Name) and n.value in names)


def _options_vary(creation: JitCreation) -> bool:
    """Does the jit take options that vary per call (computed in the function, or passed to it)? Then the
    wrapper is to be memoized on them, not hoisted."""
    node = creation.node
    func = creation.func
    local = set(func.params) | set(func.assignments) if func is not None else set()

    def varies(value: cst.BaseExpression) -> bool:
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            return False
        if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            # `static_argnames=["concatenate"]`: a display of constants is the same options every call
            return any(isinstance(el, cst.StarredElement) or varies(el.value) for el in value.elements)
        if isinstance(value, cst.Name):
            return value.value in local
        return True

    return isinstance(node, cst.Call) and any(arg.keyword is not None and varies(arg.value) for arg in node.args)


class JitOfFreshFunction(Rule):
    code = "JIT101"
    witness = "repeated"
    name = "jit-of-fresh-function-in-loop"
    summary = "jit of a new function object (lambda, nested def, partial, bound method) where it runs repeatedly"
    severity = Severity.WARNING
    confirmed_by = Confirmation(retraces=frozenset({"new_function"}))
    what = """
        Finds `jax.jit(...)` (and `pjit`, `pmap`, `equinox.filter_jit`, `flax.nnx.jit`) applied to a new
        function object -- a lambda, a nested def, a `functools.partial` or `jax.tree_util.Partial`, a bound method `obj.method` (of
        a class the project defines, in this file or another, or a Flax module), `jax.grad(f)`, or what a
        factory defines and returns (`jax.jit(make_step(cfg))`; not a cached
        factory, nor one returning a module-level function) -- inside a loop, a comprehension, or a
        function called from one, and jit-decorated nested defs there. Silent where each run is a different computation or runs once: a sweep over a fixed
        set of configurations written in the source (a literal tuple, `itertools.product` of literals, an
        Enum, an array written out), unless its items are Python numbers of one type handed to the wrapper
        only as traced arguments of the call that makes it (then every pass is the same program), a wrapped function that calls a callable differing between the runs (a kernel built from
        each item of the loop, the function each iteration of a caller in another file passes: a
        different program each time, so every compile is needed) or binds shapes that differ between
        them (`partial(solve, shapes=[b.shape for b in blocks])` with blocks built per run), a memoized function (`functools.cache`, `lru_cache`, a project decorator applying one, the
        `cache[key] = jax.jit(...)` idiom, also storing a jit-decorated def; a lazy `if getattr(self, "_fn",
        None) is None:`; a rebuild only when what it tracks changes, `if loss is not self._loss: ...;
        self._loss = loss`), a loop that keeps the wrapper it builds for each item (appended
        to a list, also inside an object it builds, stored under a key or yielded: one compile per item, reused
        afterwards, as `{k: jax.jit(f_k) for k in ...}`), a jit-decorated helper only ever called from traced
        code (inlined into the caller's trace), code staged by an outer jit or a lax body (the inner jit is
        inlined; under plain `jax.grad` a new function still compiles every time and is reported), and a
        wrapper that is only lowered or exported. A jit built in `__init__` of an object created in a loop
        counts as re-created there.
        """
    why = """
        The compile cache is keyed on the identity of the wrapped function. A new function object misses
        it every time: JAX retraces and recompiles on every iteration (hundreds of times slower than a
        cached call), and the old executables are never reused. A bound method is a new object at each
        access, even on the same object: `jax.jit(env.step)` in a loop compiles on every pass.
        (`equinox.filter_jit` compares functions by value, so the same object's bound method finds its
        compile: there a re-wrap is JIT102.) `flax.nnx.jit(f)` retraces on every re-wrap even for a stable `f`.
        """
    instead_note = """
        Create the jitted function once (at module level or in `__init__`), and pass what varies as an
        argument (mark it static only if it takes few values).
        """
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        def train(xs, scales):
            for s in scales:
                xs = jax.jit(lambda v: v * s)(xs)
            return xs
        """,
        """
        import jax

        class Model:
            def apply(self, x):
                return x * 2

            def __call__(self, x):
                return jax.jit(self.apply)(x)

        def evaluate(batches):
            model = Model()
            return [model(x) for x in batches]
        """,
    )
    valid = (
        """
        import jax

        @jax.jit
        def scale(v, s):
            return v * s

        def train(xs, scales):
            for s in scales:
                xs = scale(xs, s)
            return xs
        """,
        """
        import jax

        class Model:
            def __init__(self):
                self._apply = jax.jit(self.apply)  # wrapped once

            def apply(self, x):
                return x * 2

            def __call__(self, x):
                return self._apply(x)
        """,
    )

    messages = {
        "fresh": "`{transform}` of {what} {place}: JAX retraces and recompiles every time; create the {made} "
                 "function once (module level or `__init__`) and pass what varies as an argument",
        "retraces": "{what} (`{transform}` retraces on every re-wrap)",  # (a stable function, under nnx.jit)
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx)
        for creation in ctx.analysis.jit_creations.values():
            kind = _wrapped_kind(ctx, creation)
            if kind is None:
                continue
            retraces = jaxapi.TRANSFORMS[creation.transform].rewrap_retraces
            if kind[0] != "fresh" and not retraces:
                continue
            place = _where_repeated(ctx, creation, repeated)
            if place is None and kind[0] == "fresh" and _sweep_items_only_traced(ctx, creation):
                # (a sweep over configurations re-creates a fresh function for nothing where its items reach
                # the program only as traced arguments of the call that makes it: genjax's tests jit a new
                # function per `p` of a literal list, each the same program; fresh set BL)
                place = _where_repeated(ctx, creation, repeated, sweeps=False)
            if place is None or kind[0] == "fresh" and (_different_program(ctx, creation) or
                                                         _only_called_in_traces(ctx, creation) or
                                                         _static_arguments_vary(ctx, creation)) or \
                    _options_follow_items(ctx, creation):
                continue
            what = kind[1] if kind[0] == "fresh" else self.message("retraces", what=kind[1],
                                                                   transform=creation.transform)
            yield Report(creation.node, self.message("fresh", transform=creation.transform, what=what, place=place,
                                                     made="pmapped" if "pmap" in creation.transform else "jitted"))


class JitRewrapInLoop(Rule):
    code = "JIT102"
    witness = "repeated"
    fixable = True
    name = "jit-rewrap-in-loop"
    summary = "jit of a stable function re-created where it runs repeatedly (extra dispatch overhead)"
    severity = Severity.INFO
    confirmed_by = Confirmation(rewrap=True, retraces=frozenset({"new_function"}))
    what = """
        Finds `jax.jit(f)` of a stable function re-created inside a data-driven loop, or in a helper that
        only wraps and calls it (`return jax.jit(f)(x)`) called from one: a module-level or imported function, a function built once before the loop, a function
        field of a NamedTuple of functions (a Haiku `Transformed`, an optax `GradientTransformation`, a
        BlackJAX algorithm), a bound method under `equinox.filter_jit` (equal to the last one while the
        object is the same), or an attribute `obj.f` of an object jitlint cannot see (a function field or a
        bound method: either way at least a re-wrap). Silent where the cost does not pile up per call: a
        wrapper bound to a name and then called in a loop that does not re-create it, handed to a nested
        function or lambda, or returned (made once, used many times); a wrapped object rebound on every
        iteration (nothing to hoist); a call whose static argument changes every iteration (it
        compiles every time, hoisted or not: JIT301); and a function that does other work besides (a
        loop, other calls) and is called from a loop: one re-wrap per call is noise next to that work.
        """
    why = """
        Wrappers of the same function share one compile cache, so this does not recompile -- but every
        call builds a new wrapper and pays its dispatch overhead: about 0.1-0.4 ms per call against
        0.01-0.03 ms for a hoisted wrapper (4-15x, measured on JAX 0.10.2 with `jax.jit` and
        `equinox.filter_jit`). When the jit's options (say `out_shardings`) vary per call, memoize the
        wrapper on them instead.
        """
    instead_note = "Hoist the wrapper: `step_jit = jax.jit(step)` once, then call `step_jit(x)` in the loop."
    fix_note = """
        The fix hoists a call-form `jax.jit(f)` of a module-level or imported function with literal
        options out of the plain `for`/`while` loops of a function: `f_jit = jax.jit(f)` before the
        outermost loop (a name the file does not use), `f_jit(...)` inside. Always unsafe: the wrapper is
        then built even when the loop runs no iteration, and invalid options raise there.
        """
    fix_examples = (
        (
            """
            import jax


            def step(x):
                return x * 2


            def run(x):
                for _ in range(100):
                    x = jax.jit(step)(x)
                return x
            """,
            """
            import jax


            def step(x):
                return x * 2


            def run(x):
                step_jit = jax.jit(step)
                for _ in range(100):
                    x = step_jit(x)
                return x
            """,
        ),
    )
    no_fix_examples = (
        """
        import jax

        def run(pipeline, x):
            for _ in range(100):
                x = jax.jit(pipeline.step)(x)  # an attribute: hoisting it would read it once, not each time
            return x
        """,
    )
    invalid = (
        """
        import jax

        def step(x):
            return x * 2

        def run(x):
            for _ in range(100):
                x = jax.jit(step)(x)
            return x
        """,
    )
    valid = (
        """
        import jax

        def step(x):
            return x * 2

        step_jit = jax.jit(step)

        def run(x):
            for _ in range(100):
                x = step_jit(x)
            return x
        """,
    )

    messages = {
        # `what` is stable: a re-wrap costs dispatch; unknown: perhaps a bound method, which also recompiles
        "stable": "`{transform}` of {what} is re-created {place}: wrappers of one function with the same options "
                  "share a compile cache, so it does not recompile, but {overhead}; {remedy}",
        "unknown": "`{transform}` of {what} is re-created {place}: {overhead}, and if {what} is a bound method it "
                   "also recompiles every time; {remedy}",
        "overhead": "each new wrapper adds about 0.03-0.3 ms of dispatch per call (up to about 10x a hoisted call on "
                    "small arguments, less on large pytrees)",
        "hoist": "hoist the wrapper out of the loop",
        "memoize": "its options vary per call, so memoize the wrapper on them (e.g. `functools.lru_cache`)",
    }

    def check(self, ctx: RuleContext) -> Iterator[Report]:
        repeated = repeated_functions(ctx)
        for creation in ctx.analysis.jit_creations.values():
            if jaxapi.TRANSFORMS[creation.transform].rewrap_retraces:
                continue
            kind = _wrapped_kind(ctx, creation)
            if kind is None or kind[0] == "fresh":
                continue
            place = _where_repeated(ctx, creation, repeated, stable=True)
            if place is None or runs.wrapper_reused(ctx.analysis, creation.func, creation.node, creation.loops):
                continue  # (a re-wrap costs per creation: nothing piles up where each wrapper is used many times)
            if place != "inside a loop" and not _wraps_and_calls_only(creation):
                continue  # one re-wrap per call of a function doing other work too: noise next to that work
            if _compiles_every_call(ctx, creation) or _options_follow_items(ctx, creation) or \
                    _argument_shapes_vary(ctx, creation):
                continue  # a compile per call (JIT301 says why), per item or per new shape dwarfs the re-wrap
            yield Report(creation.node, self.message(kind[0], transform=creation.transform, what=kind[1], place=place,
                                                     overhead=self.messages["overhead"],
                                                     remedy=self.messages["memoize" if _options_vary(creation) else
                                                                          "hoist"]),
                         fix=_hoist_fix(ctx, creation) if place == "inside a loop" else None)


def _wraps_and_calls_only(creation: JitCreation) -> bool:
    """A helper whose work is the re-wrapped call (`return jax.jit(f)(x)`, jax#2515): no loop, and no call
    but the creation and the calls of what it creates. Repeated through its callers, the extra dispatch
    per call piles up there as in a loop; a function that also computes (another jitted call, array
    setup, a loop) pays one re-wrap per call next to that work (fresh sets AD, AR: reviewed as noise)."""
    func, made = creation.func, creation.node
    if func is None:
        return False
    aliases = {name for name, sources in func.assignments.items() if sources and all(v is made for v in sources)}
    stack: list[cst.CSTNode] = list(children(func.node.body))
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is cst.FunctionDef or cls is cst.ClassDef or cls is cst.Lambda:
            continue
        if cls is cst.For or cls is cst.While or isinstance(node, cst.BaseComp):
            return False
        if cls is cst.Call and node is not made and node.func is not made and not (
                node.func.__class__ is cst.Name and node.func.value in aliases):
            return False
        stack.extend(children(node))
    return True


def _compiles_every_call(ctx: RuleContext, creation: JitCreation) -> bool:
    """`jax.jit(f, static_argnums=2)(a, b, j)` in a loop where `j` changes every iteration: every call
    compiles for its new static value whether the wrapper is hoisted or not."""
    a = ctx.analysis
    node = creation.node
    if not isinstance(node, cst.Call):
        return False
    nums = literal_ints(getattr(kwarg(node, "static_argnums"), "value", None)) or ()
    names = literal_strs(getattr(kwarg(node, "static_argnames"), "value", None)) or ()
    if not nums and not names:
        return False
    for site in a.call_sites.values():
        if site.node.func is not node:
            continue
        varying = {name for name, kind in site.varying.items() if kind == "varying"}
        positional = [arg.value for arg in site.node.args if arg.keyword is None and not arg.star]
        static = [positional[i] for i in nums if -len(positional) <= i < len(positional)]
        static += [arg.value for arg in site.node.args if arg.keyword is not None and arg.keyword.value in names]
        return any(depends_on(a, site.func, expr, varying) for expr in static)
    return False


def _constant_option(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    if isinstance(value, cst.Tuple):
        return all(not isinstance(el, cst.StarredElement) and _constant_option(el.value) for el in value.elements)
    return False


def _hoist_fix(ctx: RuleContext, creation: JitCreation) -> FixSpec | None:
    """for ...: y = jax.jit(f)(x)  ->  f_jit = jax.jit(f) before the loop, `f_jit(x)` in it. Only for a
    call-form jit of a function of the module (or an import) that nothing in the function rebinds, with
    literal options, in plain `for`/`while` loops of a function. Unsafe: the wrapper is then built even
    when the loop runs no iteration (where `jax.jit` checks its options, it raises there)."""
    node, func = creation.node, creation.func
    if func is None or not isinstance(node, cst.Call) or not creation.loops:
        return None
    if not all(isinstance(loop, (cst.For, cst.While)) for loop in creation.loops):
        return None
    wrapped = creation.wrapped
    if not isinstance(wrapped, cst.Name) or wrapped.value in func.assignments or wrapped.value in func.params:
        return None
    target = creation.target
    module_level = isinstance(target, FuncValue) and target.info.parent is None and not target.partial
    if not module_level and func.scope.qualify(wrapped) is None:
        return None
    if wrapped.value in creation.varying:
        return None
    if not node.args or node.args[0].value is not wrapped or node.args[0].keyword is not None:
        return None
    if any(a.star or a.keyword is None or not _constant_option(a.value) for a in node.args[1:]):
        return None
    code = ctx.code(node)
    if comments(code) != [] or "\n" in code or "\r" in code:
        return None
    name = ctx.file_fact(("fresh", f"{wrapped.value}_jit"))
    return FixSpec(f"Hoist `{code}` out of the loop", (InsertBefore(creation.loops[0], f"{name} = {code}"),
                                                        Replace(node, cst.Name(name))), Applicability.UNSAFE)
