"""Loops: `while`, `for` and comprehensions walked until their values reach the top of the body (the
passes), and which names change from one iteration to the next (the variance the recompile rules read)."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import runs
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.objects import merge_env
from jitlint.analysis.values import Taint
from jitlint.source.cstwalk import children, target_names

# Loops nested deeper than this walk inner loops once in their first pass (Loops.loop_passes): the
# work is then 2**6 * depth rather than 2**depth (18 loops: 19 s), and code nested no deeper is unchanged.
FULL_LOOP_DEPTH = 6


class Loops(Frame):
    """The transfer functions of loops, and the loop stack's variance."""

    def varying(self) -> dict[str, str]:
        """The names rebound in the enclosing loops -> how they change ("varying", "bool", "bounded", ...)."""
        out: dict[str, str] = {}
        for _, names in self.loops:
            for name, kind in names.items():
                if out.get(name) != "varying":
                    out[name] = kind
        return out

    def loop_passes(self):
        """Yields once for each walk of the body of the loop just entered. Twice: the first pass brings
        the values assigned late in the body back to its top (test), the second walks with them and
        writes the records the rules read, over the first pass's. Inside a first pass, whose records are
        overwritten anyway, a loop walked twice again would make d nested loops cost 2**d walks of the
        innermost body; so a loop nested more than FULL_LOOP_DEPTH deep walks its first pass with the
        loops inside it walked once. Their own late values still flow back in their second pass (after
        the outer first pass); what is lost is a value that needs two walks of an inner loop to reach
        the outer loop's top (`a = b` below `b = c`): values stay as the first iteration made them."""
        if self.walk_once:
            yield
            return
        self.walk_once = len(self.loops) > FULL_LOOP_DEPTH
        yield
        self.walk_once = False
        yield

    def stmt_While(self, node: cst.While) -> None:
        self.loops.append((node, {}))
        for _ in self.loop_passes():  # values assigned late in the body flow back to the test
            self.expr(node.test)
            before = dict(self.env)
            self.suite(node.body)
            self.env = merge_env(before, self.env)
        self.record(node)
        self.loops.pop()
        if node.orelse is not None:
            self.suite(node.orelse.body)

    def stmt_For(self, node: cst.For) -> None:
        element = self.iter_element(node.iter)
        self.record(node)
        # A sweep over configurations written in the source takes a bounded set of values; a counter
        # (`range(n)`) is data-driven, whatever its bound.
        kind = "bounded" if runs.is_fixed_sweep(self.facts, self.info, node.iter) else "varying"
        self.loops.append((node, {name: kind for name in target_names(node.target)}))
        entry = self.live
        for _ in self.loop_passes():
            before = dict(self.env)
            self.binding_loop_target = True  # the loop's own binding: its kind is the one set above
            self.assign_element(node.target, element, node.iter)
            self.binding_loop_target = False
            self.live = entry  # (a first pass that left does not stop the second)
            self.suite(node.body)
            completes = self.live
            self.env = merge_env(before, self.env)
        self.loops.pop()
        if not completes and self._runs_every_item(node):
            # `for name, arr in (("pos", pos), ("mom", mom)): if isinstance(arr, Tracer): raise ...` with a
            # traced `pos`: that item raises, so nothing after the loop runs here (jax-numerical-operators'
            # host-only `_prep`, fresh set AO)
            self.live = False
            return True
        self.live = entry
        if node.orelse is not None:
            self.suite(node.orelse.body)
        return None

    def _runs_every_item(self, node: cst.For) -> bool:
        """Does the body run for each item of a literal, non-empty tuple or list, never leaving the loop by
        `break` or skipping by `continue`? Then a body that leaves on every path, walked once with the
        items' join (a tracer test decided by the items holding tracers), leaves at one of them."""
        items = node.iter
        if not isinstance(items, (cst.Tuple, cst.List)) or not items.elements or node.orelse is not None:
            return False
        return not any(isinstance(el, cst.StarredElement) for el in items.elements) and not runs.jumps(node.body)

    def comprehension(self, expr) -> Taint | None:
        saved = dict(self.env)
        saved_loops = len(self.loops)
        comp = expr.for_in
        while comp is not None:
            element = self.iter_element(comp.iter)
            self.loops.append((comp, {name: "varying" for name in target_names(comp.target)}))
            self.facts.comprehensions[comp] = expr
            self.assign_element(comp.target, element, comp.iter)
            self.record(comp)
            for cond in comp.ifs:
                self.expr(cond.test)
            comp = comp.inner_for_in
        if isinstance(expr, cst.DictComp):
            self.expr(expr.key)
            result = self.expr(expr.value)
        else:
            result = self.expr(expr.elt)
        self.env = saved
        del self.loops[saved_loops:]
        if result is None:
            return None
        return dataclasses.replace(result, container=True, is_array=False, is_bool=False,
                                   mapping=isinstance(expr, cst.DictComp))

    expr_ListComp = expr_SetComp = expr_GeneratorExp = expr_DictComp = comprehension

    def note_loop_binding(self, name: str, source: cst.BaseExpression | None) -> None:
        """`name` is assigned `source` inside the loops: how it changes from one iteration to the next."""
        kind = _assignment_kind(source)
        if kind == "varying" and source is not None and self._loop_invariant(source, name):
            kind = "constant"
        _, names = self.loops[-1]
        if names.get(name) != "varying":
            names[name] = kind
        for _, outer in self.loops[:-1]:
            if name in outer and outer[name] != "varying":
                outer[name] = kind

    def _loop_invariant(self, source: cst.CSTNode, target: str) -> bool:
        """An expression without calls that reads no name changing in the enclosing loops
        (`eps = scale * 1e-6`): the same value on every iteration. (`depth = depth + 1` reads itself.)"""
        if isinstance(source, cst.AugAssign):
            return False
        varying = {name for _, names in self.loops for name, kind in names.items() if kind == "varying"}
        varying.add(target)
        stack: list[cst.CSTNode] = [source]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.Call, cst.Await, cst.Yield, cst.Lambda, cst.BaseComp)):
                return False
            if isinstance(node, cst.Name):
                if node.value in varying:
                    return False
                continue
            if isinstance(node, cst.Attribute):
                stack.append(node.value)
                continue
            stack.extend(children(node))
        return True


def _assignment_kind(source: cst.CSTNode | None) -> str:
    """How a value assigned inside a loop behaves across iterations: "bool" (two values at most),
    "constant" (a literal: the same every time) or "varying"."""
    if source is None:
        return "varying"
    if isinstance(source, (cst.Comparison,)) or (
            isinstance(source, cst.UnaryOperation) and isinstance(source.operator, cst.Not)) or (
            isinstance(source, cst.Name) and source.value in ("True", "False")):
        return "bool"
    if isinstance(source, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)) or (
            isinstance(source, cst.Name) and source.value == "None"):
        return "constant"
    return "varying"
