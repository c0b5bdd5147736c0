"""Shared facts for the recompile families (JIT1xx, JIT2xx, JIT3xx): calls of jitted functions, what
each argument is, and which functions run more than once."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.cardinality import built_by, class_hash_kind
from jitlint.analysis.facade import CallSite, FuncValue, FunctionInfo, ModuleAnalysis
from jitlint.analysis.eval.transforms import unbatched_axes, vmap_in_axes
from jitlint.analysis.index import JitSignature
from jitlint.analysis.literals import positional_args
from jitlint.analysis.repetition import repetitions
from jitlint.rules.base import RuleContext
from jitlint.source.cstwalk import children, descendants


@dataclass
class BoundArg:
    """One argument of a call to a jitted function, with the parameter it binds."""

    expr: cst.BaseExpression
    value: object  # the analysis' abstract value (FuncValue, InstanceValue, Taint or None)
    param: str
    static: bool | None  # None: unknown (equinox/nnx filtered transforms, non-literal options)


def signature_for(ctx: RuleContext, site: CallSite) -> tuple[JitSignature, frozenset[str], bool] | None:
    """The jitted function a call targets: (signature, params bound by partial, `self` already bound)."""
    callee = site.callee
    if callee is not None:
        binding = callee.binding or callee.info.jit_binding
        if binding is None or callee.transform is None and callee.info.jit_binding is None:
            return None
        info = callee.info
        return binding.signature(ctx.path, info), callee.bound, callee.bound_self and info.is_method
    if site.qualified and ctx.index is not None:
        sig = ctx.index.lookup(site.qualified)
        if sig is not None:
            return sig, frozenset(), False
    method = _method_of_imported_object(ctx, site)
    if method is not None:
        sig = ctx.index.lookup(method)
        if sig is not None:
            return sig, frozenset(), True
    sig = _vmapped_signature(ctx, site)
    if sig is not None:
        return sig, frozenset(), False
    return None


def _method_of_imported_object(ctx: RuleContext, site: CallSite) -> str | None:
    """`model(tokens)` or `model.generate(tokens)` with `model = Gemma3ForCausalLM(cfg)` (its only binding
    there), the class imported from another project file: "pkg.models.Gemma3ForCausalLM.__call__" (or
    `.generate`), which the index knows when that method is jitted (`@nnx.jit def __call__`)."""
    if ctx.index is None or site.callee is not None:
        return None
    func = site.node.func
    if isinstance(func, cst.Name):
        name, method = func.value, "__call__"
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        name, method = func.value.value, func.attr.value
    else:
        return None
    sources = runs.assigned(ctx.analysis, site.func, name)
    if len(sources) != 1 or not isinstance(sources[0], cst.Call):
        return None
    cls = ctx.analysis.call_names.get(sources[0])
    return f"{cls}.{method}" if cls and "." in cls else None


def _vmapped_signature(ctx: RuleContext, site: CallSite) -> JitSignature | None:
    """`vfunc = jax.vmap(other.jitted, in_axes=(0, 0, None, None))`, then `vfunc(d, t, L, el)`: the
    unbatched arguments reach the jitted function's parameters as they are, so a static one still gets
    the Python value (one compile per value; s2fft, fresh set U). Only when every static parameter gets an
    unbatched argument (a batched one would be a tracer there). A local jitted function is resolved by the
    analysis itself (its FuncValue keeps the jit binding)."""
    if ctx.index is None or not isinstance(site.node.func, cst.Name):
        return None
    sources = runs.assigned(ctx.analysis, site.func, site.node.func.value)
    if len(sources) != 1 or not isinstance(sources[0], cst.Call):
        return None
    call = sources[0]
    transform = jaxapi.TRANSFORMS.get(ctx.analysis.call_names.get(call) or "")
    pos = positional_args(call)
    if transform is None or transform.kind != "vmap" or not pos:
        return None
    scope = site.func.scope if site.func is not None else ctx.analysis.scope
    q = scope.qualify(pos[0].value)
    sig = ctx.index.lookup(q) if q else None
    if sig is None or not sig.static or sig.filtered:
        return None
    in_axes = vmap_in_axes(call)
    axes = unbatched_axes(in_axes) if in_axes is not None else None
    if axes is None or any(p in sig.static and not (i < len(axes) and axes[i]) for i, p in enumerate(sig.positional)):
        return None
    return sig


def bound_args(sig: JitSignature, site: CallSite, bound: frozenset[str], skip_self: bool,
               a: ModuleAnalysis | None = None, index=None) -> list[BoundArg]:
    positional = [p for p in sig.positional if p not in bound]
    if skip_self and positional:
        positional = positional[1:]
    out = []
    i = 0
    for arg, value in zip(site.node.args, site.arg_values):
        if arg.star:
            return out  # *args / **kwargs: positions unknown from here on
        if arg.keyword is not None:
            param = arg.keyword.value
        elif i < len(positional):
            param = positional[i]
            i += 1
        else:
            continue
        if sig.filtered:
            # equinox keeps every non-array argument static: a Python number or string is a cache key.
            static = True if is_python_scalar(site, arg.value, a, index) else None
        else:
            static = None if sig.static is None else param in sig.static
        out.append(BoundArg(arg.value, value, param, static))
    return out


_SCALAR_BUILTINS = {"int", "float", "len", "round", "str", "bool", "abs", "min", "max", "sum"}


def is_python_scalar(site: CallSite, expr: cst.BaseExpression, a: ModuleAnalysis | None = None,
                     index=None) -> bool:
    """A Python number, bool or string built by eager code (a literal, a loop counter, arithmetic on those,
    `len(...)`, `int(...)`, `math.*`, a function returning such values, here or in another project file
    (`index`), a constant of another project module): never an array."""
    kind = getattr(index, "value_kind", None)
    return _scalar(expr, site.func, lambda name: _counter_of(site, name), site.scope.qualify, a, 0, kind)


def _scalar(expr, func: FunctionInfo | None, counter, qualify, a, depth: int, kind=None) -> bool:
    if depth > 16:
        return False
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False") or counter(expr.value):
            return True
        # (at module level, the module's own assignments: a script's loop is a loop like any other)
        sources = func.assignments.get(expr.value, []) if func is not None else \
            (a.module_assignments.get(expr.value, []) if a is not None else [])
        if not sources and kind is not None:
            q = qualify(expr)
            return q is not None and kind(q) == "scalar"  # a constant of another project module
        return bool(sources) and all(
            _scalar(src.value if isinstance(src, cst.AugAssign) else src, func, counter, qualify, a, depth + 1, kind)
            for src in sources)
    if isinstance(expr, cst.Attribute):
        return (qualify(expr) or "") in jaxapi.MATH_CONSTANTS
    if isinstance(expr, cst.UnaryOperation):
        return _scalar(expr.expression, func, counter, qualify, a, depth + 1, kind)
    if isinstance(expr, cst.BinaryOperation):
        return _scalar(expr.left, func, counter, qualify, a, depth + 1, kind) and \
            _scalar(expr.right, func, counter, qualify, a, depth + 1, kind)
    if not isinstance(expr, cst.Call):
        return False
    args_scalar = all(_scalar(arg.value, func, counter, qualify, a, depth + 1, kind) for arg in expr.args)
    if isinstance(expr.func, cst.Name) and expr.func.value in _SCALAR_BUILTINS:
        return expr.func.value in ("len", "int", "float", "str", "bool", "round") or args_scalar
    q = qualify(expr.func) if isinstance(expr.func, (cst.Name, cst.Attribute)) else None
    if q is not None and q.startswith("math.") and args_scalar:
        return True  # math functions of Python numbers return Python numbers
    if q is not None and kind is not None and args_scalar and kind(q) == "returns scalar":
        return True  # another project file's schedule of Python numbers
    if a is not None and isinstance(expr.func, cst.Name) and args_scalar:
        callee = a.lookup_function(expr.func.value, func)
        if callee is not None:
            # A schedule `def lr_at(step): return 0.1 * math.cos(step)`: its parameters are the Python
            # numbers passed here.
            params = set(callee.params)
            returns = runs.own_returns(callee)
            return bool(returns) and all(
                r.value is not None and _scalar(r.value, callee, params.__contains__, callee.scope.qualify, a,
                                                depth + 1, kind) for r in returns)
    return False


def _counter_of(site: CallSite, name: str) -> bool:
    """`name` counts the iterations of an enclosing loop: `for i in range(n)`, `for i, x in enumerate(xs)`."""
    for loop in site.loops:
        if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call):
            continue
        callee = loop.iter.func.value if isinstance(loop.iter.func, cst.Name) else None
        target = loop.target
        if callee == "range" and isinstance(target, cst.Name) and target.value == name:
            return True
        if callee == "enumerate" and isinstance(target, (cst.Tuple, cst.List)) and target.elements and \
                isinstance(target.elements[0].value, cst.Name) and target.elements[0].value.value == name:
            return True
    return False


def jitted_calls(ctx: RuleContext) -> list[tuple[CallSite, JitSignature, list[BoundArg]]]:
    """Every call of a jitted function in this file (in any code), with its bound arguments: worked out
    once per file, for the seven rules that ask."""
    return ctx.memo(jitted_calls, lambda: _jitted_calls(ctx))


def _jitted_calls(ctx: RuleContext) -> list[tuple[CallSite, JitSignature, list[BoundArg]]]:
    found = []
    for site in ctx.analysis.call_sites.values():
        target = signature_for(ctx, site)
        callee = site.callee
        if callee is not None and callee.info.calls_refused and callee.binding is None:
            continue  # a jitted method of a plain class: the call raises TypeError at `self` first
        if target is not None:
            sig, bound, skip_self = target
            found.append((site, sig, bound_args(sig, site, bound, skip_self, ctx.analysis, ctx.index)))
    return found


def static_arguments(ctx: RuleContext, dispatched: bool = False):
    """(site, signature, argument) of every argument bound to a static parameter of a jitted call; with
    `dispatched`, only calls an eager walk reaches: a jitted function called inside traced code is traced
    into the outer program, so its static values compile nothing of their own (JIT3xx recompile claims);
    not calls in a function the module only hands to other code (which may call it inside a trace); and
    not calls made once per key of a memo dict (`if k not in cache: cache[k] = f(x, n)`)."""
    for site, sig, args in jitted_calls(ctx):
        if dispatched and (not site.eager or site.loop is not None and
                           runs.computed_once_per_key(ctx.analysis, site.func, site.node) or
                           runs.only_handed_on(ctx.analysis, site.func)):
            continue
        for arg in args:
            if arg.static is True:
                yield site, sig, arg


def callee_name(sig: JitSignature) -> str:
    return sig.qualname.rsplit(".", 1)[-1]


# ------------------------------------------------------------------------------ what runs more than once

def repeated_functions(ctx: RuleContext) -> dict[FunctionInfo, str]:
    """Functions whose body runs more than once with the same meaning, with the reason, for messages
    (jitlint.analysis.repetition, which also keeps the chain of calls for the witnesses); read only."""
    return ctx.memo(repeated_functions, lambda: {f: r.reason for f, r in repetitions(ctx.analysis).items()})


# ------------------------------------------------------------------------------ what an argument is


def built_per_call(site: CallSite, expr: cst.BaseExpression, value, repeated: dict) -> str | None:
    """When a value passed at this call site is a new object each time: "iteration", "call" or None.

    Inside a loop, a value built in the argument itself or assigned in the loop is new every iteration.
    A value built in the calling function is new on every call of that function, which only matters when
    that function is known to run repeatedly (called in a loop, a `__call__`, a step function). Inside
    traced code the call is traced once with the outer function, so nothing recompiles per call."""
    if not site.eager:
        return None
    per_call = site.func is not None and site.func in repeated
    if isinstance(expr, cst.Name):
        name = expr.value
        if site.varying.get(name) == "varying":
            return "iteration"
        if isinstance(value, FuncValue) and value.info.parent is site.func and site.func is not None:
            if value.info.def_loop is not None and site.loop is not None:
                if value.info.def_loop is not site.loop and value.info.def_loop in site.loops:
                    # defined on each pass of an outer loop, called in the inner ones: the same object
                    # for every call of one outer pass, so no call misses the cache for it (qjax's
                    # per-size energy function, fresh set AV); the outer pass changes what is compiled
                    return None
                return "iteration"
            return "call" if per_call else None
        if site.func is not None and name in site.func.assignments and per_call:
            return "call"
        return None
    if site.loop is not None:
        return "iteration"  # built in the argument itself, on every iteration
    return "call" if per_call else None


def fresh_callable(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression, value, repeated: dict) -> str | None:
    """Describe `expr` if it is a callable built anew on every call/iteration at this call site."""
    a = ctx.analysis
    when = built_per_call(site, expr, value, repeated)
    if when is None:
        return None
    if isinstance(expr, cst.Lambda):
        return "a lambda written at the call"
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr)
        if q == "functools.partial":
            return "a `functools.partial` built at the call"
        if q == "jax.tree_util.Partial":
            return "a `jax.tree_util.Partial` built at the call"
        if q in jaxapi.TRANSFORMS:
            return f"a new function from `{q}(...)`"
        factory = runs.new_function_factory(a, site.func, expr, ctx.index)
        if factory is not None:
            return f"a new function from `{factory[0]}(...)` ({factory[1]}, defined in it)"
        return None
    if isinstance(expr, cst.Attribute):
        owner = _new_instance_class(a, site, expr.value, repeated)
        if owner is not None and _callable_attribute(a, owner, expr.attr.value):
            return f"`{ctx.short(expr)}`, a callable attribute of a new `{owner}` object"
        return None
    if isinstance(expr, cst.Name) and isinstance(value, FuncValue):
        info = value.info
        if value.partial:
            return f"`{expr.value}`, a `functools.partial` built on every {when}"
        if value.transform is not None:
            return f"`{expr.value}`, a jitted function created on every {when}"
        kind = "lambda" if info.name == "<lambda>" else "nested function"
        return f"`{expr.value}`, a {kind} created on every {when}"
    return None


def _new_instance_class(a: ModuleAnalysis, site: CallSite, expr: cst.BaseExpression, repeated: dict) -> str | None:
    """`Model(...)` inline, or a name bound to a new `Model(...)` at this call's rate."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in a.classes:
        return expr.func.value
    if isinstance(expr, cst.Name) and site.func is not None:
        sources = site.func.assignments.get(expr.value, [])
        classes = {s.func.value for s in sources if isinstance(s, cst.Call) and isinstance(s.func, cst.Name)
                   and s.func.value in a.classes}
        if len(classes) == 1 and built_per_call(site, expr, None, repeated) is not None:
            return classes.pop()
    return None


def _callable_attribute(a: ModuleAnalysis, class_name: str, attr: str) -> bool:
    """A method, or an attribute `__init__` sets to a function (`self.f = jax.jit(fn)`, a lambda, a partial)."""
    if a.method(class_name, attr) is not None:
        return True
    init = a.method(class_name, "__init__")
    if init is None or not isinstance(init.node, cst.FunctionDef):
        return False
    for stmt in init.node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == attr for t in small.targets):
                value = small.value
                if isinstance(value, cst.Lambda):
                    return True
                if isinstance(value, cst.Call):
                    q = a.call_names.get(value)
                    return q in jaxapi.TRANSFORMS or q == "functools.partial"
    return False


_NON_CALLABLE_CONSTANTS = {"pi", "e", "inf", "nan", "newaxis", "euler_gamma", "NINF", "PINF", "NAN", "NZERO", "PZERO"}


def is_function_value(ctx: RuleContext, expr: cst.BaseExpression, value) -> bool:
    """A Python callable (not a pytree): a def, lambda, partial, bound method, jitted function, or a
    library function such as `jnp.cos`."""
    if isinstance(value, FuncValue) and _wrapped_as_pytree(value):
        return False
    if isinstance(expr, cst.Lambda) or isinstance(value, FuncValue):
        return True
    if isinstance(expr, cst.Call) and ctx.analysis.call_names.get(expr) == "functools.partial":
        return True
    if isinstance(expr, (cst.Attribute, cst.Name)) and value is None:
        q = ctx.analysis.scope.qualify(expr)
        if q and q.startswith(("jax.numpy.", "jax.nn.", "jax.lax.", "jax.scipy.", "numpy.", "math.")):
            last = q.rsplit(".", 1)[-1]
            return last not in _NON_CALLABLE_CONSTANTS and last[:1].islower() and not last.startswith(
                ("float", "int", "uint", "bool", "complex", "bfloat"))
    return False


def _wrapped_as_pytree(value: FuncValue) -> bool:
    """A def decorated with `@jax.tree_util.Partial` (above any other decorator) is a `Partial`, a pytree: a
    legal traced argument (jax_vumps' matvec handed to a jitted GMRES, fresh set BP)."""
    node = value.info.node if value.info is not None else None
    if not isinstance(node, cst.FunctionDef) or not node.decorators:
        return False
    return value.info.scope.qualify(node.decorators[0].decorator) in jaxapi.PYTREE_PARTIALS


def loops_over_functions(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression) -> bool:
    """`for act in (relu, jnp.tanh): f(x, act)`: a loop variable over a display of functions only (defs of
    the module, lambdas, library functions), bound nowhere else there."""
    if not isinstance(expr, cst.Name):
        return False
    a = ctx.analysis
    loop = next((lp for lp in reversed(site.loops) if isinstance(lp, cst.For) and isinstance(lp.target, cst.Name)
                 and lp.target.value == expr.value), None)
    if loop is None or not isinstance(loop.iter, (cst.Tuple, cst.List)) or not loop.iter.elements:
        return False
    if any(source is not loop.iter for source in runs.assigned(a, site.func, expr.value)):
        return False

    def function(el: cst.BaseExpression) -> bool:
        if isinstance(el, cst.Name) and a.lookup_function(el.value, site.func) is not None:
            return not runs.assigned(a, site.func, el.value)
        return is_function_value(ctx, el, None)

    return all(not isinstance(el, cst.StarredElement) and function(el.value) for el in loop.iter.elements)


def non_jax_object(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression) -> str | None:
    """An object certainly not a JAX type, built here (`tx = optax.adam(...)`, `model = MLP()` of a linen
    Module class): described, else None. (nnx and equinox Modules are pytrees, fine.)"""
    a = ctx.analysis
    if built_by(a, site.func, expr, jaxapi.OBJECTS_OF_FUNCTIONS):
        return "an optax `GradientTransformation` (a tuple of functions)"
    cls = instance_of(a, site, expr)
    if cls is not None and a.framework_of(cls) == "linen":
        return f"a `{cls}` linen Module (a dataclass, not a pytree)"
    return None


def identity_hashed_object(ctx: RuleContext, site: CallSite, expr: cst.BaseExpression, value,
                           repeated: dict) -> str | None:
    """An object built per call whose hash is its identity (so it never hits the compile cache)."""
    a = ctx.analysis
    if built_per_call(site, expr, value, repeated) is None:
        return None
    call = expr if isinstance(expr, cst.Call) else None
    class_name = _new_instance_class(a, site, expr, repeated)
    if class_name is not None:
        if class_hash_kind(a, class_name) != "identity":
            return None
        return f"a new `{class_name}` object (hashed by identity)"
    if call is not None:
        q = a.call_names.get(call)
        if q and q.startswith("optax."):
            return f"a new `{q}` optimizer (its functions are new objects each time)"
    return None


@dataclass
class JittedMethodCall:
    """`t.update(p)` (or `t(p)`, its `__call__`): `t` certainly an instance of a local class, the method
    under a jit decorator alone."""

    site: CallSite
    receiver: cst.BaseExpression  # `t`
    class_name: str
    method: FunctionInfo
    self_static: bool | None  # None: the static options are not literal


def jitted_method_calls(ctx: RuleContext) -> list[JittedMethodCall]:
    """Every such call in this file: worked out once per file, for JIT204 and JIT304."""
    return ctx.memo(jitted_method_calls, lambda: [
        call for site in ctx.analysis.call_sites.values() if (call := _jitted_method_call(ctx, site)) is not None])


def _jitted_method_call(ctx: RuleContext, site: CallSite) -> JittedMethodCall | None:
    a = ctx.analysis
    func = site.node.func
    receiver, name = (func.value, func.attr.value) if isinstance(func, cst.Attribute) else (func, "__call__")
    class_name = instance_of(a, site, receiver)
    info = a.method(class_name, name) if class_name is not None else None
    if info is None or not info.is_method or not info.positional or len(info.node.decorators) != 1:
        return None
    binding = info.jit_binding
    if binding is None or binding.bound_self or not isinstance(binding.node, cst.Decorator) or \
            binding.transform not in jaxapi.TRANSFORMS or jaxapi.TRANSFORMS[binding.transform].filtered:
        return None
    if name != "__call__" and _attribute_stored(ctx, name):
        return None  # an instance attribute of that name would shadow the method (not a special method)
    static = binding.static_params()
    return JittedMethodCall(site, receiver, class_name, info,
                            info.positional[0] in static if static is not None else None)


def traced_self_calls(ctx: RuleContext) -> list[JittedMethodCall]:
    """The jitted method calls whose method does not make `self` static, on an instance of a plain class
    of this module. The receiver's class must be known (built by `Cls(...)` here): `self.update(...)`
    inside the class may run on a subclass that is a pytree."""
    return [call for call in jitted_method_calls(ctx) if call.self_static is False
            and plain_class(ctx, call.class_name) and plain_class(ctx, call.method.class_name, call.method)]


def instance_of(a: ModuleAnalysis, site: CallSite, expr: cst.BaseExpression) -> str | None:
    """The local class `expr` is certainly an instance of: `Cls(...)`, or a name only ever bound to `Cls(...)`."""
    classes = {src.func.value if isinstance(src, cst.Call) and isinstance(src.func, cst.Name) else None
               for src in runs.bound_values(a, site.func, expr)}
    if len(classes) != 1:
        return None
    name = classes.pop()
    return name if name in a.classes else None


def plain_class(ctx: RuleContext, class_name: str, method: FunctionInfo | None = None, depth: int = 0) -> bool:
    """Instances of this module-level class are certainly not JAX types: no decorator (a pytree or dataclass
    registration), no metaclass, only `object` or such plain local classes as bases, no `__jax_array__`,
    and the module uses its name only to build instances and in annotations (not in a
    `register_pytree_node(Cls, ...)`, nor as a base: a subclass may be a pytree). `method`: defined in it."""
    a = ctx.analysis
    found = [s for s in a.module.body if isinstance(s, cst.ClassDef) and s.name.value == class_name]
    if len(found) != 1 or depth > 8:
        return False
    node = found[0]
    if node.decorators or node.keywords or not isinstance(node.body, cst.IndentedBlock):
        return False
    if method is not None and not any(stmt is method.node for stmt in node.body.body):
        return False
    if any(name in a.classes.get(class_name, {}) for name in ("__jax_array__", "__array__")) or \
            _assigns_in_body(node, ("__jax_array__", "__array__")):
        return False
    for base in node.bases:
        value = base.value
        if isinstance(value, cst.Name) and value.value == "object" and "object" not in a.module_assignments:
            continue
        if isinstance(value, cst.Name) and value.value in a.classes and plain_class(ctx, value.value, None, depth + 1):
            continue
        return False
    return depth > 0 or _only_instantiated(ctx, class_name)


def _assigns_in_body(node: cst.ClassDef, names: tuple[str, ...]) -> bool:
    for stmt in node.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if any(isinstance(t, cst.Name) and t.value in names for t in _targets(small)):
                return True
    return False


def _attribute_stored(ctx: RuleContext, attr: str) -> bool:
    """Whether the module stores into an attribute of this name anywhere (`self.update = ...`), or
    calls `setattr`."""
    return ctx.memo((_attribute_stored, attr), lambda: any(
        isinstance(node, cst.Name) and node.value == "setattr" or any(_stores_attr(t, attr) for t in _targets(node))
        for node in descendants(ctx.module)))


def _targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """What a statement or clause binds or stores into."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        return [node.target]
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return [node.asname.name]
    return []


def _stores_attr(target: cst.BaseExpression, attr: str) -> bool:
    if isinstance(target, cst.Attribute):
        return target.attr.value == attr
    if isinstance(target, cst.StarredElement):
        return _stores_attr(target.value, attr)
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_stores_attr(el.value, attr) for el in target.elements)
    return False


def _only_instantiated(ctx: RuleContext, class_name: str) -> bool:
    """Every use of the name in the module builds an instance (`Cls(...)`) or is an annotation."""
    return ctx.memo((_only_instantiated, class_name), lambda: _only_instantiated_in(ctx.module, class_name))


def _only_instantiated_in(module: cst.Module, class_name: str) -> bool:
    allowed: set[int] = set()
    stack: list[cst.CSTNode] = [module]
    ok = True
    while stack and ok:
        node = stack.pop()
        if isinstance(node, cst.Annotation):
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            allowed.add(id(node.func))
        elif isinstance(node, cst.ClassDef):
            allowed.add(id(node.name))
        elif isinstance(node, cst.Name) and node.value == class_name and id(node) not in allowed:
            ok = False
        stack.extend(children(node))
    return ok


# ------------------------------------------------------------------------------ values passed through helpers


def forwarded(a: ModuleAnalysis, site: CallSite, expr: cst.BaseExpression, depth: int = 0):
    """Where a value reaching a jitted call as a parameter of the enclosing function comes from: for
    `def run(x, sizes): return split(x, sizes)`, each call `run(x, [2, 3])` in this file gives
    (that call's site, its argument `[2, 3]`, its abstract value, "run")."""
    func = site.func
    if depth > 2 or func is None or not isinstance(expr, cst.Name) or expr.value not in func.params or \
            expr.value in func.assignments:
        return
    param = expr.value
    for outer in a.call_sites.values():
        if outer.callee is None or outer.callee.info is not func:
            continue
        if _traces_its_parameter(a, outer, func, param):
            continue  # `jax.vmap(run)(x, sizes)`, a call of a jitted `run`: it hands on a tracer (JIT306)
        found = _argument_for(outer, func, param)
        if found is None:
            continue
        arg_expr, value = found
        yield outer, arg_expr, value, func.name
        yield from forwarded(a, outer, arg_expr, depth + 1)


def _traces_its_parameter(a: ModuleAnalysis, outer: CallSite, func: FunctionInfo, param: str) -> bool:
    """Does this call of `func` trace `param` (a transform applied at the call, or `func` decorated by a
    jit that does not make `param` static)? Then `param` holds a tracer, not the value passed."""
    if isinstance(outer.node.func, cst.Call) and a.call_names.get(outer.node.func) in jaxapi.TRANSFORMS:
        return True
    if func.jit_binding is None:
        return False
    static = func.jit_binding.static_params()
    return static is not None and param not in static


def _argument_for(site: CallSite, info: FunctionInfo, param: str):
    positional = list(info.positional)
    if site.callee is not None and (site.callee.bound_self or info.is_method) and positional:
        positional = positional[1:]
    i = 0
    for arg, value in zip(site.node.args, site.arg_values):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value, value
            continue
        if i < len(positional) and positional[i] == param:
            return arg.value, value
        i += 1
    return None
