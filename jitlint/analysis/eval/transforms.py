"""Transforms: starting trace contexts where code meets a transform (`@jax.jit`, `jax.vmap(f)`, `jax.grad(f)`,
decorators and calls, chains of them) or a control-flow call's bodies (`lax.scan`, `cond`, `switch`, ...),
with the parameters' values each context traces them with and the jit options that bind them."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.literals import kwarg, literal_ints, literal_strs, positional_args
from jitlint.analysis.objects import FuncValue, FunctionInfo, InstanceValue, JitBinding, TraceEdge, Value, annotation_kind
from jitlint.analysis.scheduler import ContextStart
from jitlint.analysis.sites import JitCreation
from jitlint.analysis.values import GRAD_TRACED, TRACED, KnownTruth, Taint
from jitlint.source.cstwalk import descendants

Chain = list[tuple[str, cst.Call | None]]  # the transforms applied to a function, outermost first


class Transforms(Frame):
    """Where trace contexts start."""

    def target(self, expr: cst.BaseExpression, value: Value = None) -> tuple[FuncValue | None, Chain]:
        """Resolve a transform's function argument: (the user function, inner transforms applied)."""
        if isinstance(value, FuncValue):
            return value, []
        if isinstance(expr, cst.Lambda):
            info = self.facts.lambda_info(expr, self.info, self.scope)
            return FuncValue(info), []
        if isinstance(expr, cst.Name):
            v = self.lookup(expr.value)
            if isinstance(v, FuncValue):
                return v, []
            if isinstance(v, (Taint, InstanceValue)) and v.class_name in self.facts.classes:
                # `jax.vmap(model)` of a Module: its `__call__` is what is transformed.
                call = self.facts.method(v.class_name, "__call__")
                if call is not None:
                    return FuncValue(call, bound_self=True), []
            if expr.value in self.env or self.info is not None and expr.value in self.info.assignments:
                return None, []  # a local variable of unknown value hides a def of the same name (sax's passthru)
            fn = self.facts.lookup_function(expr.value, self.info)
            return (FuncValue(fn), []) if fn else (None, [])
        if isinstance(expr, cst.Attribute):
            return self.resolve_method(expr), []
        if isinstance(expr, cst.Call):
            q = self.qualify_call_target(expr.func)
            if q in jaxapi.PARTIALS and expr.args:
                inner, chain = self.target(expr.args[0].value)
                if inner is not None:
                    return self.partial_value(expr, inner), chain
                return None, []
            if q in jaxapi.TRANSFORMS and expr.args:
                inner, chain = self.target(expr.args[0].value)
                return inner, [(q, expr), *chain]
        return None, []

    def apply_transform(self, expr: cst.Call, q: str, transform: jaxapi.Transform, arg_values: list[Value]) -> None:
        """`jax.jit(f, ...)` and the like, called: start `f`'s context; the call gives the wrapped function."""
        pos = positional_args(expr)
        fun_arg = pos[0] if pos else kwarg(expr, "fun") or kwarg(expr, "f")
        if fun_arg is None:
            return  # decorator factory: `jax.jit(static_argnames=...)`, handled at the decorator
        if self.eager_depth:
            return  # under `jax.disable_jit()` transforms run eagerly
        index = list(expr.args).index(fun_arg)
        fv, chain = self.target(fun_arg.value, arg_values[index] if index < len(arg_values) else None)
        if q in jaxapi.JIT_WRAPPERS:
            self.facts.jit_creations[expr] = JitCreation(expr, fun_arg.value, q, self.info,
                                                         self.loops[-1][0] if self.loops else None, fv,
                                                         tuple(loop for loop, _ in self.loops), self.varying())
        if fv is None:
            return
        chain = [(q, expr), *chain]
        binding = self.start_context(fv, chain, expr)
        if transform.returns_function:  # not `out, f_jvp = jax.linearize(f, x)`: values, not a function
            derivative = transform.result if transform.kind == "grad" else fv.derivative
            self.last_call_value = dataclasses.replace(fv, transform=q if transform.kind == "jit" else None,
                                                       binding=binding, partial=False, derivative=derivative)
            module = arg_values[index] if index < len(arg_values) else None
            if transform.kind == "vmap" and isinstance(module, Taint) and module.class_name is not None:
                # `jax.vmap(model)(x)` of a traced Module: its `__call__` runs with the traced `self`
                self.last_call_value = module

    def decorated_context(self, info: FunctionInfo) -> JitBinding | None:
        """A def's transform decorators (`@jax.jit`, `@partial(jax.jit, ...)`): start its context."""
        node = info.node
        assert isinstance(node, cst.FunctionDef)
        chain: Chain = []
        if any(self._callback_decorator(dec.decorator) for dec in node.decorators):
            # `@jax.jit @wrap_pure_callback def f`: what is traced is the callback wrapper; f's body runs
            # on the host, with concrete values (serket's finite-difference tests, fresh set V)
            info.callback = True
            return None
        for dec in node.decorators:  # outermost first
            d = dec.decorator
            q = self.qualify_call_target(d.func) if isinstance(d, cst.Call) else self.qualify_call_target(d)
            if isinstance(d, cst.Call) and q in jaxapi.PARTIALS and d.args:
                inner_q = self.qualify_call_target(d.args[0].value)
                if inner_q in jaxapi.TRANSFORMS:
                    chain.append((inner_q, d))
                continue
            if q in jaxapi.TRANSFORMS:
                chain.append((q, d if isinstance(d, cst.Call) else None))
        if not chain:
            return None
        fv = FuncValue(info, bound_self=False)
        binding = self.start_context(fv, chain, node.decorators[0], decorated=True)
        if binding is not None and (self.info is not None or self.loops) and info.class_name is None:
            self.facts.jit_creations[node] = JitCreation(node.decorators[0], node, binding.transform, self.info,
                                                         self.loops[-1][0] if self.loops else None, fv,
                                                         tuple(loop for loop, _ in self.loops), self.varying())
        return binding

    def _callback_decorator(self, decorator: cst.BaseExpression) -> bool:
        """A decorator of the module that hands the function it decorates to a host callback
        (`jax.pure_callback(lambda *a: func(*a), ...)` in its wrapper): the decorated body runs on the host."""
        fv = self.lookup(decorator.value) if isinstance(decorator, cst.Name) else None
        if not isinstance(fv, FuncValue) or not fv.info.positional or isinstance(fv.info.node, cst.Lambda):
            return False
        param = fv.info.positional[0]
        body = fv.info.node.body
        # the names that stand for the decorated function: itself, and callables built from it in the body
        standing = {param}
        for node in descendants(body):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Lambda) and \
                    _mentions(node.value, standing):
                standing.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
        for node in descendants(body):
            if isinstance(node, cst.Call) and self.qualify_call_target(node.func) in jaxapi.CALLBACKS:
                pos = positional_args(node)
                if pos and _mentions(pos[0].value, standing):
                    return True
        return False

    def restart_context(self, start: ContextStart) -> None:
        """Start a context again as it was started (`Scheduler.refresh`)."""
        self.start_context(start.fv, list(start.chain), start.node, start.decorated, restart=True)

    def start_context(self, fv: FuncValue, chain: Chain, node: cst.CSTNode,
                      decorated: bool = False, restart: bool = False) -> JitBinding | None:
        """Trace `fv`'s function under the transforms of `chain`: which parameters are traced, and how;
        the jit binding (static options) when the outermost is a jit."""
        info = fv.info
        kinds = [jaxapi.TRANSFORMS[q] for q, _ in chain]
        tracing = [t for t in kinds if t.kind in ("jit", "vmap")]
        outer_q, outer_call = chain[0]
        binding: JitBinding | None = None
        static: set[str] = set(fv.bound)
        if info.is_method and info.positional and (decorated or fv.bound_self):
            static.add(info.positional[0])
        if not decorated:
            # `jax.jit(partial(render, ...))` of a def with its own `@jax.jit(static_argnames=...)`: the inner
            # jit still makes those parameters static (a tracer there raises at the call), whatever traces it
            static |= self._own_jit_statics(info, fv)
        statics_known = True
        by_options: set[str] = set()  # what the jit options make static (a decorated method's `self`?)
        static_entries: set[str] = set()  # `static_argnames` naming what arrives through `**kwargs`
        raises_at_wrap = False  # static options naming no parameter: the jit raises ValueError (JIT305)
        for q, call in chain:
            t = jaxapi.TRANSFORMS[q]
            if t.kind != "jit" or call is None:
                continue
            nums = literal_ints(self._static_kw(call, t.static_nums_kw)) if t.static_nums_kw else ()
            names = literal_strs(self._static_kw(call, t.static_names_kw)) if t.static_names_kw else ()
            if nums is None or names is None:
                statics_known = False
                nums, names = nums or (), names or ()
            raises_at_wrap |= any(info.invalid_static_options(nums, names, fv.bound, fv.bound_self))
            by_options |= info.static_param_names(nums, names, fv.bound, fv.bound_self)
            static |= by_options
            if info.kwarg is not None:
                static_entries |= {n for n in names if n not in info.params}
            if q == chain[0][0] and t is kinds[0] and q in jaxapi.JIT_WRAPPERS:
                binding = JitBinding(info.name if decorated else "", q, info,
                                     nums if statics_known else None, names if statics_known else None,
                                     node, fv.bound, fv.bound_self)
        if binding is None and outer_q in jaxapi.JIT_WRAPPERS:
            binding = JitBinding(info.name if decorated else "", outer_q, info, (), (), node, fv.bound,
                                 fv.bound_self)
        if binding is not None:
            self.facts.bindings[node] = binding
            if decorated:
                info.jit_binding = binding
        if tracing and tracing[0].kind == "jit" and statics_known and \
                any(info.param_strings.get(name) is True for name in info.params if name not in static):
            # every call seen passes a Python string to a traced parameter: JAX raises TypeError ("not a valid
            # JAX type") before tracing (hicosmo's polarization modes, fresh set BG)
            return binding
        self_refused = statics_known and self._self_never_traced(info, kinds, by_options, decorated, fv)
        if self_refused and decorated:
            info.calls_refused = True  # (every call raises TypeError at `self`: no other claim about the call holds)
        if raises_at_wrap or self_refused or self._vmap_never_traces(chain, info, fv) or \
                tracing and tracing[0].kind == "jit" and statics_known and not (tracing[0].filtered or
                                                                                tracing[0].graph_nodes) and \
                self._plain_object_required(info, static, fv):
            return binding  # never traced: wrapping it raises, or every call does before tracing
        if not tracing:
            grad = next((t for t in kinds if t.kind == "grad"), None)
            if grad is None:
                return binding
            # Plain grad: only the differentiated arguments carry (JVP) tracers.
            q, call = chain[[t.kind for t in kinds].index("grad")]
            argnums = literal_ints(kwarg(call, "argnums").value) if call is not None and kwarg(call, "argnums") else (0,)
            params = {}
            free = [p for p in info.positional if p not in static]
            for i in argnums or (0,):
                if 0 <= i < len(free):
                    params[free[i]] = Taint(GRAD_TRACED, free[i])
            self.scheduler.request(info, Context(ContextKind.GRAD, transform=q, traces_constants=False), params,
                                   self.closure_for(info), False,
                                   self._entry(info, node, decorated, q))
            return binding
        first = tracing[0]
        filtered = any(t.filtered for t in tracing)
        graph_nodes = any(t.graph_nodes for t in tracing)
        # (a vmap applied in code a jit stages is staged with it: its body is part of that program)
        traces_constants = any(t.traces_constants for t in tracing) or (
            self.recording and self.staged)
        vmap_static, not_passed = self._vmap_unbatched(chain, info, fv)
        params: dict[str, Value] = dict(fv.consts)  # partial-bound literals are constants in the body
        for name in info.params:
            if name in static or name in vmap_static or not statics_known:
                continue
            if name in info.defaults and (name not in info.passed_params or name in not_passed):
                # A Python default that no caller passes stays a Python value (its literal, if it is one).
                params[name] = info.default_const(name)
                continue
            kind = annotation_kind(info.annotations.get(name))
            module_class = self.module_class_of(info, name)
            if filtered and kind != "array" and module_class is None:
                continue  # equinox keeps non-array arguments static; an unannotated one may be either
            is_array = kind in ("array", "scalar") or name in info.scalar_defaults or \
                info.param_scalars.get(name) is True and first.kind == "jit"
            mapping = name == info.kwarg or kind == "mapping"  # **kwargs is a dict; so is `d: dict[str, Array]`
            container = name == info.vararg or mapping  # *args is a tuple
            # An nnx Module is a pytree under plain jax.jit too: its plain attributes are static there.
            nnx_module = module_class is not None and self.facts.framework_of(module_class) == "nnx"
            params[name] = Taint(TRACED, name, is_array=is_array and not container, container=container,
                                 filtered=(graph_nodes or filtered or nnx_module) and not is_array,
                                 class_name=module_class, mapping=mapping, flattened=True)
            if name in info.defaults and name not in info.trace_passed_params:
                # passed only by eager calls of the def: this trace sees the default, or whatever a call
                # jitlint cannot see passes -- not surely a tracer (jax-gptq's `remat_unpack`, fresh set BS)
                params[name] = dataclasses.replace(params[name], is_array=False, is_bool=False, opaque=True)
            if name == info.kwarg and static_entries:
                # `static_argnames=("mem_limit",)` of `f(m, **hierarchy)`: JAX keeps that keyword's value
                # static (measured on JAX 0.10.2; jaxFMM, fresh set BC), the other entries are traced leaves
                entries = tuple(sorted(static_entries))
                rest = Taint(TRACED, name, flattened=True)
                params[name] = dataclasses.replace(params[name], elements=(None,) * len(entries) + (rest,),
                                                   keys=entries + (None,))
        context = Context(ContextKind(first.kind), transform=outer_q, decorated=decorated,
                          traces_constants=traces_constants, filtered=filtered or graph_nodes)
        closure = self.closure_for(info)
        if self.switch_truths:  # the environment switches the branch it is traced from decided
            closure = {**(closure or {}), **{key: KnownTruth(truth) for key, truth in self.switch_truths}}
        self.scheduler.request(info, context, params, closure, traces_constants,
                               self._entry(info, node, decorated, outer_q))
        if not restart:
            self.scheduler.started(info, ContextStart(self.info, fv, tuple(chain), node, decorated))
        return binding

    @staticmethod
    def _entry(info: FunctionInfo, node: cst.CSTNode, decorated: bool, q: str) -> TraceEdge:
        """The witness step of a transform: the decorated def (`@jax.jit`), or the transform's call."""
        short = q.replace("jax.numpy", "jnp")
        if decorated:
            return TraceEdge("entry", node, f"`@{short}`")  # the decorator
        return TraceEdge("entry", node, f"`{short}(...)`")

    def _own_jit_statics(self, info: FunctionInfo, fv: FuncValue) -> set[str]:
        """The parameters a def's own jit decorator (`@jax.jit(static_argnames=...)`,
        `@partial(jax.jit, static_argnums=...)`) makes static, when its options are literals."""
        out: set[str] = set()
        for _, nums, names in self._own_jit_decorators(info):
            out |= info.static_param_names(nums or (), names or (), fv.bound, fv.bound_self)
        return out

    def _own_jit_decorators(self, info: FunctionInfo):
        """(transform, static_argnums, static_argnames) of each jit decorator of a def (`@jax.jit`,
        `@jax.jit(static_argnames=...)`, `@partial(jax.jit, static_argnums=...)`): () where the decorator
        passes none, None where they are not literals."""
        node = info.node
        for dec in node.decorators if isinstance(node, cst.FunctionDef) else ():
            d = dec.decorator
            call = d if isinstance(d, cst.Call) else None
            q = self.qualify_call_target(d.func if call is not None else d)
            if call is not None and q in jaxapi.PARTIALS and call.args:
                q = self.qualify_call_target(call.args[0].value)
            t = jaxapi.TRANSFORMS.get(q or "")
            if t is None or t.kind != "jit" or q not in jaxapi.JIT_WRAPPERS:
                continue
            nums = literal_ints(self._static_kw(call, t.static_nums_kw)) if call is not None and t.static_nums_kw \
                else ()
            names = literal_strs(self._static_kw(call, t.static_names_kw)) if call is not None and \
                t.static_names_kw else ()
            yield t, nums, names

    def _static_kw(self, call: cst.Call, keyword: str | None) -> cst.BaseExpression | None:
        """A static option's expression: the literal a module-level name is bound to, for a name."""
        if keyword is None:
            return None
        arg = kwarg(call, keyword)
        if arg is None:
            return None
        value = arg.value
        if isinstance(value, cst.Name) and value.value in self.facts.module_literals():
            return self.facts.module_literals()[value.value]
        return value

    def _self_never_traced(self, info: FunctionInfo, kinds, by_options: set[str], decorated: bool,
                           fv: FuncValue) -> bool:
        """A method under a jit decorator that leaves `self` traced (`@jit`, `@partial(jit,
        static_argnums=(1,))`), of a class whose instances are certainly no JAX type: every call passes
        the object as a traced argument, and JAX raises TypeError before the body runs (JIT204 where the
        call is seen). Also where the bound method is jitted again (`jit(self._params)` of such a def).
        Its body is never traced code (hicosmo's jitted methods on plain classes, fresh set BG: 8 false
        errors)."""
        if not (info.is_method and info.positional and info.class_name):
            return False
        if decorated:
            if info.positional[0] in by_options or any(t.kind != "jit" or t.filtered or t.graph_nodes
                                                       for t in kinds):
                return False  # (equinox's and nnx's jits make a plain `self` static or walk it as a graph)
        elif not (fv.bound_self and self._own_jit_traces_self(info)):
            return False
        return self.facts.never_a_jax_type(info.class_name)

    def _plain_object_required(self, info: FunctionInfo, static: set[str], fv: FuncValue) -> bool:
        """A required traced parameter annotated as a class whose objects are no JAX type (`nml: Namelist`,
        a plain `@dataclass` of this module or another project file): every call hands jit such an object,
        and JAX raises TypeError before tracing (sfincs_jax's jitted linear solve taking the namelist, fresh
        set BI: 13 false errors in its body). Not where the object is static or bound by `partial`."""
        for name in info.params:
            if name in static or name in fv.bound or name in info.defaults or name in (info.vararg, info.kwarg):
                continue
            if info.is_method and info.positional and name == info.positional[0]:
                continue  # (`self`: the plain-self rule's)
            annotation = info.annotations.get(name)
            target = annotation.annotation if annotation is not None else None
            if isinstance(target, cst.Name) and target.value in self.facts.classes and \
                    self.facts.never_a_jax_type(target.value):
                return True
            q = self.qualify_call_target(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
            kind = self.facts.imported_kind
            if q is not None and "." in q and kind is not None and kind(q) == "plain class":
                return True
        return False

    def _own_jit_traces_self(self, info: FunctionInfo) -> bool:
        """Whether a method's own plain jit decorator leaves `self` traced (its static options literal)."""
        for t, nums, names in self._own_jit_decorators(info):
            if not (t.filtered or t.graph_nodes):
                return nums is not None and names is not None and 0 not in nums and info.positional[0] not in names
        return False

    def _vmap_never_traces(self, chain: Chain, info: FunctionInfo, fv: FuncValue) -> bool:
        """`jax.vmap(f, in_axes=(0, 0, 0))` of an `f` with a required parameter past those three annotated as
        a Python scalar (`n: int`): vmap takes as many positional arguments as a literal `in_axes` has
        entries and maps keyword arguments along axis 0, so that parameter cannot be passed at all (a
        fourth positional argument, or a rank-0 keyword, raises ValueError before `f` is traced: measured
        on JAX 0.10.2). The wrapper never traces `f` (jaxhps's unused `vmapped_propogate_down_quad`, fresh
        set AN: 36 false errors)."""
        for q, call in chain:
            if jaxapi.TRANSFORMS[q].kind != "vmap" or call is None:
                continue
            in_axes = vmap_in_axes(call)
            if not isinstance(in_axes, (cst.Tuple, cst.List)) or \
                    any(isinstance(el, cst.StarredElement) for el in in_axes.elements):
                continue
            free = info.free_positional(fv.bound, fv.bound_self)
            if any(name not in info.defaults and annotation_kind(info.annotations.get(name)) == "scalar"
                   for name in free[len(in_axes.elements):]):
                return True
        return False

    def _vmap_unbatched(self, chain: Chain, info: FunctionInfo, fv: FuncValue) -> tuple[set[str], set[str]]:
        """Parameters vmap does not batch (in_axes None) stay Python values unless jit is outside. `in_axes`
        counts the arguments the wrapped callable takes: a decorated method's `self` is one of them, a
        bound method's or a partial-bound parameter is not. `[0] + [None] * k` leaves every argument past
        the first unbatched, whatever `k`. Also the parameters a literal `in_axes` is too short to reach:
        vmap takes as many positional arguments as `in_axes` has entries, so a defaulted parameter past
        them is never passed by this transform's calls (jaxlayerlumos's `return_coeffs`, fresh set X)."""
        if any(jaxapi.TRANSFORMS[q].kind == "jit" for q, _ in chain):
            return set(), set()
        out: set[str] = set()
        not_passed: set[str] = set()
        for q, call in chain:
            if jaxapi.TRANSFORMS[q].kind != "vmap" or call is None:
                continue
            in_axes = vmap_in_axes(call)
            if in_axes is None:
                continue
            head, rest_unbatched = _unbatched_tail(in_axes)
            axes = unbatched_axes(head)
            if axes is None:
                continue
            free = info.free_positional(fv.bound, fv.bound_self)  # (a staticmethod has no self to bind)
            out.update(name for name, unbatched in zip(free, axes) if unbatched)
            if rest_unbatched:
                out.update(free[len(axes):])
            elif isinstance(head, (cst.Tuple, cst.List)) and head is in_axes:
                not_passed.update(name for name in free[len(axes):] if name in info.defaults)
        return out, not_passed

    # ------------------------------------------------------------------ control-flow bodies
    def lax_call(self, expr: cst.Call, q: str, arg_values: list[Value]) -> None:
        """`lax.scan(body, ...)`, `lax.cond(p, f, g, ...)`, `lax.switch(i, branches, ...)`: trace each body
        with its operands."""
        if self.eager_depth:
            return  # under `jax.disable_jit()` lax loops run their bodies eagerly
        if q in jaxapi.LAX_TRACED_ONLY_UNDER_TRACE and not self.recording:
            return
        targets: list[tuple[cst.BaseExpression, Value]] = []
        values_by_arg = dict(zip([id(a) for a in expr.args], arg_values))
        if q in jaxapi.LAX_SWITCH:
            pos = positional_args(expr)
            branches = pos[1].value if len(pos) > 1 else (kwarg(expr, "branches").value if kwarg(expr, "branches") else None)
            if isinstance(branches, (cst.List, cst.Tuple)):
                targets = [(el.value, None) for el in branches.elements]
        else:
            positions, keywords = jaxapi.LAX_BODIES[q]
            pos = positional_args(expr)
            for i in positions:
                if i < len(pos):
                    targets.append((pos[i].value, values_by_arg.get(id(pos[i]))))
            for kw in keywords:
                arg = kwarg(expr, kw)
                if arg is not None:
                    targets.append((arg.value, values_by_arg.get(id(arg))))
        short = q.replace("jax.lax.", "lax.").replace("flax.nnx.", "nnx.")
        for target_expr, value in targets:
            fv, chain = self.target(target_expr, value)
            if fv is None:
                continue
            info = fv.info
            params: dict[str, Value] = {p: Taint(TRACED, p, flattened=True) for p in info.params if p not in fv.bound}
            free = info.free_positional(fv.bound, fv.bound_self)  # (what the body's operands fill, in order)
            for name, structure in zip(free, self._operand_structures(expr, q, values_by_arg)):
                if structure is not None and name in params:
                    params[name] = _operand_like(name, structure)
            params.update(fv.consts)
            # The body receives only its operands, positionally: keyword-only parameters and defaulted
            # ones past the operands keep their (constant) defaults.
            operands = jaxapi.LAX_OPERANDS.get(q)
            if q in jaxapi.LAX_SWITCH or operands is None and q.endswith("cond"):
                operands = max(len(positional_args(expr)) - (2 if q in jaxapi.LAX_SWITCH else 3), 0) + (
                    1 if kwarg(expr, "operand") or kwarg(expr, "operands") else 0)
            if operands is not None and not info.vararg:
                for name in [*free[operands:], *info.kwonly]:
                    if name in info.defaults:
                        params[name] = info.default_const(name)
            if info.is_method and info.positional and fv.bound_self:
                params.pop(info.positional[0], None)
            closure = self.closure() if self.info is not None and isinstance(info.node, cst.Lambda) else \
                self.closure_for(info)
            context = Context(ContextKind.LAX, transform=q, label=short)
            self.scheduler.request(info, context, params, closure, True, TraceEdge("entry", expr, f"`{short}`"))

    def _operand_structures(self, expr: cst.Call, q: str, values_by_arg: dict) -> list[Taint | None]:
        """Per body parameter, the operand whose pytree it receives where that is a known container (a Python
        tuple, list or dict of arrays), else None (`jaxapi.LAX_OPERAND_ARGS`)."""
        out: list[Taint | None] = []
        pos = positional_args(expr)
        for source in jaxapi.LAX_OPERAND_ARGS.get(q, ()):
            arg = None
            if source is not None:
                index, keyword = source
                arg = pos[index] if index < len(pos) else kwarg(expr, keyword)
            value = values_by_arg.get(id(arg)) if arg is not None else None
            display = arg.value if arg is not None else None
            if isinstance(display, (cst.Tuple, cst.List)) and not any(
                    isinstance(el, cst.StarredElement) for el in display.elements):
                # a display: a container whatever jitlint knows of its items; a Python number written in it
                # becomes a traced scalar array (`(0, o, ell)`: the loop counter; levanter's flash attention)
                known = value.elements if isinstance(value, Taint) and value.container and value.elements is not None \
                    and len(value.elements) == len(display.elements) else (None,) * len(display.elements)
                value = Taint(TRACED, "", container=True, elements=tuple(
                    item if item is not None else
                    Taint(TRACED, "", is_array=True) if _is_number_literal(el.value) else None
                    for item, el in zip(known, display.elements)))
            out.append(value if isinstance(value, Taint) and value.container else None)
        return out


def _is_number_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float)) or isinstance(expr, cst.Name) and expr.value in ("True", "False")


def _operand_like(name: str, structure: Taint | None, depth: int = 0) -> Taint:
    """What a lax body receives for an operand of this structure: JAX flattens it and hands every leaf in
    as a tracer, a Python number or an eager array too. A part of unknown structure (a Python value
    jitlint knows nothing of: an array, or a list of them) is opaque: `grads["weights"] + grads["biases"]`
    may join two lists (qjax, set AV)."""
    if structure is None or structure.opaque or depth > 8:
        return Taint(TRACED, name, flattened=True, opaque=depth > 0)
    if structure.container:
        elements = None if structure.elements is None else tuple(
            _operand_like(name, e, depth + 1) for e in structure.elements)
        return Taint(TRACED, name, container=True, elements=elements, keys=structure.keys,
                     mapping=structure.mapping, flattened=True)
    if structure.is_array:
        return Taint(TRACED, name, is_array=True, is_bool=structure.is_bool, flattened=True)
    return Taint(TRACED, name, flattened=True)


def vmap_in_axes(call: cst.Call) -> cst.BaseExpression | None:
    """A `jax.vmap(f, in_axes)` call's `in_axes`, by keyword or as the second positional argument."""
    arg = kwarg(call, "in_axes")
    if arg is None:
        pos = positional_args(call)
        arg = pos[1] if len(pos) > 1 else None
    return arg.value if arg is not None else None


def unbatched_axes(expr: cst.BaseExpression, depth: int = 0) -> list[bool] | None:
    """Per argument, whether `in_axes` leaves it unbatched (None): a literal tuple or list, or list
    arithmetic on those (`[0] + [None] * 9`); None when it is not written out."""
    if depth > 8:
        return None
    if isinstance(expr, (cst.Tuple, cst.List)):
        if any(isinstance(el, cst.StarredElement) for el in expr.elements):
            return None
        return [isinstance(el.value, cst.Name) and el.value.value == "None" for el in expr.elements]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left, right = unbatched_axes(expr.left, depth + 1), unbatched_axes(expr.right, depth + 1)
        return left + right if left is not None and right is not None else None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
            axes = unbatched_axes(seq, depth + 1)
            if axes is not None and isinstance(count, cst.Integer) and int(count.value, 0) <= 256:
                return axes * int(count.value, 0)
    return None


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    """Whether `node` reads one of `names` anywhere (inside lambdas too)."""
    return any(isinstance(n, cst.Name) and n.value in names for n in descendants(node))


def _unbatched_tail(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """`[0] + [None] * (n + 1)`: (the head `[0]`, True) -- every position past the head is unbatched, whatever
    the count; anything else: (expr, False)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        right = expr.right
        if isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Multiply):
            for seq in (right.left, right.right):
                if isinstance(seq, (cst.List, cst.Tuple)) and seq.elements and all(
                        isinstance(el.value, cst.Name) and el.value.value == "None" for el in seq.elements):
                    return expr.left, True
    return expr, False
