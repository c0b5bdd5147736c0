"""Calls: what a call calls (a library function, a function or method of the module, a Module, a layer, an
unknown callable) and the value it gives; the call is recorded for the recompile rules either way. Library
calls are ``jitlint.analysis.eval.library``'s, calls of the module's own functions
``jitlint.analysis.eval.binding``'s."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.eval.frameworks import layer_output
from jitlint.analysis.eval.library import UNKNOWN
from jitlint.analysis.literals import literal_const
from jitlint.analysis.objects import FuncValue, InstanceValue, Value, value_taint
from jitlint.analysis.sites import CallSite
from jitlint.analysis.values import TRACED, Taint, join

_CONCRETIZING_METHODS = ("item", "tolist", "__bool__", "__int__", "__float__", "__index__")


class Calls(Frame):
    """The transfer function of calls, and the resolution of methods."""

    def expr_Call(self, expr: cst.Call) -> Taint | None:
        self.last_call_value = self.last_call_statics = None
        facts = self.facts
        func = expr.func
        q = self.qualify_call_target(func)
        receiver: Taint | None = None
        callee_value: Value = None
        fcls = func.__class__
        if fcls is cst.Attribute:
            receiver = self.expr(func.value)
        elif fcls is cst.Call:
            self.expr(func)
            callee_value = self.last_call_value
        elif fcls is cst.Name:
            callee_value = self.lookup(func.value)
        else:
            self.expr(func)
        # Function arguments: keep callables for transforms; everything else as taints.
        arg_values: list[Value] = []
        for arg in expr.args:
            acls = arg.value.__class__
            if acls is cst.Lambda:
                arg_values.append(self.value(arg.value))
            elif acls is cst.Name:
                v = self.value(arg.value)
                arg_values.append(self.module_ref(arg.value) if v is None else v)  # (`f(x, np)`: the module)
            elif acls is cst.Call:
                t = self.expr(arg.value)
                arg_values.append(self.last_call_value if self.last_call_value is not None else t)
            else:
                t = self.expr(arg.value)
                method = self.resolve_method(arg.value, as_value=True) if acls is cst.Attribute else None
                arg_values.append(method if method is not None and t is None else (t or literal_const(arg.value)))
        self.last_call_value = self.last_call_statics = None
        self.record(expr)
        facts.call_names[expr] = q
        callee = callee_value if isinstance(callee_value, FuncValue) else None
        if callee is None and fcls is cst.Attribute:
            callee = self.resolve_method(func)
        elif callee is None and fcls is cst.Name and isinstance(callee_value, InstanceValue) and \
                callee_value.class_name in facts.classes:
            callee = self.method_of(callee_value.class_name, "__call__")  # `model(tokens)`: its `__call__`
        before = facts.call_sites.get(expr)
        facts.call_sites[expr] = CallSite(expr, self.info, self.scope, self.loops[-1][0] if self.loops else None, q,
                                          arg_values, self.recording or (before is not None and before.traced),
                                          callee, self.varying(), tuple(loop for loop, _ in self.loops),
                                          eager=not self.recording or (before is not None and before.eager),
                                          none_tests=tuple(self.none_here))
        arg_taints = [value_taint(v) for v in arg_values]
        any_arg = join(*arg_taints)
        in_jit = self.recording and self.staged

        if q is not None:
            result = self.known_call(expr, q, arg_values, arg_taints, in_jit)
            if result is not UNKNOWN:
                return result
            if self.recording and self.variant is not None and "." in q and callee_value is None \
                    and not self.compile_time_eval:
                # a function another module may define, called from traced code: its context crosses over
                specs = tuple((a.keyword.value if a.keyword is not None else None, a.star) for a in expr.args)
                facts.foreign_calls[(id(expr), self.variant.key)] = (
                    self.info, expr, q, specs, tuple(self.as_handed(expr, arg_values)), in_jit, self.open_guard)
            if callee_value is None and facts.imported_kind is not None and (in_jit or any_arg is not None) and \
                    "." in q and facts.imported_kind(q) == "returns array":
                # another project module's function whose every return computes with jax.numpy & co.
                return Taint(any_arg.level if any_arg is not None else TRACED, f"{q.rsplit('.', 1)[-1]}(...)",
                             is_array=True)
        elif fcls is cst.Call and callee_value is None and (in_jit or any_arg is not None) and \
                facts.imported_kind is not None:
            derived = self._imported_derivative(func, any_arg.level if any_arg is not None else TRACED)
            if derived is not None:
                return derived
        # Calling a transformed callable: jax.jit(f)(x), vmap(f)(x), or a name bound to one.
        if isinstance(callee_value, FuncValue):
            return self.call_local(expr, callee_value, arg_values, in_jit)
        if callee_value is None and fcls is cst.Name:
            # `kernel = plain if state is None else jitted`, then `kernel(...)`: a call of one or the other
            choices = self._chosen_functions(func.value)
            if choices:
                return join(*(self.call_local(expr, fv, arg_values, in_jit) for fv in choices))
        # Calling a traced Module (`model(x)` inside `nnx.jit`): its `__call__` runs, traced.
        if isinstance(callee_value, Taint) and callee_value.class_name is not None:
            call = facts.method(callee_value.class_name, "__call__")
            if call is not None:
                return self.call_local(expr, FuncValue(call, bound_self=True), arg_values, in_jit,
                                       self_value=callee_value)
        if fcls is cst.Call and facts.call_names.get(func) in jaxapi.ARRAY_LAYERS and any_arg is not None:
            return layer_output(any_arg)  # `nn.Dense(4)(x)`: a linen layer applied where it is built
        if isinstance(func, cst.Attribute):
            return self._attribute_call(expr, func, receiver, arg_values, arg_taints, any_arg, in_jit)
        if isinstance(func, cst.Name) and func.value in facts.classes:
            self.last_call_value = InstanceValue(func.value)
            init = facts.method(func.value, "__init__")
            if init is not None and self.recording:
                self.call_local(expr, FuncValue(init), arg_values, in_jit, skip_first=True)
            return dataclasses.replace(any_arg, container=True, is_array=False) if any_arg else None
        result = join(any_arg, receiver)
        if result is not None:
            # An unknown function of traced values: most return arrays, but some return Python values
            # (`is_valid(x)`), so the result is traced but of unknown kind.
            return dataclasses.replace(result, container=False, is_bool=False, is_array=False, filtered=False,
                                       opaque=True)
        return None

    def _imported_derivative(self, transformed: cst.Call, level: int) -> Taint | None:
        """`jax.value_and_grad(losses.loss_fn)(params, x)` of another project module's function that returns
        arrays, called in traced code: the value is a traced array, the gradients a pytree of them. (Its
        jnp computations are traced under jit whatever the arguments.)"""
        transform = jaxapi.TRANSFORMS.get(self.facts.call_names.get(transformed) or "")
        if transform is None or transform.kind != "grad" or not transform.returns_function or not transformed.args:
            return None
        q = self.qualify_call_target(transformed.args[0].value)
        if q is None or "." not in q or self.facts.imported_kind(q) != "returns array":
            return None
        origin = f"{q.rsplit('.', 1)[-1]}(...)"
        grads = Taint(level, origin, opaque=True)
        if transform.result != "value_and_argument":
            return grads
        return Taint(level, origin, container=True, elements=(Taint(level, origin, is_array=True), grads))

    def _attribute_call(self, expr: cst.Call, func: cst.Attribute, receiver: Taint | None, arg_values: list[Value],
                        arg_taints: list, any_arg: Taint | None, in_jit: bool) -> Taint | None:
        """`obj.method(...)`: a method of the module (through `self`, an object of a local class, a traced
        Module), a linen Module's own state, an nnx/equinox layer field, or a method of a value."""
        facts = self.facts
        method = self.resolve_method(func)
        state = self.linen_state(func) if method is None and in_jit else None
        if state is not None:
            return state
        if method is None and receiver is not None and receiver.class_name is not None and \
                facts.field_kind(receiver.class_name, func.attr.value, receiver.filtered) == "layer":
            return layer_output(join(any_arg, receiver))  # `self.linear(x)`: an nnx/equinox layer field
        if method is None and receiver is not None and receiver.class_name is not None:
            m = facts.method(receiver.class_name, func.attr.value)
            method = FuncValue(m, bound_self=True) if m is not None and not m.is_property else None
            if method is None:
                method = self.held_apply_fn(receiver.class_name, func.attr.value)
                if method is not None:
                    return self.call_local(expr, method, arg_values, in_jit)
        if method is not None:
            me = receiver if receiver is not None and receiver.class_name is not None else None
            return self.call_local(expr, method, arg_values, in_jit, skip_first=True, self_value=me)
        if isinstance(func.value, cst.Name) and func.value.value in facts.classes:
            m = facts.method(func.value.value, func.attr.value)
            if m is not None:
                return self.call_local(expr, FuncValue(m), arg_values, in_jit)
        return self._method_call(func.attr.value, receiver, arg_taints, expr)

    def _method_call(self, name: str, receiver: Taint | None, arg_taints, expr: cst.Call) -> Taint | None:
        """A method of a value the module does not define (an array's, a dict's, a Python object's)."""
        if receiver is None:
            # `obj.method(x)` on a Python object: most such methods compute on arrays, but jitlint
            # cannot know what this one returns.
            joined = join(*arg_taints)
            if joined is not None and self.recording:
                return dataclasses.replace(joined, container=False, is_bool=False, is_array=False, opaque=True,
                                           flattened=False)
            return None
        if name in _CONCRETIZING_METHODS:
            return None  # concretizes (a rule reports it); the Python value is static afterwards
        if name in jaxapi.HOST_METHODS:
            return None  # a scipy.sparse/pandas object's: host data, never a tracer
        if name in ("keys",):
            return None
        if name in ("items", "values"):
            return dataclasses.replace(receiver, container=True, is_array=False, is_bool=False)
        if name in ("astype", "view"):
            is_bool = bool(expr.args) and self.qualify_call_target(expr.args[0].value) in jaxapi.BOOL_DTYPES | {"bool"}
            return Taint(receiver.level, receiver.origin, is_bool=is_bool, is_array=True)
        if name in ("any", "all"):
            return Taint(receiver.level, receiver.origin, is_bool=True, is_array=True)
        if name in ("get", "pop", "setdefault") and not receiver.is_array and len(expr.args) > 1:
            # `options.get("chunk_size", CHUNK)`: the entry when the key is there, else the default (a Python
            # int here): of unknown kind (jax-linear-attention's kernel options, fresh set AL)
            return Taint(receiver.level, receiver.origin, opaque=True)
        if name in ("get", "copy", "values", "items", "pop", "setdefault") and not receiver.is_array:
            return dataclasses.replace(receiver, container=name in ("values", "items"), filtered=receiver.filtered)
        is_bool = receiver.is_bool and name in ("reshape", "ravel", "flatten", "squeeze", "transpose", "__invert__")
        if name not in jaxapi.ARRAY_ATTRIBUTES:
            # `quote["timestamp"].split(".")`: no array has this method, so the receiver was no array (a
            # string, an object a pytree holds) and what it returns is of unknown kind (jaxlob, fresh set AG)
            return Taint(receiver.level, receiver.origin, opaque=True)
        if receiver.is_array or name in jaxapi.ARRAY_METHODS:
            # Only arrays have these methods, so the receiver was an array after all.
            return Taint(receiver.level, receiver.origin, is_bool=is_bool, is_array=True)
        return Taint(receiver.level, receiver.origin, opaque=True)

    # ------------------------------------------------------------------ methods of the module's classes
    def _chosen_functions(self, name: str) -> list[FuncValue]:
        """The functions a name bound only by conditional expressions between named functions may be
        (`f = a if c else b`), each of them; [] otherwise."""
        table = self.info.assignments if self.info is not None else self.facts.module_assignments
        sources = table.get(name, [])
        out: list[FuncValue] = []
        for source in sources:
            if not isinstance(source, cst.IfExp):
                return []
            for branch in (source.body, source.orelse):
                value = self.lookup(branch.value) if isinstance(branch, cst.Name) else None
                if not isinstance(value, FuncValue):
                    return []
                out.append(value)
        return out

    def resolve_method(self, func: cst.Attribute, as_value: bool = False) -> FuncValue | InstanceValue | None:
        """`self.method` inside a class, `obj.method` with `obj = LocalClass(...)`, or `LocalClass(...).method`;
        through what the object holds: `self.step` set to `jax.jit(...)` in `__init__`, `self.block(x)` /
        `self.block.f(x)` of `self.block = Block(...)`. Called, `self.block` runs its `__call__`; `as_value`
        (an argument, not a callee): `self.block` is the instance itself (an nnx Module is a pytree, not a
        function)."""
        facts = self.facts
        base = func.value
        held_owner = self.self_class(base.value) if isinstance(base, cst.Attribute) else None
        if held_owner is not None:
            held = facts.attribute_values.get((held_owner, base.attr.value))
            if isinstance(held, InstanceValue) and held.class_name in facts.classes:
                m = facts.method(held.class_name, func.attr.value)
                return FuncValue(m, bound_self=True) if m is not None and not m.is_property else None
            return None
        if isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value in facts.classes:
            return self.method_of(base.func.value, func.attr.value)  # `Model().apply(variables, x)`
        if not isinstance(base, cst.Name):
            return None
        self_owner = self.self_class(base)
        if self_owner is not None and facts.method(self_owner, func.attr.value) is None:
            held = facts.attribute_values.get((self_owner, func.attr.value))
            if isinstance(held, FuncValue):
                return held
            if isinstance(held, InstanceValue) and held.class_name in facts.classes:
                if as_value:
                    return held
                call = facts.method(held.class_name, "__call__")
                return FuncValue(call, bound_self=True) if call is not None else None
        owner: str | None = None
        info = self.info
        if info is not None and info.is_method and info.positional and base.value == info.positional[0]:
            owner = info.class_name
        else:
            v = self.lookup(base.value)
            if isinstance(v, InstanceValue) or isinstance(v, Taint) and v.class_name is not None:
                owner = v.class_name
        if owner is None or owner not in facts.classes:
            return None
        return self.method_of(owner, func.attr.value)

    def method_of(self, owner: str, name: str) -> FuncValue | None:
        """The bound method `name` of an instance of the local class `owner`."""
        facts = self.facts
        m = facts.method(owner, name)
        if m is None and name in jaxapi.APPLY_METHODS and facts.framework_of(owner) == "linen":
            # `model.apply(variables, x, method=...)` runs `__call__` (or the named method) on `x`.
            m = facts.method(owner, "__call__")
            if m is not None:
                return FuncValue(m, bound_self=True, skip_args=jaxapi.APPLY_METHODS[name])
        if m is None or m.is_property:
            return None  # `self.probs` of a @property is the value it returns, not a method
        return FuncValue(m, bound_self=True)
