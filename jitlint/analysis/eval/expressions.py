"""Expressions: the abstract value of each expression (calls are ``jitlint.analysis.eval.calls``'s), recorded
per node on traced walks; and what iterating a value gives."""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.eval.frame import Frame
from jitlint.analysis.literals import literal_const
from jitlint.analysis.objects import FuncValue, InstanceValue, Value
from jitlint.analysis.values import NOT_NONE, TRACED, Const, NotNone, Taint, add_spread, join, keyed_mapping
from jitlint.source.cstwalk import children

# Node classes tested on every binary operation. (Class tests here and in the other hot paths rather than
# isinstance: libcst's concrete node classes have no subclasses, and isinstance against them goes through
# ABCMeta, several times slower.)
_STRINGS = frozenset({cst.SimpleString, cst.FormattedString, cst.ConcatenatedString})
_BITWISE = frozenset({cst.BitAnd, cst.BitOr, cst.BitXor})

# Each node class's transfer function, looked up once per class rather than by name on every node (the
# walk meets hundreds of thousands of nodes on a large file).
_EXPR_METHODS: dict[type, object] = {}


class Expressions(Frame):
    """The transfer functions of expressions other than calls."""

    def value(self, expr: cst.BaseExpression) -> Value:
        """Like `expr`, but keeps callables and instances (for assignments)."""
        cls = expr.__class__
        if cls is cst.Lambda:
            info = self.facts.lambda_info(expr, self.info, self.scope)
            self.closure_into(info)
            if self.traced:
                self.nested_seen.append(info)
            return FuncValue(info)
        if cls is cst.Name:
            v = self.lookup(expr.value)
            if isinstance(v, (FuncValue, InstanceValue, Const, NotNone)):
                return v
        const = literal_const(expr)
        if const is not None:
            return const
        if cls is cst.Call:
            taint = self.expr(expr)
            produced = self.last_call_value
            if produced is not None:
                return produced
            return taint
        return self.expr(expr)

    def never_none(self, expr: cst.BaseExpression, taint: Taint | None) -> bool:
        """Is the value of `expr`, just evaluated to `taint`, known not to be None? What arithmetic, a
        comparison, a display or a conversion builtin gives; a name or call whose value is known; an
        array or a pytree holding tracers. (A value of unknown code may be None.)"""
        if isinstance(taint, Taint) and (taint.is_array or not taint.opaque):
            return True
        cls = expr.__class__
        if cls in _NEVER_NONE_NODES or cls is cst.UnaryOperation:
            return True
        if cls is cst.Name:
            if expr.value in ("True", "False", "None"):
                return expr.value != "None"
            value = self.lookup(expr.value)
        elif cls is cst.Subscript:
            # an item of what an array function gives (`np.where(mask)[0]`): an array or a number
            return isinstance(expr.value, cst.Call) and _array_function(self.facts.call_names.get(expr.value))
        elif cls is cst.Call:
            q = self.facts.call_names[expr] if expr in self.facts.call_names else self.qualify_call_target(expr.func)
            if q in _NEVER_NONE_CALLS or _array_function(q):
                return True
            kind = self.facts.imported_kind
            if q is not None and "." in q and kind is not None and kind(q) in ("returns scalar", "returns array"):
                return True  # another project file's function whose every return is a number or an array
            value = self.last_call_value  # (set by the call just evaluated, the outermost)
        else:
            return False
        return isinstance(value, (NotNone, FuncValue, InstanceValue)) or isinstance(value, Const) and value.value is not None

    def expr(self, expr: cst.BaseExpression) -> Taint | None:
        cls = expr.__class__
        if self.narrowed and (cls is cst.Subscript or cls is cst.Attribute) and \
                self.facts.module.code_for_node(expr) in self.narrowed:
            return None  # `isinstance(objs[0], dict)` holds here: a Python value
        method = _EXPR_METHODS.get(cls)
        if method is None:
            method = _EXPR_METHODS[cls] = getattr(type(self), "expr_" + cls.__name__, type(self).generic_expr)
        taint = method(self, expr)
        if taint is not None and self.claims:
            taints = self.facts.taints
            old = taints.get(expr)
            if old is None:
                taints[expr] = taint
            elif old is not taint:
                taints[expr] = join(old, taint)
            levels = self.facts.taint_contexts.setdefault(expr, {})
            key = self.variant.key
            if levels.get(key, -1) < taint.level:
                levels[key] = taint.level
        return taint

    def generic_expr(self, expr: cst.CSTNode) -> Taint | None:
        found = []
        for child in children(expr):
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
                    self.record(expr)  # (a format specification: what it formats must be concrete, JIT404)
                    for sub in part.format_spec:
                        if isinstance(sub, cst.FormattedStringExpression):
                            self.expr(sub.expression)
        return None

    def expr_Name(self, expr: cst.Name) -> Taint | None:
        name = expr.value
        value = self.lookup(name)
        if isinstance(value, Taint):
            return value
        if (self.recording and self.staged
                and name in self.facts.jax_constants and name not in self.env and self.scope.lookup(name) is None):
            self.facts.bare_constants.add(expr)
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
            facts = self.facts
            kind = facts.field_kind(base.class_name, attr, base.filtered)
            if kind == "static":
                return None
            if kind == "leaf" or kind == "scalar" and base.flattened:
                return Taint(base.level, base.origin, is_array=True)
            if kind == "scalar":  # built inside the trace: the Python value it was given, or a tracer
                return dataclasses.replace(base, container=False, is_bool=False, is_array=False, opaque=True,
                                           class_name=None)
            if kind == "subtree":
                cls = facts.field_class(base.class_name, attr)  # a local nnx Module held by an nnx Module
                return Taint(base.level, base.origin, container=cls is None, filtered=cls is not None,
                             class_name=cls, flattened=base.flattened)
            if kind == "variable":  # an nnx Variable: array-like; its `.value` is the array, the rest metadata
                return Taint(base.level, base.origin, is_array=True, class_name=facts.field_class(base.class_name, attr))
        if base.filtered and not base.is_array:
            return None  # a field of an equinox/nnx module may be a static Python value
        if attr in ("T", "mT", "real", "imag", "at") and base.is_array:
            return dataclasses.replace(base, container=False, is_array=True, is_bool=base.is_bool and attr == "T")
        # A field of a traced pytree may be an array leaf or a static field (flax struct fields, configs).
        return dataclasses.replace(base, container=False, is_bool=False, is_array=False, opaque=True)

    def expr_Subscript(self, expr: cst.Subscript) -> Taint | None:
        base = self.expr(expr.value)
        index_taints = [self.slice_element(el) for el in expr.slice]
        self.record(expr)
        if base is None:
            return None
        if base.filtered and not base.is_array:
            return None
        if base.opaque:
            return dataclasses.replace(base, container=False, is_bool=False)
        if not base.is_array and any(isinstance(el.slice, cst.Slice) for el in expr.slice):
            return dataclasses.replace(base, elements=None)  # `layers[:-1]`: a slice of a container
        if base.keys is not None and base.mapping and len(expr.slice) == 1 and \
                isinstance(expr.slice[0].slice, cst.Index) and expr.slice[0].slice.value.__class__ is cst.SimpleString:
            key = literal_const(expr.slice[0].slice.value)
            if key is not None and key.value in base.keys:
                return base.elements[base.keys.index(key.value)]  # what the dict display stored there
        position = _literal_index(expr)
        if base.elements is not None and position is not None and -len(base.elements) <= position < len(base.elements):
            return base.elements[position]  # `jax.tree.flatten(x)[0]`: what is known of that position
        # An element of a traced pytree argument (`cfg["lr"]`, `batch[0]`) is a traced leaf: an array.
        return Taint(base.level, base.origin, is_bool=base.is_bool, is_array=True,
                     from_constant=base.from_constant and not any(index_taints))

    def slice_element(self, el: cst.SubscriptElement) -> Taint | None:
        s = el.slice
        if isinstance(s, cst.Index):
            return self.expr(s.value)
        if isinstance(s, cst.Slice):
            parts = [self.expr(p) for p in (s.lower, s.upper, s.step) if p is not None]
            self.record(s)
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
        if op in _SEQUENCE_OPS and not any(t is not None and t.is_array for t in (left, right)) \
                and any(t.container or t.opaque if t is not None else not _numeric_literal(e)
                        for t, e in ((left, expr.left), (right, expr.right))):
            # `static_part + traced_tuple`, `a_tuple + params + more`: `+` and `*` join and repeat Python
            # sequences too, so with no side known to be an array and a sequence, a value of unknown kind or
            # a Python value of unknown kind on one side, the result's kind is unknown as well
            return dataclasses.replace(result, is_bool=False, container=False, is_array=False, opaque=True,
                                       flattened=False)
        return dataclasses.replace(result, is_bool=is_bool, container=False, is_array=True)

    def expr_UnaryOperation(self, expr: cst.UnaryOperation) -> Taint | None:
        inner = self.expr(expr.expression)
        if isinstance(expr.operator, cst.Not):
            self.record(expr)
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
        # `isinstance(v, State) and not v`: the right side runs only where the left holds (`or`: fails),
        # so there `v` is what the test proves, as in an `if` body
        static_if_true, static_if_false = self.isinstance_narrowing(expr.left)
        narrowed = static_if_true if is_and else static_if_false
        saved = {name: self.env[name] for name in narrowed if name in self.env}
        for name in narrowed:
            self.env[name] = None
        # `col.size and int(col.min()) < 0`: the right side runs only for the shapes that pass the left,
        # as in the body of `if col.size:` (a dispatch guard: its claims hold for some inputs only)
        # (`grid is None and jnp.any(...)`: what the callers pass decides it, as a test of a type)
        shape_test = self.traced and (self.reads_traced_shape(expr.left) and "shapes" or
                                      self.tests_type(expr.left) and "types")
        if shape_test:
            self.dispatch_guards.append((expr.left, shape_test))
        # `factor is not None and s > 1`: the right side runs where the left holds (`or`: fails), so what an
        # earlier test of `factor` bound on that branch is what it reads (Guards.none_branch)
        earlier = self.none_branch(expr.left)
        replaced = self.as_before(earlier[0], earlier[1] if is_and else 1 - earlier[1]) if earlier else {}
        try:
            right = self.expr(expr.right)
        finally:
            for name, old in replaced.items():
                if old:
                    self.env[name] = old[0]
                else:
                    self.env.pop(name, None)
            if shape_test:
                self.dispatch_guards.pop()
            for name in narrowed:
                if name in saved:
                    self.env[name] = saved[name]
                else:
                    self.env.pop(name, None)
        # (the test's own truth, too, is taken of the right side only where the left holds)
        if shape_test and is_and:
            self.dispatch_guards.append((expr.left, shape_test))
        try:
            self.record(expr)
        finally:
            if shape_test and is_and:
                self.dispatch_guards.pop()
        return join(left, right)

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
                self.record(expr)
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
        if any(o.__class__ in _STRINGS for o in operands):
            # `quote["side"] == "bid"`: an array compared with a string gives a Python bool (False for `==`,
            # True for `!=`, also on a tracer: measured), and a string is never a tracer (jaxlob's order
            # book, fresh set AG)
            return None
        if not any(t is not None and t.is_array for t in taints) and any(
                isinstance(o, (cst.Tuple, cst.List, cst.Dict, cst.Set)) for o in operands):
            # `pure_args == ()`: a value of unknown kind against a Python container or string is a Python
            # comparison when the value is a container (an empty pytree stays `()` under tracing).
            return dataclasses.replace(result, container=False, opaque=True, flattened=False)
        return dataclasses.replace(result, is_bool=True, is_array=True, container=False)

    def expr_IfExp(self, expr: cst.IfExp) -> Taint | None:
        truth = self.static_truth(expr.test)
        self.expr(expr.test)
        if truth is not None:
            return self.expr(expr.body if truth else expr.orelse)
        self.record(expr)
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
        found, keys = [], []
        for el in expr.elements:
            if isinstance(el, cst.DictElement):
                self.expr(el.key)
                found.append(self.expr(el.value))
                key = literal_const(el.key) if el.key.__class__ is cst.SimpleString else None
                keys.append(key.value if key is not None and isinstance(key.value, str) else None)
            elif isinstance(el, cst.StarredDictElement):
                add_spread(found, keys, self.expr(el.value))
        return keyed_mapping(found, keys)

    def expr_Lambda(self, expr: cst.Lambda) -> None:
        info = self.facts.lambda_info(expr, self.info, self.scope)
        self.closure_into(info)
        if self.traced:
            self.nested_seen.append(info)
        return None

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

    # ------------------------------------------------------------------ iteration
    def iter_element(self, iterable: cst.BaseExpression):
        """The abstract value of one element when iterating over `iterable`: a Value, or a tuple of them
        for `enumerate`/`zip`/`.items()` (one per position of the element)."""
        self.expr(iterable)
        return self._element_structure(iterable)

    def _taint_of(self, expr: cst.BaseExpression) -> Taint | None:
        return self.facts.taints.get(expr) if self.recording else None

    def _element_structure(self, iterable: cst.BaseExpression):
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)) and iterable.elements:
            rows = [el.value for el in iterable.elements if not isinstance(el, cst.StarredElement)]
            if len(rows) == len(iterable.elements) and all(isinstance(r, cst.Tuple) for r in rows):
                widths = {len(r.elements) for r in rows}
                if len(widths) == 1 and not any(isinstance(el, cst.StarredElement) for r in rows for el in r.elements):
                    # `for row, c, h in [(0, a, h[0]), (n - 1, b, h[-1])]`: each position is what is
                    # written there, not the join of the whole list (`row` is a Python int)
                    return tuple(join(*(self._taint_of(r.elements[i].value) for r in rows))
                                 for i in range(widths.pop()))
            consts = [literal_const(r) for r in rows]
            if len(rows) == len(iterable.elements) and all(c is not None and c.value is not None for c in consts):
                return NOT_NONE  # `for order in (8, 6, 4)`: a Python value, never None
        if isinstance(iterable, (cst.Dict, cst.DictComp)) or isinstance(iterable, cst.Name) and self.info is not None \
                and iterable.value == self.info.kwarg:
            return None  # iterating a dict (`**kwargs` is one) gives its keys: Python strings here
        if isinstance(iterable, cst.Call):
            q = self.facts.call_names.get(iterable)
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
                    return _entry(receiver)
                if method == "items":
                    return (None, _entry(receiver))
        iterated = self._taint_of(iterable)
        if isinstance(iterated, Taint) and iterated.mapping:
            return None  # a dict's keys
        return _element(iterated)

    def assign_element(self, target: cst.BaseExpression, element, source: cst.BaseExpression | None) -> None:
        """Bind a loop's (or a comprehension's) target to one element of what it iterates (`iter_element`)."""
        if isinstance(element, tuple):
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(element) and not any(
                    isinstance(el, cst.StarredElement) for el in target.elements):
                for el, part in zip(target.elements, element):
                    self.assign_element(el.value, part, None)
                return
            element = join(*(v for v in _flatten(element) if isinstance(v, Taint)))
        if source is not None:
            self.facts.iteration_sources.add(id(source))
        self.assign(target, element, source)


def _element(taint: Taint | None) -> Taint | None:
    """One element of an iterated traced value: a row of an array, an item of a container."""
    if taint is None:
        return None
    return dataclasses.replace(taint, container=False)


def _entry(mapping: Taint | None) -> Taint | None:
    """One value of a dict: the join of its display's entries where it remembers them (a tuple of tracers and
    Python ints per key keeps the ints static at their position: `for name, (e, npos) in shared.items()`,
    jaxfne's weight sharing, fresh set AW), else an element of it."""
    if isinstance(mapping, Taint) and mapping.mapping and mapping.elements is not None:
        return join(*mapping.elements)
    return _element(mapping)


def _flatten(structure) -> list:
    if isinstance(structure, tuple):
        return [v for part in structure for v in _flatten(part)]
    return [structure]


_SEQUENCE_OPS = (cst.Add, cst.Multiply)  # the operators Python sequences have


def _numeric_literal(expr: cst.BaseExpression) -> bool:
    """`2`, `-1.5`, `1j`: a number, never a sequence."""
    while isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary))


def _literal_index(expr: cst.Subscript) -> int | None:
    """`x[1]`, `x[-1]`: the integer written as the one index, else None."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    value = expr.slice[0].slice.value
    sign = 1
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        sign, value = -1, value.expression
    if isinstance(value, cst.Integer):
        return sign * int(value.evaluated_value)
    return None


# What never evaluates to None: arithmetic, comparisons, displays, literals (`return n + 1`).
_NEVER_NONE_NODES = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                               cst.FormattedString, cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp,
                               cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda, cst.Comparison,
                               cst.BinaryOperation})
# Builtins whose result is never None.
_NEVER_NONE_CALLS = frozenset({"int", "float", "bool", "str", "len", "round", "abs", "tuple", "list", "dict", "set",
                               "frozenset", "sorted", "range", "max", "min", "sum", "divmod", "pow", "repr",
                               "isinstance", "math.floor", "math.ceil", "math.sqrt", "math.prod", "math.log",
                               "math.log2", "math.exp"})
# NumPy and jax.numpy functions that return None (they write into an argument, a file or the settings).
_NONE_ARRAY_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal", "save",
                                   "savez", "savez_compressed", "savetxt", "set_printoptions", "seed", "shuffle",
                                   "info", "show_config"})


def _array_function(q: str | None) -> bool:
    """A NumPy or jax.numpy function (not `np.testing`'s assertions, not one writing in place): what it
    gives is an array, a number or a tuple of arrays, never None."""
    if q is None or not q.startswith(("numpy.", "jax.numpy.")) or ".testing." in q:
        return False
    return q.rsplit(".", 1)[-1] not in _NONE_ARRAY_FUNCTIONS
