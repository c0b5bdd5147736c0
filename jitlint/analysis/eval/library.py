"""Library calls: what a call of a qualified name the knowledge tables (``jitlint.analysis.jaxapi``) know gives.

Each category of the tables has one handler; a name belongs to the categories whose tables hold it, taken
in the order of ``_CATEGORIES`` (a transform before a jnp function, a static function before an array
module's). A handler answers the call's taint (None: a Python value), or ``NEXT`` when its category does not
decide this call (`lax.psum` of a tracer is an array like any `lax` call); a name no category decides is
``UNKNOWN``: the call is resolved as a call of the module's own code, or of unknown code.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.literals import kwarg, literal_const, positional_args
from jitlint.analysis.objects import FuncValue, FunctionInfo, InstanceValue, TraceEdge, Value, value_taint
from jitlint.analysis.values import NOT_NONE, TRACED, Const, Taint, add_spread, join, keyed_mapping, pytree_like

UNKNOWN = object()  # no category decides the call
NEXT = object()  # a handler's answer when its category does not decide this call

# Python builtins, by what they give.
_STATIC_BUILTINS = frozenset({"range", "len", "isinstance", "print", "hash", "id", "repr", "str", "format", "type"})
_COMPARING_BUILTINS = frozenset({"max", "min", "sorted"})  # compare tracers: raise (a rule reports it)
_CONTAINER_BUILTINS = frozenset({"list", "tuple", "dict", "set", "zip", "map", "filter", "enumerate", "reversed",
                                 "iter", "frozenset"})
_PASSING_BUILTINS = _CONTAINER_BUILTINS | {"abs", "sum", "round", "pow", "divmod", "next"}


def as_container(taint: Taint | None) -> Taint | None:
    return dataclasses.replace(taint, container=True, is_array=False, is_bool=False) if taint else None


class Library(Frame):
    """The handlers of the knowledge tables' categories."""

    def known_call(self, expr: cst.Call, q: str, arg_values: list[Value], arg_taints: list,
                   in_jit: bool) -> Taint | None | object:
        """The taint of a call of `q`, or UNKNOWN when no category of the tables decides it."""
        handlers = _HANDLERS.get(q)
        if handlers is None:
            handlers = _HANDLERS[q] = tuple(handler for member, handler in _CATEGORIES if member(q))
        for handler in handlers:
            result = handler(self, expr, q, arg_values, arg_taints, in_jit)
            if result is not NEXT:
                return result
        return UNKNOWN

    # ------------------------------------------------------------------ functions of functions
    def _transform(self, expr, q, arg_values, arg_taints, in_jit):
        self.apply_transform(expr, q, jaxapi.TRANSFORMS[q], arg_values)
        return None

    def _lifted_transform(self, expr, q, arg_values, arg_taints, in_jit):
        self.lift_module(expr, q)
        return None

    def _constructor(self, expr, q, arg_values, arg_taints, in_jit):
        self.construct(expr, q)
        return None

    def _partial(self, expr, q, arg_values, arg_taints, in_jit):
        if arg_values and isinstance(arg_values[0], FuncValue):
            self.last_call_value = self.partial_value(expr, arg_values[0])
        # (partial(jax.jit, ...) as a decorator factory: handled at the decorator)
        return None

    def _lax_body(self, expr, q, arg_values, arg_taints, in_jit):
        self.lax_call(expr, q, arg_values)
        result = self.array_result(join(*arg_taints), in_jit, expr, q)
        carry = _CARRY_POSITION.get(q)
        init_value = _argument(expr, arg_values, *carry) if result is not None and carry is not None else None
        if init_value is not None:
            # `accs, m, l = lax.fori_loop(lo, hi, body, (accs, m, l))`: the final carry has the init's
            # structure -- a tuple holding a Python list of arrays stays so (tokamax, fresh set S); an init
            # of unknown kind gives a result of unknown kind; a Python number becomes an array
            init = value_taint(init_value)
            if isinstance(init, Taint) and (init.container or init.opaque):
                return pytree_like(result, init, 0)
            return result
        init_value = _argument(expr, arg_values, 1, "init") if result is not None and q == "jax.lax.scan" else None
        if init_value is not None:
            # `carry, ys = lax.scan(body, init, xs)`: the final carry has the init's structure (a Python list
            # of arrays stays one: signax's signature levels, fresh set AK), `ys` the structure of what the
            # body returns second, each leaf stacked
            init = value_taint(init_value)
            carry_out = pytree_like(result, init, 0) if isinstance(init, Taint) and (
                init.container or init.opaque) else result
            ys = result
            body_value = _argument(expr, arg_values, 0, "f")
            body = body_value.info if isinstance(body_value, FuncValue) else None
            if body is not None and self.variant is not None:
                for variant in list(body.variants.values()):  # (walked again when what it returns changes)
                    self.read_return_of(body, variant)
                returned = pytree_output(result, body)
                if returned.container and returned.elements is not None and len(returned.elements) == 2 and \
                        isinstance(returned.elements[1], Taint):
                    ys = returned.elements[1]
            return dataclasses.replace(result, container=True, is_array=False, is_bool=False,
                                       elements=(carry_out, ys))
        mapped = _argument(expr, arg_values, 0, "f") if result is not None and q == "jax.lax.map" else None
        if isinstance(mapped, FuncValue) and self.variant is not None:
            # `lax.map(f, xs)`: the pytree `f` returns, each leaf stacked -- a Python tuple of arrays when `f`
            # returns one (booz-xform-jax's surface transforms, fresh set AO)
            for variant in list(mapped.info.variants.values()):  # (walked again when what it returns changes)
                self.read_return_of(mapped.info, variant)
            return pytree_output(result, mapped.info)
        branches = [v.info for v in arg_values if isinstance(v, FuncValue)] if q == "jax.lax.cond" else []
        if result is not None and branches and self.variant is not None:
            # `lax.cond(p, lambda _: [a, b], lambda _: [c, d], None)`: the pytree the branches return, here
            # a Python list of arrays (jaxtari's bar positions, fresh set N)
            for info in branches:
                for variant in list(info.variants.values()):  # (walked again when what they return changes)
                    self.read_return_of(info, variant)
            outputs = [pytree_output(result, info) for info in branches]
            if not any(o.is_array for o in outputs):
                return join(*outputs)
        return result

    def _callback(self, expr, q, arg_values, arg_taints, in_jit):
        if arg_values and isinstance(arg_values[0], FuncValue):
            info = arg_values[0].info
            if not info.traced:
                info.callback = True
        return self.array_result(None, in_jit, expr, q) if self.recording else None

    def _tree_map(self, expr, q, arg_values, arg_taints, in_jit):
        # Not a transform: the function is called once per leaf, parameter i with a leaf of tree i.
        trees = [value_taint(v) for arg, v in zip(expr.args[1:], arg_values[1:])
                 if arg.keyword is None and not arg.star]
        rest = join(*trees)
        if arg_values and isinstance(arg_values[0], FuncValue) and self.traced:
            fv = arg_values[0]
            params = {}
            for name, tree in zip(fv.info.free_positional(fv.bound, fv.bound_self), trees):
                if tree is not None:
                    params[name] = Taint(tree.level, tree.origin, filtered=tree.filtered, opaque=tree.opaque)
            closure = self.closure_for(fv.info)
            context = Context(ContextKind.NESTED, transform=q, traces_constants=self.staged)
            variant = self.scheduler.request(fv.info, context, params, closure, self.staged,
                                             TraceEdge("call", expr, "", self.info, guard=self.open_guard,
                                                       caller_variant=self.variant_key))
            if variant is not None:
                self.read_return_of(fv.info, variant)
                if variant.returns_known and variant.return_taint is None:
                    return None  # `tree_map(lambda x: x is None, t)`: a tree of Python values
                if variant.returns_known and rest is None:
                    # `tree.map(lambda x: x[i], static_tree)` with a traced `i`: a tree of what it returns
                    rest = variant.return_taint
        return dataclasses.replace(rest, container=True, is_array=False, elements=None) if rest else None

    # ------------------------------------------------------------------ functions of values
    def _static(self, expr, q, arg_values, arg_taints, in_jit):
        return None

    def _constant_collective(self, expr, q, arg_values, arg_taints, in_jit):
        if arg_values and isinstance(arg_values[0], Const):
            return None  # `lax.psum(1, "i")` is a Python int (the axis size) inside the mapped function
        return NEXT

    def _numpy(self, expr, q, arg_values, arg_taints, in_jit):
        any_arg = join(*arg_taints)
        if any_arg is not None and q in jaxapi.NUMPY_DELEGATING:
            return dataclasses.replace(any_arg, container=False, is_array=True, is_bool=False)
        return None  # NumPy on constants stays NumPy; on tracers it raises (a rule reports it)

    def _array_list(self, expr, q, arg_values, arg_taints, in_jit):
        return as_container(self.array_result(join(*arg_taints), in_jit, expr, q))  # `jnp.split(x, 3)`: a list

    def _array_per_axis(self, expr, q, arg_values, arg_taints, in_jit):
        axis = _keyword(expr, arg_values, jaxapi.ARRAY_LIST_PER_AXIS[q])
        result = self.array_result(join(*arg_taints), in_jit, expr, q)
        if isinstance(axis, Const) and isinstance(axis.value, int):
            return result
        return as_container(result)  # several axes, or all of an array of unknown rank: maybe a list

    def _array(self, expr, q, arg_values, arg_taints, in_jit):
        return self.array_result(join(*arg_taints), in_jit, expr, q)

    def _tree_replace(self, expr, q, arg_values, arg_taints, in_jit):
        # `eqx.tree_at(where, model, value)`: a copy of `model`, same class (its taint is another category's)
        tree = _argument(expr, arg_values, 1, jaxapi.TREE_REPLACE[q][1])
        if isinstance(tree, InstanceValue):
            self.last_call_value = tree
        return NEXT

    def _tree_function(self, expr, q, arg_values, arg_taints, in_jit):
        leaves = as_container(join(*arg_taints))
        if leaves is not None and q.endswith("flatten") and not q.endswith("unflatten"):
            # `(leaves, treedef)`: the first a Python list of the leaves, the second a Python value
            return dataclasses.replace(leaves, elements=(leaves, None))
        return leaves

    def _passing_builtin(self, expr, q, arg_values, arg_taints, in_jit):
        any_arg = join(*arg_taints)
        if any_arg is None:
            return None
        if q == "dict" and expr.args and all(a.keyword is not None or a.star == "**" for a in expr.args):
            # `dict(n=n, w=w, **more)` is the display `{"n": n, "w": w, **more}` (jaxFMM's setup rebuilt from
            # a static tuple and the traced arrays, fresh set BC)
            found, keys = [], []
            for a, t in zip(expr.args, arg_taints):
                if a.keyword is None:
                    add_spread(found, keys, t)
                else:
                    found.append(t)
                    keys.append(a.keyword.value)
            return keyed_mapping(found, keys)
        container = q in _CONTAINER_BUILTINS
        return dataclasses.replace(any_arg, container=container, is_array=not container and any_arg.is_array)

    def _pass_through(self, expr, q, arg_values, arg_taints, in_jit):
        return join(*arg_taints)

    def _stop_gradient(self, expr, q, arg_values, arg_taints, in_jit):
        taint = join(*arg_taints)
        if taint is not None and taint.level < TRACED:
            # only differentiated (plain grad, no jit or vmap around it): JAX hands back the JVP tracer's
            # primal, a concrete array that NumPy and `float()` take (rl_with_jax's MAML rollouts, fresh set BK)
            return None
        return NEXT  # (an array of what it is given, as any lax function)

    def _other_jax(self, expr, q, arg_values, arg_taints, in_jit):
        any_arg = join(*arg_taints)
        if any_arg is None:
            return NEXT
        # Other jax APIs (internal helpers, dtypes, sharding, ...) may return Python values.
        return dataclasses.replace(any_arg, container=False, is_bool=False, is_array=False, opaque=True,
                                   flattened=False)

    # ------------------------------------------------------------------ results
    def array_result(self, any_arg: Taint | None, in_jit: bool, expr: cst.Call, q: str) -> Taint | None:
        """What an array function gives: an array of its traced arguments; under jit, one even on constants."""
        name = q.rsplit(".", 1)[-1]
        is_bool = name in jaxapi.BOOL_FUNCS or self._bool_dtype_call(expr, q)
        if any_arg is not None:
            return Taint(any_arg.level, any_arg.origin, is_bool=is_bool, is_array=True,
                         from_constant=any_arg.from_constant)
        if in_jit and q in jaxapi.ARRAYLIKE_ONLY and _python_sequence(positional_args(expr)[:1]):
            return None  # `jnp.max(x.shape)` raises TypeError: a tuple is no array-like (dqn's policy, fresh set BU)
        if in_jit:
            short = q.replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")
            return Taint(TRACED, f"{short}(...)", is_bool=is_bool, is_array=True, from_constant=True)
        return None

    def _bool_dtype_call(self, expr: cst.Call, q: str) -> bool:
        dtype = kwarg(expr, "dtype")
        if dtype is not None:
            dq = self.qualify_call_target(dtype.value)
            return dq in jaxapi.BOOL_DTYPES or dq == "bool"
        if q in ("jax.numpy.array", "jax.numpy.asarray") and expr.args:
            first = expr.args[0].value
            if isinstance(first, (cst.List, cst.Tuple)) and first.elements and all(
                    isinstance(e.value, cst.Name) and e.value.value in ("True", "False") for e in first.elements):
                return True
        if q in ("jax.numpy.bool_", "jax.numpy.bool"):
            return True
        return False

    def partial_value(self, expr: cst.Call, fv: FuncValue) -> FuncValue:
        """`functools.partial(f, ...)` of a function of the module: its bound parameters and literals."""
        bound = set(fv.bound)
        free = fv.info.free_positional(fv.bound, fv.bound_self)  # (a `@staticmethod` through `self` binds no self)
        pos = positional_args(expr)[1:]
        consts = dict(fv.consts)
        bound_args = [*zip(free, (arg.value for arg in pos)),
                      *((arg.keyword.value, arg.value) for arg in expr.args if arg.keyword is not None)]
        if any(arg.star == "**" for arg in expr.args):
            # `partial(impl, **params)`: which keywords it binds is not known here, but the keyword-only
            # parameters can only be given so: take them as bound (a Python value of the caller's, not an
            # argument of the transform the partial is handed to).
            bound.update(fv.info.kwonly)
        if any(arg.star == "*" for arg in expr.args):
            bound.update(free)  # `partial(f, *head)`: how many positions it fills is not known
        for name, value in bound_args:
            bound.add(name)
            const = literal_const(value)
            if const is not None:
                consts[name] = const
            elif fv.info.default_const(name) == Const(None):
                # `partial(f, max_occupancy=nbrs.max_occupancy)`: bound to override a None default, so
                # presumed not None (a binding meant to keep None would leave it out).
                consts[name] = NOT_NONE
        return FuncValue(fv.info, frozenset(bound), fv.bound_self, fv.transform, partial=True, binding=fv.binding,
                         consts=tuple(consts.items()))


def _argument(expr: cst.Call, arg_values: list[Value], position: int, keyword: str) -> Value:
    """The value passed to a call's parameter `keyword`, which is the `position`-th positional one."""
    n = 0
    for arg, value in zip(expr.args, arg_values):
        if arg.star:
            return None  # `f(*args)`: positions unknown from here on
        if arg.keyword is None:
            if n == position:
                return value
            n += 1
        elif arg.keyword.value == keyword:
            return value
    return None


def _keyword(expr: cst.Call, arg_values: list[Value], keyword: str) -> Value:
    """The value passed to a keyword-only parameter (None when not passed, or hidden in `**kwargs`)."""
    for arg, value in zip(expr.args, arg_values):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return value
    return None


Handler = Callable[..., object]

# Each category of the tables (by the names it holds) and its handler, in precedence order.
_CATEGORIES: tuple[tuple[Callable[[str], bool], Handler], ...] = (
    (lambda q: q in jaxapi.TRANSFORMS, Library._transform),
    (lambda q: q in jaxapi.LIFTED_TRANSFORMS, Library._lifted_transform),
    (lambda q: q in jaxapi.CONSTRUCTORS, Library._constructor),
    (lambda q: q == "functools.partial", Library._partial),
    (lambda q: q in jaxapi.LAX_BODIES or q in jaxapi.LAX_SWITCH, Library._lax_body),
    (lambda q: q in jaxapi.CALLBACKS, Library._callback),
    (lambda q: q in jaxapi.TREE_MAPS, Library._tree_map),
    (lambda q: q in jaxapi.STATIC_FUNCS or q in jaxapi.CONCRETIZERS or q.startswith("math."), Library._static),
    (lambda q: q in jaxapi.CONSTANT_COLLECTIVES, Library._constant_collective),
    (lambda q: q.startswith("numpy."), Library._numpy),
    (lambda q: q == "jax.lax.stop_gradient", Library._stop_gradient),
    (lambda q: q in jaxapi.ARRAY_LISTS, Library._array_list),
    (lambda q: q in jaxapi.ARRAY_LIST_PER_AXIS, Library._array_per_axis),
    (lambda q: q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) or q in jaxapi.ARRAY_FUNCTIONS, Library._array),
    (lambda q: q in jaxapi.TREE_REPLACE, Library._tree_replace),
    (lambda q: q in jaxapi.TREE_FUNCTIONS, Library._tree_function),
    (lambda q: q in _STATIC_BUILTINS or q in _COMPARING_BUILTINS, Library._static),
    (lambda q: q in _PASSING_BUILTINS, Library._passing_builtin),
    (lambda q: q in jaxapi.PASS_THROUGH, Library._pass_through),
    (lambda q: q.startswith("jax."), Library._other_jax),
)
# The argument (position, keyword) whose structure a lax loop gives back (its initial carry).
_CARRY_POSITION = {"jax.lax.fori_loop": (3, "init_val"), "jax.lax.while_loop": (2, "init_val")}

# qualified name -> the handlers of its categories, in order (found once per name)
_HANDLERS: dict[str, tuple[Handler, ...]] = {}


def pytree_output(result: Taint, info: FunctionInfo) -> Taint:
    """What a call of jitted `info` (or `lax.cond` of branch `info`) gives back, `result` being an array of
    the caller's: the structure every context walked so far returns (one structure when they agree, else
    just "a container" when all return one), its leaves arrays; unknown (opaque) when its body returns
    Python values, something of unknown kind, or a container in some contexts only; an array otherwise."""
    known = [v.return_taint for v in info.variants.values() if v.returns_known]
    if known and all(t is None for t in known):
        # Python values (lists grown by `.append`, a literal): their structure is unknown here
        return dataclasses.replace(result, is_array=False, is_bool=False, opaque=True)
    if not known or not any(isinstance(t, Taint) and (t.container or t.opaque) for t in known):
        return result
    if not all(isinstance(t, Taint) and t.container for t in known):
        # of unknown kind in some context (what an unknown call returns), or a container in some contexts
        # only (`return levels` or `return jnp.concatenate(levels)` by a flag): not known to be an array
        return dataclasses.replace(result, is_array=False, is_bool=False, opaque=True)
    if all(t == known[0] for t in known):
        return pytree_like(result, known[0], 0)
    return dataclasses.replace(result, container=True, is_array=False, is_bool=False)


def _python_sequence(args) -> bool:
    """The one argument is written as a Python tuple or list: a literal, or an array's `.shape`."""
    if not args:
        return False
    value = args[0].value
    return isinstance(value, (cst.Tuple, cst.List)) or isinstance(value, cst.Attribute) and value.attr.value == "shape"
