"""Statements: blocks, assignments, branches, `with`, `try`, `match`, and the defs and classes met on the way
(loops are ``jitlint.analysis.eval.loops``'s)."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.objects import FuncValue, InstanceValue, Value, merge_env
from jitlint.analysis.values import NOT_NONE, Const, KnownTruth, Taint, join
from jitlint.source.cstwalk import names_spelt

# Each statement class's transfer function, looked up once per class rather than by name on every node.
_STMT_METHODS: dict[type, object] = {}
_MISSING = object()
_LOGGER_FACTORIES = ("logging.getLogger", "absl.logging.get_absl_logger", "logging.Logger")


class Statements(Frame):
    """The transfer functions of statements."""

    def block(self, statements) -> None:
        depth = len(self.dispatch_guards)  # (an `if` that leaves guards the rest of its block: stmt_If)
        try:
            for stmt in statements:
                if not self.live:
                    return  # not reached in this context: every path before it left (or raised)
                self.stmt(stmt)
        finally:
            del self.dispatch_guards[depth:]

    def stmt(self, node: cst.CSTNode) -> None:
        cls = node.__class__
        if cls is cst.SimpleStatementLine:
            for small in node.body:
                self.small(small)
            return
        method = _STMT_METHODS.get(cls, _MISSING)
        if method is _MISSING:
            method = _STMT_METHODS[cls] = getattr(type(self), "stmt_" + cls.__name__, None)
        if method is not None:
            live = self.live
            exact = method(self, node)
            if cls is not cst.If and not exact:
                # a loop may run no iteration, a `with` may swallow the exception, a `try` catch it:
                # only an `if` (and a loop over literal items whose body always leaves: stmt_For) is
                # followed exactly
                self.live = live

    def suite(self, suite: cst.BaseSuite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self.block(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self.small(small)

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Expr):
            self.expr(node.value)
        elif isinstance(node, cst.Assign):
            value = self.value(node.value)
            if value is None and self.traced and node.value.__class__ in _TEST_NODES:
                # `is_scalar = isinstance(x, float)`: a Python bool the context decides; `if is_scalar:` is
                # decided by it as the test itself would be
                truth = self.static_truth(node.value)
                if truth is not None:
                    value = KnownTruth(truth)
            if value is None and self.never_none(node.value, None):
                value = NOT_NONE  # (`idx = np.where(mask)[0]`, `n = int(k)`: decides a later `idx is None`)
            statics = self.last_call_statics if node.value.__class__ is cst.Call else None
            for target in node.targets:
                self.assign(target.target, value, node.value)
                if isinstance(statics, tuple):
                    self._assign_statics(target.target, statics)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                value = self.value(node.value)
                if value is None and self.never_none(node.value, None):
                    value = NOT_NONE
                self.assign(node.target, value, node.value)
        elif isinstance(node, cst.AugAssign):
            old = self.expr(node.target)
            new = self.expr(node.value)
            # The statement itself is the source: `k += 1` changes `k` on every loop iteration.
            self.assign(node.target, join(old, new), node)
        elif isinstance(node, cst.Return):
            if node.value is not None:
                returned = self.expr(node.value)
                self.returns.append(returned)
                if self.traced:
                    static = self._returned_static(node.value)
                    self.return_statics.append(static)
                    if returned is None and not isinstance(static, (Const, KnownTruth)):
                        self.returns_unknown_static = True
                if not self.never_none(node.value, returned):
                    self.may_return_none = True
            else:
                self.may_return_none = True
                self.return_statics.append(Const(None))
            self.returned, self.live = True, False
        elif isinstance(node, cst.Assert):
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
            self.record(node)
        elif isinstance(node, cst.Raise):
            if node.exc is not None:
                self.expr(node.exc)
            self.live = False
        elif isinstance(node, cst.Import):
            if self.info is not None:
                self.scope.add_import(node)
        elif isinstance(node, cst.ImportFrom):
            if self.info is not None:
                self.scope.add_import_from(node)
        elif isinstance(node, cst.Del):
            pass

    def _returned_static(self, value: cst.BaseExpression):
        if isinstance(value, cst.Tuple) and not any(isinstance(el, cst.StarredElement) for el in value.elements):
            return tuple(self._returned_static(el.value) for el in value.elements)
        known = self.static_value(value)
        return known if isinstance(known, (Const, KnownTruth)) else None

    def _assign_statics(self, target: cst.BaseExpression, statics: tuple) -> None:
        """`(x_, loc_), is_scalar = canonicalize(...)`: the names whose position the helper's every return
        decides in this context get that value (where no taint says otherwise)."""
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(statics):
            return
        for el, known in zip(target.elements, statics):
            if isinstance(el.value, cst.Name) and isinstance(known, (Const, KnownTruth)) and \
                    not isinstance(self.env.get(el.value.value), Taint):
                self.env[el.value.value] = known

    def stmt_If(self, node: cst.If) -> None:
        truth = self.static_truth(node.test)
        self.expr(node.test)
        if truth is None:
            truth = self.static_truth(node.test)  # (what the calls in the test return, known now)
        self.record(node)
        # A guard decided by Python constants (`if flag:` with a partial-bound False, `if x is None` on a
        # known None, `if TYPE_CHECKING:`): the other branch never runs here, so it is not traced code.
        if truth is True:
            self.suite(node.body)
            return
        if truth is False:
            if node.orelse is not None:
                if isinstance(node.orelse, cst.If):
                    self.stmt_If(node.orelse)
                else:
                    self.suite(node.orelse.body)
            return
        # A test of a traced value's shape, or of a value's type, that the analysis cannot decide (`if j.ndim
        # == 0:`, `if isinstance(sig, np.ndarray):`): which branch runs depends on what is passed, so what
        # either branch claims holds only for some callers.
        tested = None
        if self.traced and self.tests_type(node.test):
            tested = "types"
        elif self.traced and self.reads_traced_shape(node.test):
            tested = "shapes"
        elif self.traced and self.tests_flag(node.test):
            tested = "flags"
        if tested is not None:
            self.dispatch_guards.append((node.test, tested))
        self.open_guards.append(node.test)
        try:
            self._if_branches(node)
        finally:
            self.open_guards.pop()
            if tested is not None:
                self.dispatch_guards.pop()
        if tested is not None and node.orelse is None and runs.ends_in_return(node.body):
            # `if dim_size is not None: return dim_size` then `int(index.max())`: the rest of the block runs
            # only where the test is false, so it sits under the test as an `else` would (jraphx's
            # `_resolve_dim_size`, fresh set BE). Not after a `raise`: that checks the arguments, and the
            # rest is what every valid call runs (jax-bandflux's `if zp is not None and zpsys is None:
            # raise`, fresh set AQ). Popped where the block ends (`block`).
            self.dispatch_guards.append((node.test, tested))

    def _if_branches(self, node: cst.If) -> None:
        test_names = names_spelt(node.test)  # (the key of `tests_seen`)
        earlier, flip, body_only = self._same_test(node.test, test_names), 0, False
        if earlier is None:
            earlier, flip = self.none_branch(node.test) or (None, 0)
        test = node.test
        while earlier is None and isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            # (`if factor is not None and s > 1:`: the body runs where every part holds, the `else` where any fails)
            earlier, flip = self.none_branch(test.left) or self.none_branch(test.right) or (None, 0)
            body_only, test = True, test.left
        before = dict(self.env)
        live = self.live
        static_in_body, static_in_else = self.isinstance_narrowing(node.test)
        not_none_in_body, not_none_in_else = self.none_narrowing(node.test)
        items_in_body, items_in_else = self.expression_narrowing(node.test)
        arrays_in_body = self.array_narrowing(node.test)
        truth = self.truth_narrowing(node.test)
        narrowed = self.narrowed
        for name in static_in_body:
            self.env[name] = None
        for name in arrays_in_body:
            self.env[name] = dataclasses.replace(self.env.get(name) or self.lookup(name), is_array=True,
                                                 container=False, opaque=False, elements=None)
        for name in not_none_in_body:
            self.env[name] = NOT_NONE
        if truth is not None:
            self.env[truth[0]] = KnownTruth(truth[1])
        self.narrowed = narrowed.union(items_in_body) if items_in_body else narrowed
        if earlier is not None:
            self.as_before(earlier, flip)
        switches = self.switch_atoms(node.test)
        depth = len(self.switch_truths)
        self.switch_truths.extend(switches)
        self.none_here.append((not_none_in_else, not_none_in_body))  # (`p is None`: None in the body)
        self.suite(node.body)
        self.none_here.pop()
        del self.switch_truths[depth:]
        after_body, live_after_body = self.env, self.live
        self.env, self.live = dict(before), live
        if earlier is not None and not body_only:
            self.as_before(earlier, 1 - flip)
        for name in static_in_else:
            self.env[name] = None
        for name in not_none_in_else:
            self.env[name] = NOT_NONE
        if truth is not None:
            self.env[truth[0]] = KnownTruth(not truth[1])
        self.narrowed = narrowed.union(items_in_else) if items_in_else else narrowed
        self.switch_truths.extend(self.switch_atoms(node.test, negate=True))
        self.none_here.append((not_none_in_body, not_none_in_else))
        if node.orelse is not None:
            if isinstance(node.orelse, cst.If):
                self.stmt_If(node.orelse)
            else:
                self.suite(node.orelse.body)
        self.none_here.pop()
        del self.switch_truths[depth:]
        self.narrowed = narrowed
        self.live = self.live or live_after_body
        # A branch that always returns or raises (`if x is None: return ...`) does not flow on: what follows
        # sees the other branch only.
        if _leaves(node.body):
            return
        if node.orelse is not None and not isinstance(node.orelse, cst.If) and _leaves(node.orelse.body):
            self.env = after_body
            return
        after_else = self.env
        self.env = merge_env(after_body, after_else)
        changed = {name for name in (*after_body, *after_else)
                   if after_body.get(name) != before.get(name) or after_else.get(name) != before.get(name)}
        if changed:
            self.tests_seen.setdefault(test_names, []).append(
                (node.test, {name: self.env.get(name) for name in test_names},
                 ({n: after_body.get(n) for n in changed}, {n: after_else.get(n) for n in changed}),
                 {n: self.env.get(n) for n in changed}))

    def _same_test(self, test: cst.BaseExpression, test_names: frozenset[str]):
        """An earlier undecided `if` of the same condition, its names holding what they held there (`if
        acclim_type == 0:` binding a Python float, else a traced one; later `if acclim_type == 0:` using it):
        the same branch runs, with what that branch bound (clm-ml-jax's photosynthesis, fresh set AT)."""
        for seen, reads, branches, merged in reversed(self.tests_seen.get(test_names, ())):
            if all(self.env.get(name) == value for name, value in reads.items()) and seen.deep_equals(test):
                return branches, merged
        return None

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
        self.suite(node.body)
        self.eager_depth -= eager
        self.compile_time_eval -= constants

    def stmt_Try(self, node: cst.Try) -> None:
        before = dict(self.env)
        self.suite(node.body)
        merged = merge_env(before, self.env)
        for handler in node.handlers:
            self.env = dict(merged)
            self.suite(handler.body)
            merged = merge_env(merged, self.env)
        self.env = merged
        if node.orelse is not None:
            self.suite(node.orelse.body)
        if node.finalbody is not None:
            self.suite(node.finalbody.body)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, node: cst.Match) -> None:
        self.expr(node.subject)
        before = dict(self.env)
        merged = dict(before)
        for case in node.cases:
            self.env = dict(before)
            self.suite(case.body)
            merged = merge_env(merged, self.env)
        self.env = merged

    def stmt_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.facts.def_infos.get(node)
        if info is None:
            return
        for dec in node.decorators:
            self.expr(dec.decorator)
        info.def_loop = self.loops[-1][0] if self.loops else None
        binding = self.decorated_context(info)
        value: Value = FuncValue(info, transform=binding.transform if binding else None, binding=binding)
        if self.info is None and info.parent is None and info.name in self.facts.overloaded:
            self.env[info.name] = None  # one of several overloads: which one a call runs is not known
        elif self.info is not None or info.class_name is None:
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
                self.scheduler.enqueue(info)

    def stmt_ClassDef(self, node: cst.ClassDef) -> None:
        if self.info is None:
            self.env[node.name.value] = None
        saved_scope = self.scope
        self.scope = self.facts.scope_for(node)
        saved_env, saved_class_body = self.env, self.class_body
        self.env = dict(self.env) if self.info is not None else {}
        self.class_body = _declared_global(node.body) if self.info is None else frozenset()
        self.suite(node.body)
        self.env, self.class_body = saved_env, saved_class_body
        self.scope = saved_scope

    # ------------------------------------------------------------------ assignment
    def assign(self, target: cst.BaseExpression, value: Value, source: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = value
            if self.class_body is not None and target.value not in self.class_body:
                return  # a class attribute: not a name of the module (or function) around the class
            self._note_assignment(target.value, source)
            if self.info is None:
                self._note_module_global(target.value, source, value)
            elif source is not None and self._is_logger_call(source):
                self.facts.loggers.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [el.value for el in target.elements]
            if isinstance(source, (cst.Tuple, cst.List)) and len(source.elements) == len(elements) and not any(
                    isinstance(e, cst.StarredElement) for e in source.elements):
                for tgt, src in zip(elements, source.elements):
                    self.assign(tgt, self.facts.taints.get(src.value), src.value)
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
                    self.slice_element(el)
            else:
                self.expr(target.value)
                owner = self.self_class(target.value)
                if owner is not None and isinstance(value, (FuncValue, InstanceValue)):
                    # `self.step = jax.jit(self._step)`, `self.block = Block(...)`: what the object holds.
                    key = (owner, target.attr.value)
                    old = self.facts.attribute_values.get(key, value)
                    self.facts.attribute_values[key] = value if old == value else None

    def _note_assignment(self, name: str, source: cst.BaseExpression | None) -> None:
        """Remember what a name is assigned (for the static-argument rules), and whether it changes
        from one loop iteration to the next."""
        table = self.info.assignments if self.info is not None else self.facts.module_assignments
        if source is not None:
            exprs = table.setdefault(name, [])
            if source not in exprs:
                exprs.append(source)
        else:  # a part of what it unpacks (`A, B = (jnp.array(x) for x in (A, B))`): no expression says what
            (self.info.unpacked if self.info is not None else self.facts.module_unpacked).add(name)
        if self.loops and not self.binding_loop_target:
            self.note_loop_binding(name, source)

    def _note_module_global(self, name: str, source: cst.BaseExpression | None, value: Value) -> None:
        if source is None:
            return
        if self._is_logger_call(source):
            self.facts.loggers.add(name)
        if isinstance(source, cst.Call):
            q = self.qualify_call_target(source.func)
            if q and q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) and q not in jaxapi.STATIC_FUNCS:
                self.facts.jax_constants.add(name)

    def _is_logger_call(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        q = self.qualify_call_target(expr.func)
        return q in _LOGGER_FACTORIES


def _declared_global(body: cst.BaseSuite) -> frozenset[str]:
    """The names a module-level class body declares `global` (its own statements: `global GL` then
    `GL = ...` binds the module's `GL`)."""
    names = set()
    for stmt in getattr(body, "body", ()):
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Global):
                names.update(item.name.value for item in small.names)
    return frozenset(names)


# (Not `continue`/`break`: what a branch holds there still reaches the loop's next iteration or its end.)
_EXITS = (cst.Return, cst.Raise)
_TEST_NODES = frozenset({cst.Call, cst.Comparison, cst.BooleanOperation, cst.UnaryOperation})


def _leaves(block: cst.BaseSuite) -> bool:
    """Does a branch always leave the function (its last statement returns or raises)?"""
    body = block.body
    if not body:
        return False
    last = body[-1]
    if isinstance(block, cst.SimpleStatementSuite):
        return isinstance(last, _EXITS)
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], _EXITS)
    return False
