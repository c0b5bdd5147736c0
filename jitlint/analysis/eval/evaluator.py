"""The evaluator: the parts composed into one walk of one body, and its entry points."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.eval.binding import Binding
from jitlint.analysis.eval.calls import Calls
from jitlint.analysis.eval.expressions import Expressions
from jitlint.analysis.eval.frameworks import Frameworks
from jitlint.analysis.eval.guards import Guards
from jitlint.analysis.eval.library import Library
from jitlint.analysis.eval.loops import Loops
from jitlint.analysis.eval.statements import Statements
from jitlint.analysis.eval.transforms import Transforms
from jitlint.analysis.objects import TraceEdge, annotation_kind, bool_array_annotation
from jitlint.analysis.scheduler import returns_of
from jitlint.analysis.values import Const, KnownTruth, Taint, join
from jitlint.source.cstwalk import children


class Evaluator(Statements, Loops, Guards, Expressions, Calls, Binding, Library, Transforms, Frameworks):
    """Walks one function body (or the module body) computing abstract values."""

    def run_module(self) -> None:
        self.env = self.facts.module_env
        self.block(self.facts.module.body)

    def run_function(self) -> None:
        info = self.info
        assert info is not None
        if not info.traced:
            info.eager_done = True
        self.env = {}
        for name in info.params:
            self.env[name] = self.variant.params.get(name) if self.traced else info.eager_values.get(name)
            value = self.env[name]
            if isinstance(value, Taint) and info.annotations.get(name) is not None:
                annotation = info.annotations[name]
                kind = annotation_kind(annotation)
                if not value.is_array and kind == "array":
                    value = dataclasses.replace(value, is_array=True, container=False)  # `x: jax.Array`
                elif not value.is_array and kind == "mapping":  # `instances: dict[str, SType]`
                    value = dataclasses.replace(value, container=True, is_bool=False, mapping=True)
                if value.is_array and not value.is_bool and bool_array_annotation(annotation):
                    value = dataclasses.replace(value, is_bool=True)  # `mask: Bool[Array, "b"]` (jaxtyping)
                self.env[name] = value
        if info.is_method and info.positional and self.traced:
            # `self` is a Python object (static or bound), or, for a Module passed through a transform as
            # a pytree (nnx, equinox), that traced pytree: its array fields are leaves.
            me = self.variant.params.get(info.positional[0])
            self.env[info.positional[0]] = me if isinstance(me, Taint) and me.class_name is not None else None
        node = info.node
        if isinstance(node, cst.Lambda):
            self.returns.append(self.expr(node.body))
            self.return_statics.append(self._returned_static(node.body))
            self.returns_unknown_static = self.returns[-1] is None and \
                not isinstance(self.return_statics[-1], (Const, KnownTruth))
            if not self.never_none(node.body, self.returns[-1]):
                self.may_return_none = True
        else:
            self.block(node.body.body)
        if self.traced:
            ret = join(*self.returns)
            if ret is not None and self.returns_unknown_static and not ret.opaque:
                # A return that hands back a Python value (a static parameter, a skeleton's leaf: jaxFMM's
                # `join_static`, fresh set BC) beside one that gives a tracer: the caller may get either,
                # so no claim that needs a tracer rests on what it gives.
                ret = dataclasses.replace(ret, opaque=True)
            variant = self.variant
            variant.returns_known = True
            never = not self.live and not self.returned and not isinstance(node, cst.Lambda)
            # (a lambda gives its expression; a def whose end is reachable gives None there)
            ends = isinstance(node, cst.Lambda) or self.returned and not self.live
            not_none = ends and not self.may_return_none
            static = _alike(self.return_statics + ([] if ends else [Const(None)]))
            if ret != variant.return_taint or never != variant.never_returns or not_none != variant.returns_not_none \
                    or static != variant.return_static:
                variant.return_taint, variant.never_returns = ret, never
                variant.returns_not_none, variant.return_static = not_none, static
                self.scheduler.changed(returns_of(info, variant))  # callers computed with the old value
            # Nested defs defined under trace but not called here still run under trace when used (stored,
            # handed on, decorated). No call is seen, so the one context that can be stated is the call that
            # passes only what has no default: a literal default (`verbose=False`) decides its guards there.
            # One the function returns as it is (`return minimize`, `return step, init`) is the factory's
            # product, for its traced caller to call. Not one only handed back inside an object (`return
            # NeighborListFns(allocate_fn, update_fn)` from a factory a trace happens to call), or only
            # called by such: whoever receives that object calls it, maybe eagerly (jax-md's `allocate`,
            # documented eager; the second corpus's review).
            used = self.facts.used_names.get(id(info)) if self.nested_seen else frozenset()
            if used is None:
                used = self.facts.used_names[id(info)] = frozenset(_used_outside_returns(info))
            for nested in self.nested_seen:
                if not nested.traced and not nested.callback and (
                        nested.name in used or isinstance(nested.node, cst.FunctionDef) and nested.node.decorators):
                    context = Context(ContextKind.NESTED, caller=info.name, traces_constants=self.staged)
                    defaults = {name: const for name in nested.params
                                if (const := nested.default_const(name)) is not None}
                    self.scheduler.request(nested, context, defaults, self.closure(), self.staged,
                                           TraceEdge("defined", nested.node, "", info,
                                                     caller_variant=self.variant_key))


def _alike(statics: list):
    """What every return gives alike (per position of tuples of one length), None where they differ."""
    if not statics:
        return None
    first = statics[0]
    if isinstance(first, tuple):
        if not all(isinstance(s, tuple) and len(s) == len(first) for s in statics):
            return None
        parts = tuple(_alike([s[i] for s in statics]) for i in range(len(first)))
        return parts if any(p is not None for p in parts) else None
    if all(s == first for s in statics):
        return first
    # `return arrays, is_scalar` (a flag decided False) beside `return [...], False`: the same truth
    truths = {s.truth if isinstance(s, KnownTruth) else bool(s.value) if isinstance(s, Const) else None
              for s in statics}
    return KnownTruth(truths.pop()) if len(truths) == 1 and None not in truths else None


def _used_outside_returns(info) -> set[str]:
    """The names `info`'s own body reads outside its nested defs, and outside its `return` values but for
    names returned as they are (`return f`, `return f, g`)."""
    out: set[str] = set()
    stack = list(info.node.body.body) if isinstance(info.node, cst.FunctionDef) else []
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Return)):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                stack.extend(d.decorator for d in node.decorators)  # (a decorator runs here)
            elif isinstance(node, cst.Return):
                value = node.value
                items = [el.value for el in value.elements] if isinstance(value, cst.Tuple) else [value]
                out.update(item.value for item in items if isinstance(item, cst.Name))
            continue
        if isinstance(node, cst.Name):
            out.add(node.value)
            continue
        stack.extend(children(node))
    return out

