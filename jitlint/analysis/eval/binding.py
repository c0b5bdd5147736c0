"""Calling the module's own functions: binding a call's arguments to the callee's parameters, requesting the
callee's calling context and reading what it returns there; and what callers tell of a jitted function's
parameters (defaults passed, Module classes, Python scalars) and of an eagerly called one's (the functions
and objects passed)."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.eval.library import as_container, pytree_output
from jitlint.analysis.objects import FuncValue, FunctionInfo, InstanceValue, TraceEdge, Value, Variant, value_taint
from jitlint.analysis.scheduler import returns_of
from jitlint.analysis.values import NOT_NONE, Const, KnownTruth, NotNone, Taint, join, pytree_like


class Binding(Frame):
    """Interprocedural calls."""

    def call_local(self, expr: cst.Call, fv: FuncValue, arg_values: list[Value], in_jit: bool,
                   skip_first: bool = False, self_value: Taint | None = None) -> Taint | None:
        """A call of a function of the module: a jitted one (its own context: an array), in eager code
        (what it is passed and gives back), in traced code (traced in the context the arguments make)."""
        info = fv.info
        arg_taints = [value_taint(v) for v in arg_values]
        any_arg = join(*arg_taints)
        if fv.transform is not None or info.jit_binding is not None and not fv.partial:
            # Calling a jitted function: it has its own context; the result is an array.
            self._note_passed(info, expr, fv, skip_first or fv.bound_self, reaches_trace=True)
            self._note_classes(info, expr, fv, arg_values, skip_first or fv.bound_self)
            self._note_scalars(info, expr, fv, arg_values, skip_first or fv.bound_self)
            result = self.array_result(any_arg, in_jit, expr, "jit") if (any_arg or in_jit) else None
            if result is not None and self.variant is not None:
                for variant in list(info.variants.values()):  # (walked again when what it returns changes)
                    self.read_return_of(info, variant)
            if result is not None and fv.derivative is None:
                # `return xs, ys, extent` with lists built by `.append`: a jitted function returns the pytree
                # its body does (a list stays a list), every leaf an array
                result = pytree_output(result, info)
            return _derivative_result(fv, result, arg_taints)
        returned = _returned_def(info)
        if not self.recording:
            # (`jax.vmap(f, axes)(xs, flags)`, `g(xs, flags)` of `g = jax.vmap(f)`: a transformed call, whose
            # trace gets what it passes; a plain `f(x, flag=True)` passes it to no trace)
            self._note_passed(info, expr, fv, skip_first or fv.bound_self,
                              reaches_trace=not _names_the_def(expr, info))
            self._note_eager_objects(info, expr, fv, arg_values, skip_first or fv.bound_self)
            instance = self._returned_instance(info)
            self.last_call_value = FuncValue(returned) if returned is not None else instance
            return None
        self.last_call_value = FuncValue(returned) if returned is not None else None
        params = self._bind_args(info, expr, fv, self.as_handed(expr, arg_values), skip_first or fv.bound_self)
        for name, value in params.items():
            # `def _mesh_transport(cell_data, grid: TPUGrid)` given a traced pytree of no known class (a
            # loop carry's element): the annotation says which, and so which of its fields are static
            if isinstance(value, Taint) and value.class_name is None and not value.container and not value.is_array:
                cls = self.module_class_of(info, name)
                if cls is not None:
                    params[name] = dataclasses.replace(value, class_name=cls)
        if self_value is not None and info.is_method and info.positional:
            params[info.positional[0]] = self_value
        # Under `jax.ensure_compile_time_eval()` what the callee computes from constants is concrete too:
        # the `with` reaches everything called inside it, not only its own lines.
        traces_constants = self.staged
        context = Context(ContextKind.HELPER, caller=self.info.name, traces_constants=traces_constants)
        variant = self.scheduler.request(info, context, params,
                                         self.closure_for(info), traces_constants,
                                         TraceEdge("call", expr, "", self.info, guard=self.open_guard,
                                                   caller_variant=self.variant_key))
        if variant is not None:
            self.read_return_of(info, variant)
            if variant.returns_known and variant.never_returns and self.traced:
                self.live = False  # it raises whenever called so: the statements after this one are not run
            if variant.returns_known:  # walked in this context: None means a Python value
                self.last_call_statics = variant.return_static
                if variant.return_taint is None and fv.derivative is None:
                    self.facts.call_statics[(id(expr), self.variant_key)] = variant.return_static
                if variant.return_taint is None and isinstance(variant.return_static, KnownTruth) and \
                        fv.derivative is None and self.last_call_value is None:
                    self.last_call_value = variant.return_static  # (`flag = is_scalar(x)`: decides `if flag:`)
                if variant.return_taint is None and variant.returns_not_none and fv.derivative is None and \
                        self.last_call_value is None:
                    self.last_call_value = NOT_NONE  # (`p = pick(n)` after `if p is None:`: decides `p is None`)
                return _derivative_result(fv, variant.return_taint, arg_taints)
        return dataclasses.replace(any_arg, container=False, is_array=False, opaque=True,
                                   flattened=False) if any_arg else None

    def as_handed(self, expr: cst.Call, arg_values: list[Value]) -> list[Value]:
        """What a helper of traced code receives for each argument: a module-level jnp array handed on as it
        is stays the concrete array it is, only JAX computing with it makes a tracer (measured:
        `onp.array(SPECIES)` in a helper of a jitted function runs; jax-md's notebooks pass `species` so)."""
        return [None if arg.value in self.facts.bare_constants else v for arg, v in zip(expr.args, arg_values)]

    def read_return_of(self, info: FunctionInfo, variant: Variant) -> None:
        """This walk reads what `info` returns in `variant`: walk it now if still unknown, and have this
        context walked again if it changes."""
        self.scheduler.reads(returns_of(info, variant), self.info, self.variant.key)
        self.scheduler.settle(info, variant)

    # ------------------------------------------------------------------ what callers tell
    def _note_eager_objects(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                            skip_self: bool) -> None:
        """Functions and objects an eager caller passes (a model to a loss factory): the callee's eager walk
        sees them; two callers passing different ones leave the parameter unknown."""
        grew = False
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            if not isinstance(v, (FuncValue, InstanceValue)):
                v = None
            if name not in info.eager_values:
                info.eager_values[name] = v
                grew = grew or v is not None
            elif info.eager_values[name] != v:
                grew = grew or info.eager_values[name] is not None
                info.eager_values[name] = None
        if grew and info.eager_done:
            self.scheduler.walk_eager_again(info)

    def _note_classes(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                      skip_self: bool) -> None:
        """Objects of local Module classes passed to a jitted function: its body calls their methods."""
        grew = False
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            cls = v.class_name if isinstance(v, InstanceValue) else None
            if cls is None or not self.facts.pytree_class(cls):
                continue
            if name not in info.param_classes:
                info.param_classes[name] = cls
                grew = True
            elif info.param_classes[name] != cls:
                info.param_classes[name] = None
        if grew and info.traced:
            self.scheduler.refresh(info)

    def _note_scalars(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                      skip_self: bool) -> None:
        """Python numbers and bools callers pass to a jitted function (`step(x, True)`): traced scalars
        inside, whose truth value JAX cannot take."""
        changed = False
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            for table, kinds in ((info.param_scalars, (bool, int, float)), (info.param_strings, (str,))):
                passed = isinstance(v, Const) and type(v.value) in kinds
                before = table.get(name)
                now = passed if before is None else before and passed
                if now != before:
                    table[name] = now
                    changed = True
        if changed and info.traced:
            self.scheduler.refresh(info)

    def _note_passed(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, skip_self: bool,
                     reaches_trace: bool) -> None:
        """Remember which defaulted parameters callers pass (they are traced when a call that reaches a trace
        passes them; passed only eagerly, their value in a trace is not known to be the default either)."""
        names = {n for n in self._param_names_for_args(info, expr, fv, skip_self) if n in info.defaults}
        newly = names - info.passed_params
        newly_traced = names - info.trace_passed_params if reaches_trace else set()
        if newly or newly_traced:
            info.passed_params |= newly
            info.trace_passed_params |= newly_traced
            if info.traced:
                self.scheduler.refresh(info)

    # ------------------------------------------------------------------ arguments to parameters
    def _passed_values(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                       skip_self: bool) -> dict[str, Value]:
        """Parameter -> the abstract value this call passes it (nothing when `*`/`**` hide the positions)."""
        if any(arg.star for arg in expr.args):
            return {}
        names = self._param_names_for_args(info, expr, fv, skip_self)
        keyword = {arg.keyword.value: v for arg, v in zip(expr.args, arg_values) if arg.keyword is not None}
        positional = [v for arg, v in zip(expr.args, arg_values) if arg.keyword is None]
        values = dict(zip([n for n in names if n not in keyword], positional))
        values.update(keyword)
        return {name: v for name, v in values.items() if name in info.params}

    def _param_names_for_args(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, skip_self: bool) -> list[str]:
        positional = [p for p in info.positional if p not in fv.bound]
        if skip_self and info.is_method and positional:
            positional = positional[1:]
        names = []
        i = -fv.skip_args
        for arg in expr.args:
            if arg.keyword is not None:
                names.append(arg.keyword.value)
            elif arg.star == "*":
                names.extend(positional[max(i, 0):])
                i = len(positional)
            elif arg.star == "**":
                names.extend(p for p in info.params if p not in names)
            else:
                if 0 <= i < len(positional):
                    names.append(positional[i])
                i += 1
        return names

    def _bind_args(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                   skip_self: bool) -> dict[str, Value]:
        positional = [p for p in info.positional if p not in fv.bound]
        if skip_self and info.is_method and positional:
            positional = positional[1:]
        specs = [(arg.keyword.value if arg.keyword is not None else None, arg.star) for arg in expr.args]
        return bind_arguments(info, positional, specs, arg_values, dict(fv.consts), fv.skip_args)

    # ------------------------------------------------------------------ what comes back
    def _returned_instance(self, info: FunctionInfo) -> InstanceValue | None:
        """The object a builder function returns on every path (`return TrainState.create(...)`,
        `return Model(...)`), when it is a pytree jitlint knows."""
        found: set[str] = set()
        for ret in runs.own_returns(info):
            call = ret.value
            if not isinstance(call, cst.Call):
                return None
            q = info.scope.qualify(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
            if q in jaxapi.CONSTRUCTORS:
                found.add(jaxapi.CONSTRUCTORS[q][0])
            elif isinstance(call.func, cst.Name) and call.func.value in self.facts.classes:
                found.add(call.func.value)
            else:
                return None
        return InstanceValue(found.pop()) if len(found) == 1 else None


def _returned_def(info: FunctionInfo) -> FunctionInfo | None:
    """The nested def a factory returns (`return loss_fn` on every path), else None."""
    names = {r.value.value if isinstance(r.value, cst.Name) else None for r in runs.own_returns(info)}
    if len(names) != 1:
        return None
    name = names.pop()
    return info.local_defs.get(name) if name is not None else None


def _derivative_result(fv: FuncValue, result: Taint | None, arg_taints: list) -> Taint | None:
    """What a call of `jax.grad(f)` & co. returns (FuncValue.derivative), given what `f` returns: the
    structure of the argument differentiated, an array only where every argument is one (`argnums` may
    pick any), a pytree of tracers for a dict of parameters, else unknown; value_and_grad: the pair."""
    if result is None or fv.derivative is None:
        return result
    if arg_taints and all(isinstance(t, Taint) and t.is_array and not t.container and not t.opaque
                          for t in arg_taints):
        grads = result
    elif arg_taints and isinstance(arg_taints[0], Taint) and arg_taints[0].container:
        # the gradient has the argument's structure, an array at each leaf (a part of unknown kind, such as
        # a Python list of layers, is opaque: qjax's `grads["weights"] + grads["biases"]`, set AV)
        leaf = dataclasses.replace(result, container=False, is_array=True, is_bool=False, elements=None, keys=None,
                                   mapping=False, opaque=False)
        grads = pytree_like(leaf, arg_taints[0])
    else:
        grads = dataclasses.replace(result, is_array=False, is_bool=False, opaque=True, flattened=False)
    if fv.derivative == "like_argument":
        return grads
    value = dataclasses.replace(result, is_bool=False)  # a scalar array (or `(value, aux)` with has_aux)
    return dataclasses.replace(result, container=True, is_array=False, is_bool=False, elements=(value, grads))


def _last_star(specs) -> int:
    return max((k for k, (_, star) in enumerate(specs) if star == "*"), default=-1)


def _tail_after_star(info: FunctionInfo, positional: list[str], specs) -> int:
    """How many positional parameters the plain arguments after the last `*c` fill, counted from the end:
    `rows(*c, g, int(k))` of `def rows(a, b, g, k)` binds `g` and `k` whatever `c` holds, when every
    positional parameter is required and there is no `*args` (the call runs only if the counts add up);
    0 when that is not certain."""
    last = _last_star(specs)
    if last < 0 or info.vararg or any(p in info.defaults for p in positional):
        return 0
    after = specs[last + 1:]
    if any(star for _, star in after):
        return 0
    count = sum(1 for keyword, _ in after if keyword is None)
    return count if count <= len(positional) else 0


def bind_arguments(info: FunctionInfo, positional: list[str], specs, arg_values, params: dict[str, Value],
                   skip_args: int = 0) -> dict[str, Value]:
    """Parameter -> value for a call passing `arg_values`, each written as `specs` says ((keyword, star));
    `positional`: the parameters positional arguments fill; `params`: those bound already (a partial's);
    `skip_args`: arguments before the function's own (the variables of `model.apply`). Defaults not
    passed are their values."""
    i = -skip_args
    extra: list[Taint | None] = []  # what the positional arguments past the named ones hold, in order
    tail = _tail_after_star(info, positional, specs)
    for (keyword, star), value in zip(specs, arg_values):
        taint = value_taint(value)
        passed = value if isinstance(value, (Const, NotNone, KnownTruth)) else taint
        if keyword is not None:
            if keyword in info.params:
                params[keyword] = passed
            elif info.kwarg:
                params[info.kwarg] = join(params.get(info.kwarg), as_container(taint))
        elif star == "*" and taint is not None and taint.container and taint.elements is not None and \
                i >= 0 and not tail and not info.vararg and len(taint.elements) == len(positional) - i:
            # `f(*c)` of a tuple whose positions are known (a lax body's operand `(xs, ys, k)`): each
            # parameter gets its item
            for p, item in zip(positional[i:], taint.elements):
                params[p] = item
            i = len(positional)
        elif star == "*":
            for p in positional[max(i, 0):len(positional) - tail]:
                params[p] = taint
            if info.vararg:
                params[info.vararg] = as_container(taint)
            i = len(positional) - tail
        elif star == "**":
            # `**kw` fills named parameters (and `**kwargs`), never `*args`; which ones it fills is the
            # mapping's keys, unknown here: a parameter may keep its default, so what it holds is not
            # certain (`soft_sphere_pair(displacement, **params)` with traced `sigma` and `alpha` does not
            # trace `species`: jax-md's notebooks)
            maybe = dataclasses.replace(taint, opaque=True) if taint is not None else None
            for p in info.params:
                if p != info.vararg:
                    params.setdefault(p, maybe if p in info.defaults and p != info.kwarg else taint)
        else:
            if 0 <= i < len(positional):
                params[positional[i]] = passed
            elif i >= 0 and info.vararg:
                extra.append(taint)
            i += 1
    if info.vararg and info.vararg not in params and not any(star == "*" for _, star in specs):
        # `*args` is the tuple of the positional arguments past the named ones: its length and positions are
        # this call's (`if len(args) == 2: ncol = args[0]` is decided per call; jax-galsim, fresh set M)
        holding = join(*extra)
        params[info.vararg] = Const(()) if not extra else None if holding is None else dataclasses.replace(
            holding, container=True, is_array=False, is_bool=False, opaque=False, elements=tuple(extra))
    if not any(star for _, star in specs):
        for name in info.defaults - params.keys():
            params[name] = info.default_const(name)  # not passed: the default's value
    return params


def _names_the_def(expr: cst.Call, info: FunctionInfo) -> bool:
    """`f(...)` or `obj.f(...)` of an undecorated def: an eager call of the def itself, not of a transformed
    value bound to another name. What it passes a defaulted parameter reaches no trace of `f` (jax-gptq's
    eager `eval_jaxpr_with_quantized_args(..., remat_unpack=...)`, whose pjit'd partial leaves it at its
    default: fresh set BS). A decorated def's name is bound to what its decorators made (`@custom_vjp` over
    `@jit`: ejkernel's `_mean_pooling`, fresh set W), which may trace it."""
    if isinstance(info.node, cst.FunctionDef) and info.node.decorators:
        return False
    f = expr.func
    name = f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else None
    return name == info.name
