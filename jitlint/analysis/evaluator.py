"""The evaluator: transfer functions that walk one function body (or the module body) and give each
expression its abstract value (see ``jitlint.analysis.values``), starting trace contexts as it meets transforms.

What each library API does comes from the tables in ``jitlint.analysis.knowledge`` (merged in ``jitlint.analysis.jaxapi``);
the worklist that runs the evaluator per function is ``jitlint.analysis.facade.ModuleAnalysis``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import jaxapi

from jitlint.analysis import runs
from jitlint.analysis.contexts import (CallSite, Context, FunctionInfo, JitBinding, JitCreation, Site, Variant,
                              annotation_kind)
from jitlint.analysis.literals import kwarg, literal_const, literal_ints, literal_strs, positional_args
from jitlint.analysis.values import (GRAD_TRACED, TRACED, Const, FuncValue, InstanceValue, Taint, Value, join,
                            merge_env, merge_values, value_taint)

if TYPE_CHECKING:
    from jitlint.analysis.facade import ModuleAnalysis

# Loops nested deeper than this walk inner loops once in their first pass (Evaluator._loop_passes): the
# work is then 2**6 * depth rather than 2**depth (18 loops: 19 s), and code nested no deeper is unchanged.
FULL_LOOP_DEPTH = 6


class Evaluator:
    """Walks one function body (or the module body) computing abstract values."""

    def __init__(self, analysis: ModuleAnalysis, info: FunctionInfo | None, variant: Variant | None = None):
        self.a = analysis
        self.info = info
        self.variant = variant  # the calling context this walk of a traced function is for
        self.scope = info.scope if info else analysis.scope
        self.traced = bool(info and info.traced and not info.callback and variant is not None)
        # Untraced code inside `with jax.disable_jit()` / `ensure_compile_time_eval()`: transforms and lax
        # loops run their bodies eagerly there.
        self.eager_depth = 0
        # Traced code inside `with jax.ensure_compile_time_eval()`: jnp on constants stays concrete.
        self.compile_time_eval = 0
        # Enclosing loops, innermost last: (loop node, names that change between iterations -> kind).
        self.loops: list[tuple[cst.CSTNode, dict[str, str]]] = []
        self.env: dict[str, Value] = {}
        self.returns: list[Taint | None] = []
        self.context: Context | None = info.contexts[0] if info and info.contexts else None
        self.level = max((t.level for t in variant.params.values() if isinstance(t, Taint)),
                         default=TRACED) if variant else TRACED
        self.nested_seen: list[FunctionInfo] = []

    # ------------------------------------------------------------------ entry points
    def run_module(self) -> None:
        self.env = self.a.module_env
        self._block(self.a.module.body)

    def run_function(self) -> None:
        info = self.info
        assert info is not None
        if not info.traced:
            info.eager_done = True
        self.env = {}
        for name in info.params:
            self.env[name] = self.variant.params.get(name) if self.traced else info.eager_values.get(name)
            value = self.env[name]
            if isinstance(value, Taint) and not value.is_array and annotation_kind(info.annotations.get(name)) == "array":
                self.env[name] = dataclasses.replace(value, is_array=True, container=False)  # `x: jax.Array`
        if info.is_method and info.positional and self.traced:
            # `self` is a Python object (static or bound), or, for a Module passed through a transform as
            # a pytree (nnx, equinox), that traced pytree: its array fields are leaves.
            me = self.variant.params.get(info.positional[0])
            self.env[info.positional[0]] = me if isinstance(me, Taint) and me.class_name is not None else None
        node = info.node
        if isinstance(node, cst.Lambda):
            self.returns.append(self.expr(node.body))
        else:
            body = node.body
            if isinstance(body, cst.IndentedBlock):
                self._block(body.body)
            else:
                self._block(body.body)
        if self.traced:
            ret = join(*self.returns)
            variant = self.variant
            variant.returns_known = True
            if ret != variant.return_taint:
                variant.return_taint = ret
                for caller, key in self.a.callers.get((id(info), variant.key), ()):
                    if key in caller.variants:  # callers computed with the old return value
                        self.a._enqueue(caller, caller.variants[key])
            # Nested defs defined under trace but not called here still run under trace when used.
            for nested in self.nested_seen:
                if not nested.traced and not nested.callback:
                    self.a.request(nested, Context("nested", f"defined inside traced `{info.name}`",
                                                   info.traces_constants), {}, self._closure(),
                                   info.traces_constants)

    @property
    def recording(self) -> bool:
        return self.traced

    def _site(self) -> Site:
        assert self.info is not None
        return Site(self.info, self.context or Context("helper", "traced"), self.level, self.scope,
                    bool(self.loops), self.info.traces_constants and not self.compile_time_eval)

    def _record(self, node: cst.CSTNode) -> None:
        if self.recording:
            self.a.sites[node] = self._site()

    # ------------------------------------------------------------------ statements
    def _block(self, statements) -> None:
        for stmt in statements:
            self.stmt(stmt)

    def stmt(self, node: cst.CSTNode) -> None:
        cls = node.__class__
        if cls is cst.SimpleStatementLine:
            for small in node.body:
                self.small(small)
            return
        method = _STMT_METHODS.get(cls, _MISSING)
        if method is _MISSING:
            method = _STMT_METHODS[cls] = getattr(Evaluator, "stmt_" + cls.__name__, None)
        if method is not None:
            method(self, node)

    def _suite(self, suite: cst.BaseSuite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self._block(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self.small(small)

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Expr):
            self.expr(node.value)
        elif isinstance(node, cst.Assign):
            value = self.value(node.value)
            for target in node.targets:
                self.assign(target.target, value, node.value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.value(node.value), node.value)
        elif isinstance(node, cst.AugAssign):
            old = self.expr(node.target)
            new = self.expr(node.value)
            # The statement itself is the source: `k += 1` changes `k` on every loop iteration.
            self.assign(node.target, join(old, new), node)
        elif isinstance(node, cst.Return):
            if node.value is not None:
                self.returns.append(self.expr(node.value))
        elif isinstance(node, cst.Assert):
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
            self._record(node)
        elif isinstance(node, cst.Raise):
            if node.exc is not None:
                self.expr(node.exc)
        elif isinstance(node, cst.Import):
            if self.info is not None:
                self.scope.add_import(node)
        elif isinstance(node, cst.ImportFrom):
            if self.info is not None:
                self.scope.add_import_from(node)
        elif isinstance(node, cst.Del):
            pass

    def stmt_If(self, node: cst.If) -> None:
        truth = self.static_truth(node.test)
        self.expr(node.test)
        self._record(node)
        # A guard decided by Python constants (`if flag:` with a partial-bound False, `if x is None` on a
        # known None, `if TYPE_CHECKING:`): the other branch never runs here, so it is not traced code.
        if truth is True:
            self._suite(node.body)
            return
        if truth is False:
            if node.orelse is not None:
                if isinstance(node.orelse, cst.If):
                    self.stmt_If(node.orelse)
                else:
                    self._suite(node.orelse.body)
            return
        before = dict(self.env)
        static_in_body, static_in_else = self._isinstance_narrowing(node.test)
        for name in static_in_body:
            self.env[name] = None
        self._suite(node.body)
        after_body = self.env
        self.env = dict(before)
        for name in static_in_else:
            self.env[name] = None
        if node.orelse is not None:
            if isinstance(node.orelse, cst.If):
                self.stmt_If(node.orelse)
            else:
                self._suite(node.orelse.body)
        self.env = merge_env(after_body, self.env)

    def _isinstance_narrowing(self, test: cst.BaseExpression) -> tuple[list[str], list[str]]:
        """Names a test proves are not tracers: in the body of `if isinstance(x, (int, np.ndarray))`, and
        in the else branch of `if isinstance(x, jax.Array)` (every tracer is a jax.Array)."""
        negate = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negate, test = not negate, test.expression
        if not (isinstance(test, cst.Call) and self.qualify_call_target(test.func) == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
            return [], []
        name = test.args[0].value.value
        if not isinstance(self.lookup(name), Taint):
            return [], []
        kinds = test.args[1].value
        types = [el.value for el in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        names = [self.qualify_call_target(t) or (t.value if isinstance(t, cst.Name) else None) for t in types]
        if all(n in jaxapi.NON_TRACER_TYPES for n in names):
            body, orelse = [name], []
        elif any(n in jaxapi.TRACER_TYPES for n in names):
            body, orelse = [], [name]
        else:
            return [], []
        return (orelse, body) if negate else (body, orelse)

    @property
    def loop_depth(self) -> int:
        return len(self.loops)

    def _varying(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for _, names in self.loops:
            for name, kind in names.items():
                if out.get(name) != "varying":
                    out[name] = kind
        return out

    def _loop_passes(self):
        """Yields once for each walk of the body of the loop just entered. Twice: the first pass brings
        the values assigned late in the body back to its top (test), the second walks with them and
        writes the records the rules read, over the first pass's. Inside a first pass, whose records are
        overwritten anyway, a loop walked twice again would make d nested loops cost 2**d walks of the
        innermost body; so a loop nested more than FULL_LOOP_DEPTH deep walks its first pass with the
        loops inside it walked once. Their own late values still flow back in their second pass (after
        the outer first pass); what is lost is a value that needs two walks of an inner loop to reach
        the outer loop's top (`a = b` below `b = c`): values stay as the first iteration made them."""
        if self._walk_once:
            yield
            return
        self._walk_once = len(self.loops) > FULL_LOOP_DEPTH
        yield
        self._walk_once = False
        yield

    def stmt_While(self, node: cst.While) -> None:
        self.loops.append((node, {}))
        for _ in self._loop_passes():  # values assigned late in the body flow back to the test
            self.expr(node.test)
            before = dict(self.env)
            self._suite(node.body)
            self.env = merge_env(before, self.env)
        self._record(node)
        self.loops.pop()
        if node.orelse is not None:
            self._suite(node.orelse.body)

    def stmt_For(self, node: cst.For) -> None:
        element = self.iter_element(node.iter)
        self._record(node)
        # A sweep over configurations written in the source takes a bounded set of values; a counter
        # (`range(n)`) is data-driven, whatever its bound.
        kind = "bounded" if runs.is_fixed_sweep(self.a, self.info, node.iter) else "varying"
        self.loops.append((node, {name: kind for name in _target_names(node.target)}))
        for _ in self._loop_passes():
            before = dict(self.env)
            self._binding_loop_target = True  # the loop's own binding: its kind is the one set above
            self._assign_element(node.target, element, node.iter)
            self._binding_loop_target = False
            self._suite(node.body)
            self.env = merge_env(before, self.env)
        self.loops.pop()
        if node.orelse is not None:
            self._suite(node.orelse.body)

    def stmt_With(self, node: cst.With) -> None:
        eager = constants = False
        for item in node.items:
            target = item.item.func if isinstance(item.item, cst.Call) else item.item
            q = self.qualify_call_target(target)
            if q in jaxapi.EAGER_CONTEXTS and not self.traced:
                eager = True
            if q in jaxapi.COMPILE_TIME_EVAL and self.traced:
                constants = True
            value = self.expr(item.item)
            if item.asname is not None:
                self.assign(item.asname.name, value, item.item)
        self.eager_depth += eager
        self.compile_time_eval += constants
        self._suite(node.body)
        self.eager_depth -= eager
        self.compile_time_eval -= constants

    def stmt_Try(self, node: cst.Try) -> None:
        before = dict(self.env)
        self._suite(node.body)
        merged = merge_env(before, self.env)
        for handler in node.handlers:
            self.env = dict(merged)
            self._suite(handler.body)
            merged = merge_env(merged, self.env)
        self.env = merged
        if node.orelse is not None:
            self._suite(node.orelse.body)
        if node.finalbody is not None:
            self._suite(node.finalbody.body)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, node: cst.Match) -> None:
        self.expr(node.subject)
        before = dict(self.env)
        merged = dict(before)
        for case in node.cases:
            self.env = dict(before)
            self._suite(case.body)
            merged = merge_env(merged, self.env)
        self.env = merged

    def stmt_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self._info_for_def(node)
        if info is None:
            return
        for dec in node.decorators:
            self.expr(dec.decorator)
        info.def_loop = self.loops[-1][0] if self.loops else None
        binding = self._decorated_context(info)
        value: Value = FuncValue(info, transform=binding.transform if binding else None, binding=binding)
        if self.info is not None or info.class_name is None:
            self.env[info.name] = value
        if self.traced and binding is None:
            self.nested_seen.append(info)
        if not self.traced and self.info is not None:
            # Objects and functions the enclosing (eager) code holds: a factory's `model` argument, seen by
            # the `loss_fn` it returns wherever that is traced.
            grew = False
            for name, v in self.env.items():
                if isinstance(v, (FuncValue, InstanceValue)) and name not in info.closure and name not in info.params:
                    info.closure[name] = v
                    grew = True
            if grew and info.traced:
                self.a._enqueue(info)

    def stmt_ClassDef(self, node: cst.ClassDef) -> None:
        if self.info is None:
            self.env[node.name.value] = None
        saved_scope = self.scope
        self.scope = self.a.scope_for(node)
        saved_env, saved_class_body = self.env, self._class_body
        self.env = dict(self.env) if self.info is not None else {}
        self._class_body = _declared_global(node.body) if self.info is None else frozenset()
        self._suite(node.body)
        self.env, self._class_body = saved_env, saved_class_body
        self.scope = saved_scope

    def _info_for_def(self, node: cst.FunctionDef) -> FunctionInfo | None:
        return self.a.def_infos.get(node)

    # ------------------------------------------------------------------ assignment
    def assign(self, target: cst.BaseExpression, value: Value, source: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = value
            if self._class_body is not None and target.value not in self._class_body:
                return  # a class attribute: not a name of the module (or function) around the class
            self._note_assignment(target.value, source)
            if self.info is None:
                self._note_module_global(target.value, source, value)
            elif source is not None and self._is_logger_call(source):
                self.a.loggers.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [el.value for el in target.elements]
            if isinstance(source, (cst.Tuple, cst.List)) and len(source.elements) == len(elements) and not any(
                    isinstance(e, cst.StarredElement) for e in source.elements):
                for tgt, src in zip(elements, source.elements):
                    self.assign(tgt, self.a.taints.get(src.value), src.value)
                return
            if isinstance(value, Taint) and value.elements is not None and len(value.elements) == len(elements) \
                    and not any(isinstance(t, cst.StarredElement) for t in elements):
                for tgt, part in zip(elements, value.elements):
                    self.assign(tgt, part, None)
                return
            element = value
            if isinstance(value, Taint) and value.container and not value.is_array:
                element = dataclasses.replace(value, container=False, elements=None)
            for tgt in elements:
                if isinstance(tgt, cst.StarredElement):
                    self.assign(tgt.value, element, None)
                else:
                    self.assign(tgt, element, None)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, value, source)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            # Storing into an object/container: evaluate the receiver for recording only.
            if isinstance(target, cst.Subscript):
                self.expr(target.value)
                for el in target.slice:
                    self._slice_element(el)
            else:
                self.expr(target.value)
                owner = self._self_class(target.value)
                if owner is not None and isinstance(value, (FuncValue, InstanceValue)):
                    # `self.step = jax.jit(self._step)`, `self.block = Block(...)`: what the object holds.
                    key = (owner, target.attr.value)
                    old = self.a.attribute_values.get(key, value)
                    self.a.attribute_values[key] = value if old == value else None

    def _self_class(self, expr: cst.BaseExpression) -> str | None:
        """The class of `self` when `expr` is the first parameter of a method."""
        info = self.info
        if isinstance(expr, cst.Name) and info is not None and info.is_method and info.positional and \
                expr.value == info.positional[0]:
            return info.class_name
        return None

    def _note_assignment(self, name: str, source: cst.BaseExpression | None) -> None:
        """Remember what a name is assigned (for the static-argument rules), and whether it changes
        from one loop iteration to the next."""
        table = self.info.assignments if self.info is not None else self.a.module_assignments
        if source is not None:
            exprs = table.setdefault(name, [])
            if source not in exprs:
                exprs.append(source)
        if self.loops and not self._binding_loop_target:
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
            stack.extend(node.children)
        return True

    def _note_module_global(self, name: str, source: cst.BaseExpression | None, value: Value) -> None:
        if source is None:
            return
        if self._is_logger_call(source):
            self.a.loggers.add(name)
        if isinstance(source, cst.Call):
            q = self.qualify_call_target(source.func)
            if q and q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) and q not in jaxapi.STATIC_FUNCS:
                self.a.jax_constants.add(name)

    def _is_logger_call(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        q = self.qualify_call_target(expr.func)
        return q in ("logging.getLogger", "absl.logging.get_absl_logger", "logging.Logger")

    # ------------------------------------------------------------------ expressions
    def value(self, expr: cst.BaseExpression) -> Value:
        """Like `expr`, but keeps callables and instances (for assignments)."""
        cls = expr.__class__
        if cls is cst.Lambda:
            info = self.a.lambda_info(expr, self.info, self.scope)
            self._closure_into(info)
            if self.traced:
                self.nested_seen.append(info)
            return FuncValue(info)
        if cls is cst.Name:
            v = self.lookup(expr.value)
            if isinstance(v, (FuncValue, InstanceValue, Const)):
                return v
        const = literal_const(expr)
        if const is not None:
            return const
        if cls is cst.Call:
            taint = self.expr(expr)
            produced = self._last_call_value
            if produced is not None:
                return produced
            return taint
        return self.expr(expr)

    _last_call_value: Value = None
    _binding_loop_target = False
    # walking a class body (its bindings are the class's attributes): the names it declares `global`
    _class_body: frozenset[str] | None = None
    _walk_once = False  # in the first pass of a loop nested deeper than FULL_LOOP_DEPTH (_loop_passes)

    def expr(self, expr: cst.BaseExpression) -> Taint | None:
        cls = expr.__class__
        method = _EXPR_METHODS.get(cls)
        if method is None:
            method = _EXPR_METHODS[cls] = getattr(Evaluator, "expr_" + cls.__name__, Evaluator._generic)
        taint = method(self, expr)
        if taint is not None and self.traced:
            taints = self.a.taints
            old = taints.get(expr)
            if old is None:
                taints[expr] = taint
            elif old is not taint:
                taints[expr] = join(old, taint)
        return taint

    def _generic(self, expr: cst.CSTNode) -> Taint | None:
        found = []
        for child in expr.children:
            if isinstance(child, cst.BaseExpression):
                found.append(self.expr(child))
        return join(*found)

    # constants
    def expr_Integer(self, expr) -> None:
        return None

    expr_Float = expr_Imaginary = expr_SimpleString = expr_Ellipsis = expr_Integer

    def expr_ConcatenatedString(self, expr: cst.ConcatenatedString) -> None:
        self.expr(expr.left)
        self.expr(expr.right)
        return None

    def expr_FormattedString(self, expr: cst.FormattedString) -> None:
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.expr(part.expression)
                if part.format_spec:
                    for sub in part.format_spec:
                        if isinstance(sub, cst.FormattedStringExpression):
                            self.expr(sub.expression)
        return None

    def lookup(self, name: str) -> Value:
        if name in self.env:
            return self.env[name]
        info = self.info
        if info is not None and name in info.closure:
            return info.closure[name]
        if self.info is not None:
            fn = self.a.lookup_function(name, self.info)
            if fn is not None:
                return FuncValue(fn)
            if name in self.a.module_env:
                v = self.a.module_env[name]
                if isinstance(v, Taint):
                    return None  # module code never runs under trace
                return v
        return None

    def expr_Name(self, expr: cst.Name) -> Taint | None:
        name = expr.value
        value = self.lookup(name)
        if isinstance(value, Taint):
            return value
        if (self.recording and self.info is not None and self.info.traces_constants and not self.compile_time_eval
                and name in self.a.jax_constants and name not in self.env and self.scope.lookup(name) is None):
            self.a.bare_constants.add(expr)
            return Taint(TRACED, name, is_array=True, from_constant=True)
        return None

    def expr_Attribute(self, expr: cst.Attribute) -> Taint | None:
        base = self.expr(expr.value)
        if base is None:
            return None
        attr = expr.attr.value
        if attr in jaxapi.STATIC_ATTRS:
            return None
        if base.class_name is not None:
            # A traced pytree of a known class: its fields are leaves, subtrees or declared static.
            kind = self.a.field_kind(base.class_name, attr, base.filtered)
            if kind == "static":
                return None
            if kind == "leaf":
                return Taint(base.level, base.origin, is_array=True)
            if kind == "subtree":
                cls = self.a.field_class(base.class_name, attr)  # a local nnx Module held by an nnx Module
                return Taint(base.level, base.origin, container=cls is None, filtered=cls is not None,
                             class_name=cls)
            if kind == "variable":  # an nnx Variable: array-like; its `.value` is the array, the rest metadata
                return Taint(base.level, base.origin, is_array=True, class_name=self.a.field_class(base.class_name, attr))
        if base.filtered and not base.is_array:
            return None  # a field of an equinox/nnx module may be a static Python value
        if attr in ("T", "mT", "real", "imag", "at") and base.is_array:
            return dataclasses.replace(base, container=False, is_array=True, is_bool=base.is_bool and attr == "T")
        # A field of a traced pytree may be an array leaf or a static field (flax struct fields, configs).
        return dataclasses.replace(base, container=False, is_bool=False, is_array=False, opaque=True)

    def expr_Subscript(self, expr: cst.Subscript) -> Taint | None:
        base = self.expr(expr.value)
        index_taints = [self._slice_element(el) for el in expr.slice]
        self._record(expr)
        if base is None:
            return None
        if base.filtered and not base.is_array:
            return None
        if base.opaque:
            return dataclasses.replace(base, container=False, is_bool=False)
        if not base.is_array and any(isinstance(el.slice, cst.Slice) for el in expr.slice):
            return dataclasses.replace(base, elements=None)  # `layers[:-1]`: a slice of a container
        # An element of a traced pytree argument (`cfg["lr"]`, `batch[0]`) is a traced leaf: an array.
        return Taint(base.level, base.origin, is_bool=base.is_bool, is_array=True,
                     from_constant=base.from_constant and not any(index_taints))

    def _slice_element(self, el: cst.SubscriptElement) -> Taint | None:
        s = el.slice
        if isinstance(s, cst.Index):
            return self.expr(s.value)
        if isinstance(s, cst.Slice):
            parts = [self.expr(p) for p in (s.lower, s.upper, s.step) if p is not None]
            self._record(s)
            return join(*parts)
        return None

    def expr_BinaryOperation(self, expr: cst.BinaryOperation) -> Taint | None:
        left = self.expr(expr.left)
        right = self.expr(expr.right)
        op = expr.operator.__class__
        if op is cst.Modulo and expr.left.__class__ in _STRINGS:
            return None  # "%s" % x is a string
        result = join(left, right)
        if result is None:
            return None
        is_bool = op in _BITWISE and all(
            t is None or t.is_bool for t in (left, right)) and any(t is not None and t.is_bool for t in (left, right))
        if (left is None or left.container) and (right is None or right.container):
            return dataclasses.replace(result, container=True)  # tuple + tuple
        if result.opaque:
            return dataclasses.replace(result, is_bool=False, container=False, is_array=False)
        return dataclasses.replace(result, is_bool=is_bool, container=False, is_array=True)

    def expr_UnaryOperation(self, expr: cst.UnaryOperation) -> Taint | None:
        inner = self.expr(expr.expression)
        if isinstance(expr.operator, cst.Not):
            self._record(expr)
            return None
        return inner

    def expr_BooleanOperation(self, expr: cst.BooleanOperation) -> Taint | None:
        left = self.expr(expr.left)
        # `flag and t` with a Python-constant `flag`: False short-circuits (the right side never runs);
        # True hands back the right side itself, so `and` never takes a tracer's truth value here.
        decided = self.static_truth(expr.left)
        is_and = isinstance(expr.operator, cst.And)
        if decided is not None:
            if decided is not is_and:
                return None
            return self.expr(expr.right)
        right = self.expr(expr.right)
        self._record(expr)
        return join(left, right)

    def static_truth(self, expr: cst.BaseExpression) -> bool | None:
        """The truth value of a test decided by Python constants, or None when it depends on the run."""
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            inner = self.static_truth(expr.expression)
            return None if inner is None else not inner
        if isinstance(expr, cst.BooleanOperation):
            left = self.static_truth(expr.left)
            is_and = isinstance(expr.operator, cst.And)
            if left is not None and left is not is_and:
                return left
            right = self.static_truth(expr.right)
            if left is not None:
                return right
            return (False if is_and else True) if right is (not is_and) else None
        if isinstance(expr, (cst.Name, cst.Attribute)) and self.qualify_call_target(expr) in (
                "typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"):
            return False
        if isinstance(expr, cst.Call) and self.qualify_call_target(expr.func) == "hasattr" and len(expr.args) == 2:
            # A traced array has the array attributes; a known constant has those of its type.
            target, attr = self.static_value(expr.args[0].value), literal_const(expr.args[1].value)
            if attr is not None and isinstance(attr.value, str):
                if isinstance(target, Taint) and target.is_array and attr.value in jaxapi.STATIC_ATTRS:
                    return True
                if isinstance(target, Const):
                    return hasattr(target.value, attr.value)
            return None
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            op = expr.comparisons[0].operator
            left, right = self.static_value(expr.left), self.static_value(expr.comparisons[0].comparator)
            if isinstance(op, (cst.Is, cst.IsNot)):
                if isinstance(left, Const) and isinstance(right, Const):
                    if left.value is not None and right.value is not None:
                        return None  # `is` between other constants is an implementation detail
                    same = left.value is right.value
                elif Const(None) in (left, right):
                    other = right if left == Const(None) else left
                    # An array, a function, a known non-None constant: never None.
                    known = isinstance(other, FuncValue) or isinstance(other, Taint) and other.is_array or \
                        isinstance(other, Const)
                    if not known:
                        return None
                    same = isinstance(other, Const) and other.value is None
                else:
                    return None
                return same if isinstance(op, cst.Is) else not same
            if isinstance(op, (cst.Equal, cst.NotEqual)) and isinstance(left, Const) and isinstance(right, Const):
                try:
                    equal = bool(left.value == right.value)
                except Exception:  # noqa: BLE001  (constants only; cannot really fail)
                    return None
                return equal if isinstance(op, cst.Equal) else not equal
            return None
        value = self.static_value(expr)
        if isinstance(value, Const):
            return bool(value.value)
        if isinstance(value, FuncValue):
            return True
        return None

    def static_value(self, expr: cst.BaseExpression) -> Value:
        """What a name or literal is, without evaluating (recording) anything."""
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False", "None"):
                return literal_const(expr)
            return self.lookup(expr.value)
        return literal_const(expr)

    def expr_Comparison(self, expr: cst.Comparison) -> Taint | None:
        left = self.expr(expr.left)
        taints = [left]
        identity_only = True
        for target in expr.comparisons:
            taints.append(self.expr(target.comparator))
            op = target.operator
            if not isinstance(op, (cst.Is, cst.IsNot)):
                identity_only = False
            if isinstance(op, (cst.In, cst.NotIn)):
                self._record(expr)
        if identity_only:
            return None
        if any(isinstance(t.operator, (cst.In, cst.NotIn)) for t in expr.comparisons):
            return None  # membership gives a Python bool (or raises; a rule reports that)
        result = join(*taints)
        if result is None:
            return None
        if all(t is None or t.container for t in taints):
            return None  # comparing Python containers
        if result.opaque:
            return dataclasses.replace(result, container=False)  # comparing values of unknown kind
        operands = [expr.left, *(c.comparator for c in expr.comparisons)]
        if not any(t is not None and t.is_array for t in taints) and any(
                isinstance(o, (cst.Tuple, cst.List, cst.Dict, cst.Set, cst.SimpleString)) for o in operands):
            # `pure_args == ()`: a value of unknown kind against a Python container or string is a Python
            # comparison when the value is a container (an empty pytree stays `()` under tracing).
            return dataclasses.replace(result, container=False, opaque=True)
        return dataclasses.replace(result, is_bool=True, is_array=True, container=False)

    def expr_IfExp(self, expr: cst.IfExp) -> Taint | None:
        truth = self.static_truth(expr.test)
        self.expr(expr.test)
        if truth is not None:
            return self.expr(expr.body if truth else expr.orelse)
        self._record(expr)
        return join(self.expr(expr.body), self.expr(expr.orelse))

    def expr_NamedExpr(self, expr: cst.NamedExpr) -> Taint | None:
        value = self.expr(expr.value)
        self.assign(expr.target, value, expr.value)
        return value

    def _elements(self, elements) -> list[Taint | None]:
        out = []
        for el in elements:
            if isinstance(el, (cst.Element, cst.StarredElement)):
                out.append(self.expr(el.value))
        return out

    def expr_Tuple(self, expr) -> Taint | None:
        parts = self._elements(expr.elements)
        found = join(*parts)
        if found is None:
            return None
        # Remember each position of a literal tuple/list, so `a, b = f(...)` unpacks them one by one.
        exact = len(parts) == len(expr.elements) and not any(isinstance(e, cst.StarredElement) for e in expr.elements)
        return dataclasses.replace(found, container=True, is_array=False, is_bool=False,
                                   elements=tuple(parts) if exact else None)

    expr_List = expr_Tuple

    def expr_Set(self, expr) -> Taint | None:
        found = join(*self._elements(expr.elements))
        return dataclasses.replace(found, container=True, is_array=False, is_bool=False) if found else None

    def expr_Dict(self, expr: cst.Dict) -> Taint | None:
        found = []
        for el in expr.elements:
            if isinstance(el, cst.DictElement):
                self.expr(el.key)
                found.append(self.expr(el.value))
            elif isinstance(el, cst.StarredDictElement):
                found.append(self.expr(el.value))
        joined = join(*found)
        return dataclasses.replace(joined, container=True, is_array=False, is_bool=False) if joined else None

    def expr_Lambda(self, expr: cst.Lambda) -> None:
        info = self.a.lambda_info(expr, self.info, self.scope)
        self._closure_into(info)
        if self.traced:
            self.nested_seen.append(info)
        return None

    def _comprehension(self, expr) -> Taint | None:
        saved = dict(self.env)
        saved_loops = len(self.loops)
        comp = expr.for_in
        while comp is not None:
            element = self.iter_element(comp.iter)
            self.loops.append((comp, {name: "varying" for name in _target_names(comp.target)}))
            self.a.comprehensions[comp] = expr
            self._assign_element(comp.target, element, comp.iter)
            self._record(comp)
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
        if isinstance(expr, cst.GeneratorExp):
            return dataclasses.replace(result, container=True, is_array=False, is_bool=False)
        return dataclasses.replace(result, container=True, is_array=False, is_bool=False)

    expr_ListComp = expr_SetComp = expr_GeneratorExp = expr_DictComp = _comprehension

    def expr_Await(self, expr: cst.Await) -> Taint | None:
        return self.expr(expr.expression)

    def expr_Yield(self, expr: cst.Yield) -> Taint | None:
        if isinstance(expr.value, cst.BaseExpression):
            return self.expr(expr.value)
        if isinstance(expr.value, cst.From):
            return self.expr(expr.value.item)
        return None

    def expr_StarredElement(self, expr) -> Taint | None:
        return self.expr(expr.value)

    def iter_element(self, iterable: cst.BaseExpression):
        """The abstract value of one element when iterating over `iterable`: a Value, or a tuple of them
        for `enumerate`/`zip`/`.items()` (one per position of the element)."""
        self.expr(iterable)
        return self._element_structure(iterable)

    def _taint_of(self, expr: cst.BaseExpression) -> Taint | None:
        return self.a.taints.get(expr) if self.recording else None

    def _element_structure(self, iterable: cst.BaseExpression):
        if isinstance(iterable, cst.Call):
            q = self.a.call_names.get(iterable)
            args = [a.value for a in iterable.args if not a.star and a.keyword is None]
            if q == "range":
                return None
            if q == "enumerate" and args:
                return (None, self._element_structure(args[0]))
            if q == "zip" and args:
                return tuple(self._element_structure(a) for a in args)
            if q in ("reversed", "sorted", "list", "tuple", "iter", "set", "frozenset") and len(args) == 1:
                return self._element_structure(args[0])
            if q in jaxapi.ARRAY_LISTS:
                element = _element(self._taint_of(iterable))
                return dataclasses.replace(element, is_array=True) if element is not None else None
            if isinstance(iterable.func, cst.Attribute):
                method = iterable.func.attr.value
                receiver = self._taint_of(iterable.func.value)
                if method == "keys":
                    return None
                if method == "values":
                    return _element(receiver)
                if method == "items":
                    return (None, _element(receiver))
        return _element(self._taint_of(iterable))

    def _assign_element(self, target: cst.BaseExpression, element, source: cst.BaseExpression | None) -> None:
        if isinstance(element, tuple):
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(element) and not any(
                    isinstance(el, cst.StarredElement) for el in target.elements):
                for el, part in zip(target.elements, element):
                    self._assign_element(el.value, part, None)
                return
            element = join(*(v for v in _flatten(element) if isinstance(v, Taint)))
        self.assign(target, element, source)

    # ------------------------------------------------------------------ calls
    def qualify_call_target(self, func: cst.BaseExpression) -> str | None:
        """The qualified name of a called expression: imported names, or builtins by bare name."""
        cls = func.__class__
        if cls is cst.Call:
            return None
        q = self.scope.qualify(func)
        if q is not None:
            # A local variable of the same name hides the import.
            if cls is cst.Name and func.value in self.env and self.info is not None:
                return None
            head = func
            while head.__class__ is cst.Attribute:
                head = head.value
            if head.__class__ is cst.Name and head.value in self.env and self.info is not None and head is not func:
                return None
            return q
        if cls is cst.Name:
            name = func.value
            if name in self.env or (self.info and name in self.info.closure):
                return None
            if self.a.lookup_function(name, self.info) is not None or name in self.a.module_env:
                return None
            return name  # a builtin (or an unresolved global)
        return None

    def expr_Call(self, expr: cst.Call) -> Taint | None:
        self._last_call_value = None
        func = expr.func
        q = self.qualify_call_target(func)
        receiver: Taint | None = None
        callee_value: Value = None
        fcls = func.__class__
        if fcls is cst.Attribute:
            receiver = self.expr(func.value)
        elif fcls is cst.Call:
            self.expr(func)
            callee_value = self._last_call_value
        elif fcls is cst.Name:
            callee_value = self.lookup(func.value)
        else:
            self.expr(func)
        # Function arguments: keep callables for transforms; everything else as taints.
        arg_values: list[Value] = []
        for arg in expr.args:
            acls = arg.value.__class__
            if acls is cst.Lambda or acls is cst.Name:
                arg_values.append(self.value(arg.value))
            elif acls is cst.Call:
                t = self.expr(arg.value)
                arg_values.append(self._last_call_value if self._last_call_value is not None else t)
            else:
                t = self.expr(arg.value)
                method = self._resolve_method(arg.value) if acls is cst.Attribute else None
                arg_values.append(method if method is not None and t is None else (t or literal_const(arg.value)))
        self._last_call_value = None
        self._record(expr)
        self.a.call_names[expr] = q
        callee = callee_value if isinstance(callee_value, FuncValue) else None
        if callee is None and fcls is cst.Attribute:
            callee = self._resolve_method(func)
        self.a.call_sites[expr] = CallSite(expr, self.info, self.scope, self.loops[-1][0] if self.loops else None, q,
                                           arg_values, self.recording, callee, self._varying(),
                                           tuple(loop for loop, _ in self.loops))
        arg_taints = [value_taint(v) for v in arg_values]
        any_arg = join(*arg_taints)
        in_jit = self.recording and bool(self.info and self.info.traces_constants) and not self.compile_time_eval

        if q is not None:
            result = self._call_known(expr, q, arg_values, arg_taints, receiver, in_jit)
            if result is not _UNKNOWN:
                return result
        # Calling a transformed callable: jax.jit(f)(x), vmap(f)(x), or a name bound to one.
        if isinstance(callee_value, FuncValue):
            return self._call_local(expr, callee_value, arg_values, in_jit)
        # Calling a traced Module (`model(x)` inside `nnx.jit`): its `__call__` runs, traced.
        if isinstance(callee_value, Taint) and callee_value.class_name is not None:
            call = self.a.method(callee_value.class_name, "__call__")
            if call is not None:
                return self._call_local(expr, FuncValue(call, bound_self=True), arg_values, in_jit,
                                        self_value=callee_value)
        if fcls is cst.Call and self.a.call_names.get(func) in jaxapi.ARRAY_LAYERS and any_arg is not None:
            return _layer_output(any_arg)  # `nn.Dense(4)(x)`: a linen layer applied where it is built
        if isinstance(func, cst.Attribute):
            method = self._resolve_method(func)
            state = self._linen_state(func) if method is None and in_jit else None
            if state is not None:
                return state
            if method is None and receiver is not None and receiver.class_name is not None and \
                    self.a.field_kind(receiver.class_name, func.attr.value, receiver.filtered) == "layer":
                return _layer_output(join(any_arg, receiver))  # `self.linear(x)`: an nnx/equinox layer field
            if method is None and receiver is not None and receiver.class_name is not None:
                m = self.a.method(receiver.class_name, func.attr.value)
                method = FuncValue(m, bound_self=True) if m is not None and not m.is_property else None
                if method is None:
                    method = self._held_apply_fn(receiver.class_name, func.attr.value)
                    if method is not None:
                        return self._call_local(expr, method, arg_values, in_jit)
            if method is not None:
                me = receiver if receiver is not None and receiver.class_name is not None else None
                return self._call_local(expr, method, arg_values, in_jit, skip_first=True, self_value=me)
            if isinstance(func.value, cst.Name) and func.value.value in self.a.classes:
                m = self.a.method(func.value.value, func.attr.value)
                if m is not None:
                    return self._call_local(expr, FuncValue(m), arg_values, in_jit)
            return self._method_call(func.attr.value, receiver, arg_taints, expr)
        if isinstance(func, cst.Name) and func.value in self.a.classes:
            self._last_call_value = InstanceValue(func.value)
            init = self.a.method(func.value, "__init__")
            if init is not None and self.recording:
                self._call_local(expr, FuncValue(init), arg_values, in_jit, skip_first=True)
            return dataclasses.replace(any_arg, container=True, is_array=False) if any_arg else None
        result = join(any_arg, receiver)
        if result is not None:
            # An unknown function of traced values: most return arrays, but some return Python values
            # (`is_valid(x)`), so the result is traced but of unknown kind.
            return dataclasses.replace(result, container=False, is_bool=False, is_array=False, filtered=False,
                                       opaque=True)
        return None

    def _linen_state(self, func: cst.Attribute) -> Taint | None:
        """`self.param(...)` / `self.variable(...)` of a linen Module applied inside jit: its parameters and
        variables are the (traced) arrays of the variables passed to `apply`."""
        name = func.attr.value
        if name not in jaxapi.LINEN_STATE_METHODS:
            return None
        owner = self._self_class(func.value)
        if owner is None or self.a.framework_of(owner) != "linen" or self.a.method(owner, name) is not None:
            return None
        cls = jaxapi.LINEN_STATE_METHODS[name]
        return Taint(TRACED, f"self.{name}(...)", is_array=cls is None, from_constant=True, class_name=cls)

    def _method_call(self, name: str, receiver: Taint | None, arg_taints, expr: cst.Call) -> Taint | None:
        if receiver is None:
            # `obj.method(x)` on a Python object: most such methods compute on arrays, but jitlint
            # cannot know what this one returns.
            joined = join(*arg_taints)
            if joined is not None and self.recording:
                return dataclasses.replace(joined, container=False, is_bool=False, is_array=False, opaque=True)
            return None
        if name in ("item", "tolist", "__bool__", "__int__", "__float__", "__index__"):
            return None  # concretizes (a rule reports it); the Python value is static afterwards
        if name in ("keys",):
            return None
        if name in ("items", "values"):
            return dataclasses.replace(receiver, container=True, is_array=False, is_bool=False)
        if name in ("astype", "view"):
            is_bool = bool(expr.args) and self.qualify_call_target(expr.args[0].value) in jaxapi.BOOL_DTYPES | {"bool"}
            return Taint(receiver.level, receiver.origin, is_bool=is_bool, is_array=True)
        if name in ("any", "all"):
            return Taint(receiver.level, receiver.origin, is_bool=True, is_array=True)
        if name in ("get", "copy", "values", "items", "pop", "setdefault") and not receiver.is_array:
            return dataclasses.replace(receiver, container=name in ("values", "items"), filtered=receiver.filtered)
        is_bool = receiver.is_bool and name in ("reshape", "ravel", "flatten", "squeeze", "transpose", "__invert__")
        if receiver.is_array or name in jaxapi.ARRAY_METHODS:
            # Only arrays have these methods, so the receiver was an array after all.
            return Taint(receiver.level, receiver.origin, is_bool=is_bool, is_array=True)
        return Taint(receiver.level, receiver.origin, opaque=True)

    def _call_known(self, expr: cst.Call, q: str, arg_values: list[Value], arg_taints, receiver, in_jit):
        any_arg = join(*arg_taints)
        transform = jaxapi.TRANSFORMS.get(q)
        if transform is not None:
            self._apply_transform(expr, q, transform, arg_values)
            return None
        if q in jaxapi.LIFTED_TRANSFORMS:
            self._lift_module(expr, q)
            return None
        if q in jaxapi.CONSTRUCTORS:
            cls, apply_keyword = jaxapi.CONSTRUCTORS[q]
            self._last_call_value = InstanceValue(cls)
            held = kwarg(expr, apply_keyword) if apply_keyword else None
            if held is not None and isinstance(held.value, cst.Attribute):
                method = self._resolve_method(held.value)
                if method is not None and method.skip_args and method.info.class_name and \
                        method.info.class_name not in self.a.apply_fn_classes:
                    self.a.apply_fn_classes.add(method.info.class_name)
                    for reader, key in self.a.apply_fn_readers:
                        if key in reader.variants:
                            self.a._enqueue(reader, reader.variants[key])
            return None
        if q in ("functools.partial",):
            if arg_values and isinstance(arg_values[0], FuncValue):
                self._last_call_value = self._partial_value(expr, arg_values[0])
            elif expr.args and self.qualify_call_target(expr.args[0].value) in jaxapi.TRANSFORMS:
                pass  # partial(jax.jit, ...) as a decorator factory: handled at the decorator
            return None
        if q in jaxapi.LAX_BODIES or q in jaxapi.LAX_SWITCH:
            self._lax_call(expr, q, arg_values)
            return self._array_result(any_arg, in_jit, expr, q)
        if q in jaxapi.CALLBACKS:
            if arg_values and isinstance(arg_values[0], FuncValue):
                info = arg_values[0].info
                if not info.traced:
                    info.callback = True
            return self._array_result(None, in_jit, expr, q) if self.recording else None
        if q in jaxapi.TREE_MAPS:
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
                closure = self._closure() if fv.info.parent is self.info else None
                variant = self.a.request(fv.info, Context("nested", f"mapped by `{q}`", self.info.traces_constants),
                                         params, closure, self.info.traces_constants)
                if variant is not None:
                    self._read_return_of(fv.info, variant)
                    if variant.returns_known and variant.return_taint is None:
                        return None  # `tree_map(lambda x: x is None, t)`: a tree of Python values
            return dataclasses.replace(rest, container=True, is_array=False, elements=None) if rest else None
        if q in jaxapi.STATIC_FUNCS or q in jaxapi.CONCRETIZERS or q.startswith("math."):
            return None
        if q in jaxapi.CONSTANT_COLLECTIVES and arg_values and isinstance(arg_values[0], Const):
            return None  # `lax.psum(1, "i")` is a Python int (the axis size) inside the mapped function
        if q.startswith("numpy."):
            if any_arg is not None and q in jaxapi.NUMPY_DELEGATING:
                return dataclasses.replace(any_arg, container=False, is_array=True, is_bool=False)
            return None  # NumPy on constants stays NumPy; on tracers it raises (a rule reports it)
        if q in jaxapi.ARRAY_LISTS:
            return _as_container(self._array_result(any_arg, in_jit, expr, q))  # `jnp.split(x, 3)`: a list
        if q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) or q in jaxapi.ARRAY_FUNCTIONS:
            return self._array_result(any_arg, in_jit, expr, q)
        if q in jaxapi.TREE_REPLACE:  # `eqx.tree_at(where, model, value)`: a copy of `model`, same class
            tree = _argument(expr, arg_values, 1, jaxapi.TREE_REPLACE[q][1])
            if isinstance(tree, InstanceValue):
                self._last_call_value = tree
        if q in jaxapi.TREE_FUNCTIONS:
            return _as_container(any_arg)
        if q in ("range", "len", "isinstance", "print", "hash", "id", "repr", "str", "format", "type"):
            return None
        if q in ("max", "min", "sorted"):
            return None  # compares tracers: raises (a rule reports it)
        if q in ("abs", "sum", "round", "pow", "divmod", "reversed", "iter", "next", "list", "tuple",
                 "dict", "set", "zip", "map", "filter", "enumerate", "frozenset"):
            if any_arg is None:
                return None
            container = q in ("list", "tuple", "dict", "set", "zip", "map", "filter", "enumerate",
                              "reversed", "iter", "frozenset")
            return dataclasses.replace(any_arg, container=container, is_array=not container and any_arg.is_array)
        if q in jaxapi.PASS_THROUGH:
            return any_arg
        if q.startswith("jax.") and any_arg is not None:
            # Other jax APIs (internal helpers, dtypes, sharding, ...) may return Python values.
            return dataclasses.replace(any_arg, container=False, is_bool=False, is_array=False, opaque=True)
        return _UNKNOWN

    def _array_result(self, any_arg: Taint | None, in_jit: bool, expr: cst.Call, q: str) -> Taint | None:
        name = q.rsplit(".", 1)[-1]
        is_bool = name in jaxapi.BOOL_FUNCS or self._bool_dtype_call(expr, q)
        if any_arg is not None:
            return Taint(any_arg.level, any_arg.origin, is_bool=is_bool, is_array=True,
                         from_constant=any_arg.from_constant)
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

    def _partial_value(self, expr: cst.Call, fv: FuncValue) -> FuncValue:
        bound = set(fv.bound)
        free = [p for p in fv.info.positional if p not in bound]
        if fv.bound_self or (fv.info.is_method and fv.info.positional):
            free = free[1:] if fv.bound_self else free
        pos = positional_args(expr)[1:]
        consts = dict(fv.consts)
        for name, arg in zip(free, pos):
            bound.add(name)
            if literal_const(arg.value) is not None:
                consts[name] = literal_const(arg.value)
        for arg in expr.args:
            if arg.keyword is not None:
                bound.add(arg.keyword.value)
                if literal_const(arg.value) is not None:
                    consts[arg.keyword.value] = literal_const(arg.value)
        return FuncValue(fv.info, frozenset(bound), fv.bound_self, fv.transform, partial=True, binding=fv.binding,
                         consts=tuple(consts.items()))

    def _resolve_method(self, func: cst.Attribute) -> FuncValue | None:
        """`self.method` inside a class, `obj.method` with `obj = LocalClass(...)`, or `LocalClass(...).method`;
        through what the object holds: `self.step` set to `jax.jit(...)` in `__init__`, `self.block(x)` /
        `self.block.f(x)` of `self.block = Block(...)`."""
        base = func.value
        held_owner = self._self_class(base.value) if isinstance(base, cst.Attribute) else None
        if held_owner is not None:
            held = self.a.attribute_values.get((held_owner, base.attr.value))
            if isinstance(held, InstanceValue) and held.class_name in self.a.classes:
                m = self.a.method(held.class_name, func.attr.value)
                return FuncValue(m, bound_self=True) if m is not None and not m.is_property else None
            return None
        if isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value in self.a.classes:
            return self._method_of(base.func.value, func.attr.value)  # `Model().apply(variables, x)`
        if not isinstance(base, cst.Name):
            return None
        self_owner = self._self_class(base)
        if self_owner is not None and self.a.method(self_owner, func.attr.value) is None:
            held = self.a.attribute_values.get((self_owner, func.attr.value))
            if isinstance(held, FuncValue):
                return held
            if isinstance(held, InstanceValue) and held.class_name in self.a.classes:
                call = self.a.method(held.class_name, "__call__")
                return FuncValue(call, bound_self=True) if call is not None else None
        owner: str | None = None
        info = self.info
        if info is not None and info.is_method and info.positional and base.value == info.positional[0]:
            owner = info.class_name
        else:
            v = self.lookup(base.value)
            if isinstance(v, InstanceValue) or isinstance(v, Taint) and v.class_name is not None:
                owner = v.class_name
        if owner is None or owner not in self.a.classes:
            return None
        return self._method_of(owner, func.attr.value)

    def _method_of(self, owner: str, name: str) -> FuncValue | None:
        """The bound method `name` of an instance of the local class `owner`."""
        m = self.a.method(owner, name)
        if m is None and name in jaxapi.APPLY_METHODS and self.a.framework_of(owner) == "linen":
            # `model.apply(variables, x, method=...)` runs `__call__` (or the named method) on `x`.
            m = self.a.method(owner, "__call__")
            if m is not None:
                return FuncValue(m, bound_self=True, skip_args=jaxapi.APPLY_METHODS[name])
        if m is None or m.is_property:
            return None  # `self.probs` of a @property is the value it returns, not a method
        return FuncValue(m, bound_self=True)

    def _call_local(self, expr: cst.Call, fv: FuncValue, arg_values: list[Value], in_jit: bool,
                    skip_first: bool = False, self_value: Taint | None = None) -> Taint | None:
        info = fv.info
        arg_taints = [value_taint(v) for v in arg_values]
        any_arg = join(*arg_taints)
        if fv.transform is not None or info.jit_binding is not None and not fv.partial:
            # Calling a jitted function: it has its own context; the result is an array.
            self._note_passed(info, expr, fv, skip_first or fv.bound_self)
            self._note_classes(info, expr, fv, arg_values, skip_first or fv.bound_self)
            self._note_scalars(info, expr, fv, arg_values, skip_first or fv.bound_self)
            result = self._array_result(any_arg, in_jit, expr, "jit") if (any_arg or in_jit) else None
            return _derivative_result(fv, result, arg_taints)
        returned = _returned_def(info)
        if not self.recording:
            self._note_passed(info, expr, fv, skip_first or fv.bound_self)
            self._note_eager_objects(info, expr, fv, arg_values, skip_first or fv.bound_self)
            instance = self._returned_instance(info)
            self._last_call_value = FuncValue(returned) if returned is not None else instance
            return None
        self._last_call_value = FuncValue(returned) if returned is not None else None
        params = self._bind_args(info, expr, fv, arg_values, skip_first or fv.bound_self)
        if self_value is not None and info.is_method and info.positional:
            params[info.positional[0]] = self_value
        traces_constants = bool(self.info and self.info.traces_constants)
        variant = self.a.request(info, Context("helper", f"called from traced `{self.info.name}`", traces_constants),
                                 params, self._closure() if info.parent is self.info else None, traces_constants)
        if variant is not None:
            self._read_return_of(info, variant)
            if variant.returns_known:  # walked in this context: None means a Python value
                return _derivative_result(fv, variant.return_taint, arg_taints)
        return dataclasses.replace(any_arg, container=False, is_array=False, opaque=True) if any_arg else None

    def _note_eager_objects(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                            skip_self: bool) -> None:
        """Functions and objects an eager caller passes (a model to a loss factory): the callee's eager walk
        sees them; two callers passing different ones leave the parameter unknown."""
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            if not isinstance(v, (FuncValue, InstanceValue)):
                v = None
            if name not in info.eager_values:
                info.eager_values[name] = v
            elif info.eager_values[name] != v:
                info.eager_values[name] = None

    def _note_classes(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                      skip_self: bool) -> None:
        """Objects of local Module classes passed to a jitted function: its body calls their methods."""
        grew = False
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            cls = v.class_name if isinstance(v, InstanceValue) else None
            if cls is None or not self.a.pytree_class(cls):
                continue
            if name not in info.param_classes:
                info.param_classes[name] = cls
                grew = True
            elif info.param_classes[name] != cls:
                info.param_classes[name] = None
        if grew and info.traced:
            self.a._enqueue_context_refresh(info)

    def _note_scalars(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, arg_values: list[Value],
                      skip_self: bool) -> None:
        """Python numbers and bools callers pass to a jitted function (`step(x, True)`): traced scalars
        inside, whose truth value JAX cannot take."""
        changed = False
        for name, v in self._passed_values(info, expr, fv, arg_values, skip_self).items():
            scalar = isinstance(v, Const) and type(v.value) in (bool, int, float)
            before = info.param_scalars.get(name)
            now = scalar if before is None else before and scalar
            if now != before:
                info.param_scalars[name] = now
                changed = True
        if changed and info.traced:
            self.a._enqueue_context_refresh(info)

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

    def _read_return_of(self, info: FunctionInfo, variant: Variant) -> None:
        """This walk reads what `info` returns in `variant`: walk it now if still unknown, and have this
        context walked again if it changes."""
        self.a.callers.setdefault((id(info), variant.key), {})[(self.info, self.variant.key)] = None
        self.a.settle(info, variant)

    def _note_passed(self, info: FunctionInfo, expr: cst.Call, fv: FuncValue, skip_self: bool) -> None:
        """Remember which defaulted parameters callers pass (they are traced when passed)."""
        names = self._param_names_for_args(info, expr, fv, skip_self)
        newly = {n for n in names if n in info.defaults} - info.passed_params
        if newly:
            info.passed_params |= newly
            if info.traced:
                self.a._enqueue_context_refresh(info)

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
        params: dict[str, Value] = dict(fv.consts)
        i = -fv.skip_args  # arguments before the function's own (the variables of `model.apply`)
        for arg, value in zip(expr.args, arg_values):
            taint = value_taint(value)
            passed = value if isinstance(value, Const) else taint
            if arg.keyword is not None:
                name = arg.keyword.value
                if name in info.params:
                    params[name] = passed
                elif info.kwarg:
                    params[info.kwarg] = join(params.get(info.kwarg), _as_container(taint))
            elif arg.star == "*":
                for p in positional[max(i, 0):]:
                    params[p] = taint
                if info.vararg:
                    params[info.vararg] = _as_container(taint)
                i = len(positional)
            elif arg.star == "**":
                for p in info.params:
                    params.setdefault(p, taint)
            else:
                if 0 <= i < len(positional):
                    params[positional[i]] = passed
                elif i >= 0 and info.vararg:
                    params[info.vararg] = join(params.get(info.vararg), _as_container(taint))
                i += 1
        if not any(arg.star for arg in expr.args):
            for name in info.defaults - params.keys():
                params[name] = info.default_const(name)  # not passed: the default's value
        return params

    def _closure(self) -> dict[str, Value]:
        out: dict[str, Value] = {}
        if self.info is not None:
            out.update(self.info.closure)
        out.update(self.env)
        return out

    def _closure_into(self, info: FunctionInfo) -> None:
        if self.info is None:
            return
        for name, value in self._closure().items():
            info.closure[name] = merge_values(info.closure.get(name), value)

    # ------------------------------------------------------------------ transforms
    def _target(self, expr: cst.BaseExpression, value: Value = None) -> tuple[FuncValue | None, list[tuple[str, cst.Call | None]]]:
        """Resolve a transform's function argument: (the user function, inner transforms applied)."""
        if isinstance(value, FuncValue):
            return value, []
        if isinstance(expr, cst.Lambda):
            info = self.a.lambda_info(expr, self.info, self.scope)
            return FuncValue(info), []
        if isinstance(expr, cst.Name):
            v = self.lookup(expr.value)
            if isinstance(v, FuncValue):
                return v, []
            if isinstance(v, (Taint, InstanceValue)) and v.class_name in self.a.classes:
                # `jax.vmap(model)` of a Module: its `__call__` is what is transformed.
                call = self.a.method(v.class_name, "__call__")
                if call is not None:
                    return FuncValue(call, bound_self=True), []
            fn = self.a.lookup_function(expr.value, self.info)
            return (FuncValue(fn), []) if fn else (None, [])
        if isinstance(expr, cst.Attribute):
            return self._resolve_method(expr), []
        if isinstance(expr, cst.Call):
            q = self.qualify_call_target(expr.func)
            if q == "functools.partial" and expr.args:
                inner, chain = self._target(expr.args[0].value)
                if inner is not None:
                    return self._partial_value(expr, inner), chain
                return None, []
            if q in jaxapi.TRANSFORMS and expr.args:
                inner, chain = self._target(expr.args[0].value)
                return inner, [(q, expr), *chain]
        return None, []

    def _apply_transform(self, expr: cst.Call, q: str, transform: jaxapi.Transform, arg_values: list[Value]) -> None:
        pos = positional_args(expr)
        fun_arg = pos[0] if pos else kwarg(expr, "fun") or kwarg(expr, "f")
        if fun_arg is None:
            return  # decorator factory: `jax.jit(static_argnames=...)`, handled at the decorator
        if self.eager_depth:
            return  # under `jax.disable_jit()` transforms run eagerly
        index = list(expr.args).index(fun_arg)
        fv, chain = self._target(fun_arg.value, arg_values[index] if index < len(arg_values) else None)
        if q in jaxapi.JIT_WRAPPERS:
            self.a.jit_creations[expr] = JitCreation(expr, fun_arg.value, q, self.info,
                                                     self.loops[-1][0] if self.loops else None, fv,
                                                     tuple(loop for loop, _ in self.loops), self._varying())
        if fv is None:
            return
        chain = [(q, expr), *chain]
        binding = self._start_context(fv, chain, expr)
        if transform.returns_function:  # not `out, f_jvp = jax.linearize(f, x)`: values, not a function
            derivative = transform.result if transform.kind == "grad" else fv.derivative
            self._last_call_value = dataclasses.replace(fv, transform=q if transform.kind == "jit" else None,
                                                        binding=binding, partial=False, derivative=derivative)
            module = arg_values[index] if index < len(arg_values) else None
            if transform.kind == "vmap" and isinstance(module, Taint) and module.class_name is not None:
                # `jax.vmap(model)(x)` of a traced Module: its `__call__` runs with the traced `self`
                self._last_call_value = module

    def _decorated_context(self, info: FunctionInfo) -> JitBinding | None:
        node = info.node
        assert isinstance(node, cst.FunctionDef)
        chain: list[tuple[str, cst.Call | None]] = []
        for dec in node.decorators:  # outermost first
            d = dec.decorator
            q = self.qualify_call_target(d.func) if isinstance(d, cst.Call) else self.qualify_call_target(d)
            if isinstance(d, cst.Call) and q == "functools.partial" and d.args:
                inner_q = self.qualify_call_target(d.args[0].value)
                if inner_q in jaxapi.TRANSFORMS:
                    chain.append((inner_q, d))
                continue
            if q in jaxapi.TRANSFORMS:
                chain.append((q, d if isinstance(d, cst.Call) else None))
        if not chain:
            return None
        fv = FuncValue(info, bound_self=False)
        binding = self._start_context(fv, chain, node.decorators[0], decorated=True)
        if binding is not None and (self.info is not None or self.loops) and info.class_name is None:
            self.a.jit_creations[node] = JitCreation(node.decorators[0], node, binding.transform, self.info,
                                                     self.loops[-1][0] if self.loops else None, fv,
                                                     tuple(loop for loop, _ in self.loops), self._varying())
        return binding

    def _start_context(self, fv: FuncValue, chain: list[tuple[str, cst.Call | None]], node: cst.CSTNode,
                       decorated: bool = False, restart: bool = False) -> JitBinding | None:
        info = fv.info
        kinds = [jaxapi.TRANSFORMS[q] for q, _ in chain]
        tracing = [t for t in kinds if t.kind in ("jit", "vmap")]
        outer_q, outer_call = chain[0]
        binding: JitBinding | None = None
        static: set[str] = set(fv.bound)
        if info.is_method and info.positional and (decorated or fv.bound_self):
            static.add(info.positional[0])
        statics_known = True
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
            static |= info.static_param_names(nums, names, fv.bound, fv.bound_self)
            if q == chain[0][0] and t is kinds[0] and q in jaxapi.JIT_WRAPPERS:
                binding = JitBinding(info.name if decorated else "", q, info,
                                     nums if statics_known else None, names if statics_known else None,
                                     node, fv.bound, fv.bound_self)
        if binding is None and outer_q in jaxapi.JIT_WRAPPERS:
            binding = JitBinding(info.name if decorated else "", outer_q, info, (), (), node, fv.bound,
                                 fv.bound_self)
        if binding is not None:
            self.a.bindings[node] = binding
            if decorated:
                info.jit_binding = binding
        if raises_at_wrap:
            return binding  # never traced: wrapping it raises
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
            self.a.request(info, Context("grad", q, False), params,
                           self._closure() if info.parent is self.info and self.info else None, False)
            return binding
        first = tracing[0]
        filtered = any(t.filtered for t in tracing)
        graph_nodes = any(t.graph_nodes for t in tracing)
        traces_constants = any(t.traces_constants for t in tracing)
        vmap_static = self._vmap_unbatched(chain, info, static)
        params: dict[str, Value] = dict(fv.consts)  # partial-bound literals are constants in the body
        for name in info.params:
            if name in static or name in vmap_static or not statics_known:
                continue
            if name in info.defaults and name not in info.passed_params:
                # A Python default that no caller passes stays a Python value (its literal, if it is one).
                params[name] = info.default_const(name)
                continue
            kind = annotation_kind(info.annotations.get(name))
            module_class = self._module_class_of(info, name)
            if filtered and kind != "array" and module_class is None:
                continue  # equinox keeps non-array arguments static; an unannotated one may be either
            is_array = kind in ("array", "scalar") or name in info.scalar_defaults or \
                info.param_scalars.get(name) is True and first.kind == "jit"
            container = name in (info.vararg, info.kwarg)  # *args is a tuple, **kwargs a dict
            # An nnx Module is a pytree under plain jax.jit too: its plain attributes are static there.
            nnx_module = module_class is not None and self.a.framework_of(module_class) == "nnx"
            params[name] = Taint(TRACED, name, is_array=is_array and not container, container=container,
                                 filtered=(graph_nodes or filtered or nnx_module) and not is_array,
                                 class_name=module_class)
        via = "@" + outer_q if decorated else f"{outer_q}(...)"
        context = Context(first.kind, via.replace("jax.numpy", "jnp"), traces_constants, filtered or graph_nodes)
        closure = self._closure() if self.info is not None and info.parent is self.info else None
        self.a.request(info, context, params, closure, traces_constants)
        if not restart:
            self.a._context_starts.setdefault(id(info), []).append((self.info, fv, chain, node, decorated))
        return binding

    def _module_class_of(self, info: FunctionInfo, name: str) -> str | None:
        """The local Module class (flax nnx/linen, equinox) a traced parameter holds: from its annotation
        (`model: MLP`), or from the objects callers pass."""
        annotation = info.annotations.get(name)
        ann = annotation.annotation if annotation is not None else None
        if isinstance(ann, cst.Name) and ann.value in self.a.classes and self.a.pytree_class(ann.value):
            return ann.value
        q = self.scope.qualify(ann) if isinstance(ann, (cst.Name, cst.Attribute)) else None
        if q in jaxapi.PYTREE_CLASSES:
            return q
        cls = info.param_classes.get(name)
        return cls if cls is not None and self.a.pytree_class(cls) else None

    def _lift_module(self, expr: cst.Call, q: str) -> None:
        """`nn.scan(Block, ...)`: Block's `__call__` runs traced (its inputs are tracers) when applied."""
        pos = positional_args(expr)
        target = pos[0].value if pos else None
        if not (isinstance(target, cst.Name) and target.value in self.a.classes):
            return
        call = self.a.method(target.value, "__call__")
        if call is None:
            return
        free = call.positional[1:]
        params: dict[str, Value] = {p: Taint(TRACED, p) for p in free if p not in call.defaults}
        for name in [*free, *call.kwonly]:
            if name in call.defaults:
                params[name] = call.default_const(name)
        short = q.replace("flax.linen.", "nn.")
        self.a.request(call, Context("lax", f"`{short}` body", True), params, None, True)

    def _held_apply_fn(self, class_name: str, attr: str) -> FuncValue | None:
        """`state.apply_fn(params, x)` of a TrainState built with `apply_fn=model.apply` of the one linen
        Module class this file does so with: that module's `__call__`."""
        if self.variant is not None:  # walk this again if a TrainState.create(apply_fn=...) is met later
            self.a.apply_fn_readers[(self.info, self.variant.key)] = None
        if len(self.a.apply_fn_classes) != 1:
            return None
        if not any((cls == class_name or cls in self.a.library_bases(class_name)) and keyword == attr
                   for cls, keyword in jaxapi.CONSTRUCTORS.values()):
            return None
        call = self.a.method(next(iter(self.a.apply_fn_classes)), "__call__")
        return FuncValue(call, bound_self=True, skip_args=1) if call is not None else None

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
            elif isinstance(call.func, cst.Name) and call.func.value in self.a.classes:
                found.add(call.func.value)
            else:
                return None
        return InstanceValue(found.pop()) if len(found) == 1 else None

    def _static_kw(self, call: cst.Call, keyword: str | None) -> cst.BaseExpression | None:
        if keyword is None:
            return None
        arg = kwarg(call, keyword)
        if arg is None:
            return None
        value = arg.value
        if isinstance(value, cst.Name) and self.info is None and value.value in self._module_literals():
            return self._module_literals()[value.value]
        if isinstance(value, cst.Name) and value.value in self._module_literals():
            return self._module_literals()[value.value]
        return value

    def _module_literals(self) -> dict[str, cst.BaseExpression]:
        lits = self.a._literals
        if lits is None:
            lits = {}
            for stmt in self.a.module.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
                                small.targets[0].target, cst.Name):
                            lits[small.targets[0].target.value] = small.value
            self.a._literals = lits
        return lits

    def _vmap_unbatched(self, chain, info: FunctionInfo, static: set[str]) -> set[str]:
        """Parameters vmap does not batch (in_axes None) stay Python values unless jit is outside."""
        if any(jaxapi.TRANSFORMS[q].kind == "jit" for q, _ in chain):
            return set()
        out: set[str] = set()
        for q, call in chain:
            if jaxapi.TRANSFORMS[q].kind != "vmap" or call is None:
                continue
            in_axes = kwarg(call, "in_axes")
            if in_axes is None:
                pos = positional_args(call)
                in_axes = pos[1] if len(pos) > 1 else None
            if in_axes is None or not isinstance(in_axes.value, (cst.Tuple, cst.List)):
                continue
            free = [p for p in info.positional if p not in static]
            for name, el in zip(free, in_axes.value.elements):
                if isinstance(el.value, cst.Name) and el.value.value == "None":
                    out.add(name)
        return out

    def _lax_call(self, expr: cst.Call, q: str, arg_values: list[Value]) -> None:
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
            fv, chain = self._target(target_expr, value)
            if fv is None:
                continue
            info = fv.info
            params: dict[str, Value] = {p: Taint(TRACED, p) for p in info.params if p not in fv.bound}
            params.update(fv.consts)
            # The body receives only its operands, positionally: keyword-only parameters and defaulted
            # ones past the operands keep their (constant) defaults.
            operands = jaxapi.LAX_OPERANDS.get(q)
            if q in jaxapi.LAX_SWITCH or operands is None and q.endswith("cond"):
                operands = max(len(positional_args(expr)) - (2 if q in jaxapi.LAX_SWITCH else 3), 0) + (
                    1 if kwarg(expr, "operand") or kwarg(expr, "operands") else 0)
            if operands is not None and not info.vararg:
                free = [p for p in info.positional if p not in fv.bound]
                if info.is_method and fv.bound_self and free:
                    free = free[1:]
                for name in [*free[operands:], *info.kwonly]:
                    if name in info.defaults:
                        params[name] = info.default_const(name)
            if info.is_method and info.positional and fv.bound_self:
                params.pop(info.positional[0], None)
            closure = self._closure() if self.info is not None and (info.parent is self.info or isinstance(info.node, cst.Lambda)) else None
            self.a.request(info, Context("lax", f"`{short}` body", True), params, closure, True)


_UNKNOWN = object()

# Node classes tested on every binary operation. (Class tests here and in the other hot paths rather than
# isinstance: libcst's concrete node classes have no subclasses, and isinstance against them goes through
# ABCMeta, several times slower.)
_STRINGS = frozenset({cst.SimpleString, cst.FormattedString, cst.ConcatenatedString})
_BITWISE = frozenset({cst.BitAnd, cst.BitOr, cst.BitXor})

# Each node class's transfer function, looked up once per class rather than by name on every node (the
# walk meets hundreds of thousands of nodes on a large file).
_EXPR_METHODS: dict[type, object] = {}
_STMT_METHODS: dict[type, object] = {}
_MISSING = object()


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
        grads = dataclasses.replace(result, container=True, is_array=False, is_bool=False, elements=None)
    else:
        grads = dataclasses.replace(result, is_array=False, is_bool=False, opaque=True)
    if fv.derivative == "like_argument":
        return grads
    value = dataclasses.replace(result, is_bool=False)  # a scalar array (or `(value, aux)` with has_aux)
    return dataclasses.replace(result, container=True, is_array=False, is_bool=False, elements=(value, grads))


def _layer_output(inputs: Taint) -> Taint:
    """What a library layer returns (jaxapi.ARRAY_LAYERS) from traced inputs or traced parameters: one array."""
    return Taint(inputs.level, inputs.origin, is_array=True)


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


def _as_container(taint: Taint | None) -> Taint | None:
    return dataclasses.replace(taint, container=True, is_array=False, is_bool=False) if taint else None


def _element(taint: Taint | None) -> Taint | None:
    """One element of an iterated traced value: a row of an array, an item of a container."""
    if taint is None:
        return None
    return dataclasses.replace(taint, container=False)


def _flatten(structure) -> list:
    if isinstance(structure, tuple):
        return [v for part in structure for v in _flatten(part)]
    return [structure]


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


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


def _declared_global(body: cst.BaseSuite) -> frozenset[str]:
    """The names a module-level class body declares `global` (its own statements: `global GL` then
    `GL = ...` binds the module's `GL`)."""
    names = set()
    for stmt in getattr(body, "body", ()):
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Global):
                names.update(item.name.value for item in small.names)
    return frozenset(names)
