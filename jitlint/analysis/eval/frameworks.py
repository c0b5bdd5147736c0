"""Framework models: Flax linen Modules (their own state, lifted transforms, the apply function a TrainState
holds), the local Module class (linen, nnx, equinox) a traced parameter holds, and library layers' outputs.
What a class's fields are is the facts' (``ModuleFacts.field_kind``); this is what walking their code adds."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.literals import kwarg, positional_args
from jitlint.analysis.objects import FuncValue, FunctionInfo, InstanceValue, TraceEdge, Value
from jitlint.analysis.scheduler import APPLY_FN_CLASSES
from jitlint.analysis.values import TRACED, Taint


def layer_output(inputs: Taint) -> Taint:
    """What a library layer returns (jaxapi.ARRAY_LAYERS) from traced inputs or traced parameters: one array."""
    return Taint(inputs.level, inputs.origin, is_array=True)


class Frameworks(Frame):
    """What linen, nnx and equinox models add to the walk."""

    def linen_state(self, func: cst.Attribute) -> Taint | None:
        """`self.param(...)` / `self.variable(...)` of a linen Module applied inside jit: its parameters and
        variables are the (traced) arrays of the variables passed to `apply`."""
        name = func.attr.value
        if name not in jaxapi.LINEN_STATE_METHODS:
            return None
        owner = self.self_class(func.value)
        if owner is None or self.facts.framework_of(owner) != "linen" or self.facts.method(owner, name) is not None:
            return None
        cls = jaxapi.LINEN_STATE_METHODS[name]
        return Taint(TRACED, f"self.{name}(...)", is_array=cls is None, from_constant=True, class_name=cls)

    def lift_module(self, expr: cst.Call, q: str) -> None:
        """`nn.scan(Block, ...)`: Block's `__call__` runs traced (its inputs are tracers) when applied."""
        pos = positional_args(expr)
        target = pos[0].value if pos else None
        if not (isinstance(target, cst.Name) and target.value in self.facts.classes):
            return
        call = self.facts.method(target.value, "__call__")
        if call is None:
            return
        free = call.positional[1:]
        params: dict[str, Value] = {p: Taint(TRACED, p) for p in free if p not in call.defaults}
        for name in [*free, *call.kwonly]:
            if name in call.defaults:
                params[name] = call.default_const(name)
        short = q.replace("flax.linen.", "nn.")
        self.scheduler.request(call, Context(ContextKind.LAX, transform=q, label=short), params, None, True,
                               TraceEdge("entry", expr, f"`{short}`"))

    def construct(self, expr: cst.Call, q: str) -> None:
        """A library pytree built (`TrainState.create(apply_fn=model.apply, ...)`): an object of its class;
        the linen Module whose `apply` it holds runs where `state.apply_fn(...)` is called."""
        cls, apply_keyword = jaxapi.CONSTRUCTORS[q]
        self.last_call_value = InstanceValue(cls)
        held = kwarg(expr, apply_keyword) if apply_keyword else None
        if held is not None and isinstance(held.value, cst.Attribute):
            method = self.resolve_method(held.value)
            if method is not None and method.skip_args and method.info.class_name and \
                    method.info.class_name not in self.facts.apply_fn_classes:
                self.facts.apply_fn_classes.add(method.info.class_name)
                self.scheduler.changed(APPLY_FN_CLASSES)

    def held_apply_fn(self, class_name: str, attr: str) -> FuncValue | None:
        """`state.apply_fn(params, x)` of a TrainState built with `apply_fn=model.apply` of the one linen
        Module class this file does so with: that module's `__call__`."""
        facts = self.facts
        if self.variant is not None:  # walk this again if a TrainState.create(apply_fn=...) is met later
            self.scheduler.reads(APPLY_FN_CLASSES, self.info, self.variant.key)
        if len(facts.apply_fn_classes) != 1:
            return None
        if not any((cls == class_name or cls in facts.library_bases(class_name)) and keyword == attr
                   for cls, keyword in jaxapi.CONSTRUCTORS.values()):
            return None
        call = facts.method(next(iter(facts.apply_fn_classes)), "__call__")
        return FuncValue(call, bound_self=True, skip_args=1) if call is not None else None

    def module_class_of(self, info: FunctionInfo, name: str) -> str | None:
        """The local Module class (flax nnx/linen, equinox) a traced parameter holds: from its annotation
        (`model: MLP`), or from the objects callers pass."""
        facts = self.facts
        annotation = info.annotations.get(name)
        ann = annotation.annotation if annotation is not None else None
        if isinstance(ann, cst.Name) and ann.value in facts.classes and facts.pytree_class(ann.value):
            return ann.value
        q = self.scope.qualify(ann) if isinstance(ann, (cst.Name, cst.Attribute)) else None
        if q in jaxapi.PYTREE_CLASSES:
            return q
        cls = info.param_classes.get(name)
        return cls if cls is not None and facts.pytree_class(cls) else None
