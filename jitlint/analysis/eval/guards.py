"""Guards: tests decided by Python constants (the branch that cannot run is not traced code), and
`isinstance` tests that prove a name is not a tracer in one branch."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis import jaxapi, runs
from jitlint.analysis.eval.frame import Frame, none_test_of
from jitlint.analysis.literals import literal_const
from jitlint.analysis.objects import FuncValue, Value
from jitlint.analysis.values import TRACED, Const, KnownTruth, ModuleRef, NotNone, Taint
from jitlint.source.cstwalk import children, descendants

_TYPE_CHECKING = ("typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING")
# Whether jit is disabled (`jax.config.read("jax_disable_jit")` raises AttributeError: measured, JAX 0.10.2).
_DISABLE_JIT_FLAG = "jax.config.jax_disable_jit"
_TRACER_ONLY = ("jax.core.Tracer", "jax.Tracer")  # (every tracer is a jax.Array, but not every jax.Array a tracer)
_ENVIRONMENT = ("os.environ", "os.getenv", "os.environ.get")
_SWITCH_NODES = frozenset({cst.Comparison, cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Call,
                           cst.UnaryOperation})


def switch_key(test: cst.BaseExpression) -> str:
    """The key of an environment test in a traced body's closure (Guards.switch_atoms): its structure, the
    same wherever the test is written (no name holds spaces or quotes, so it is no variable's name)."""
    return "?" + repr([(n.__class__.__name__, n.value if isinstance(getattr(n, "value", None), str) else None)
                       for n in descendants(test)])


class Guards(Frame):
    """Static truth values and isinstance narrowing."""

    def _reads_disable_jit(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, (cst.Name, cst.Attribute)) and self.qualify_call_target(expr) == _DISABLE_JIT_FLAG

    def static_truth(self, expr: cst.BaseExpression) -> bool | None:
        """The truth value of a test decided by Python constants, or None when it depends on the run."""
        if self.variant is not None and self.variant.closure and self._reads_environment_only(expr):
            known = self.variant.closure.get(switch_key(expr))
            if isinstance(known, KnownTruth):
                return known.truth  # decided where this body was traced from (`else` of the same switch)
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
        if isinstance(expr, (cst.Name, cst.Attribute)) and self.qualify_call_target(expr) in _TYPE_CHECKING:
            return False
        if self.traced and self.level >= TRACED and self._reads_disable_jit(expr):
            # code jit or a lax body stages runs with jit enabled: `if jax.config.jax_disable_jit:` holds
            # eager-only checks (ssm-jax's NaN asserts in `laplace_em`, fresh set BU)
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
        if isinstance(expr, cst.Call) and self.traced:
            # a module function that gives one truth on every return in this context (`_movable(x)`, whose
            # `if isinstance(x, jax.core.Tracer): return False` decides it for a tracer): that truth
            known = self.facts.call_statics.get((id(expr), self.variant_key))
            if isinstance(known, KnownTruth):
                return known.truth
            if isinstance(known, Const) and isinstance(known.value, bool):
                return known.value
        if isinstance(expr, cst.Comparison) and self.traced:
            expr = self._exact_type_test(expr) or expr  # `type(a) is np.ndarray`: as `isinstance` says of tracers
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            return self._static_comparison(expr)
        if isinstance(expr, cst.Call) and self.traced:
            subject = self._imported_tracer_test(expr)
            if subject is not None and self._is_traced_array(subject):
                return True  # `is_tracer(x)` of another module's `return isinstance(v, jax.core.Tracer)`
            test = self._type_predicate(expr)
            subject = self.static_value(test.args[0].value) if isinstance(test, cst.Call) and test.args else None
            if isinstance(subject, Taint) and not subject.opaque and len(test.args) == 2 and \
                    self.qualify_call_target(test.func) == "isinstance":
                names = [self._type_name(t) for t in _types_of(test.args[1].value)]
                if subject.is_array and not subject.container:
                    if any(n in jaxapi.TRACER_TYPES for n in names):
                        return True  # a traced array is a jax.Array, and a Tracer (measured on JAX 0.10.2)
                    if names and all(n in jaxapi.NON_TRACER_TYPES for n in names):
                        return False  # nor is it a NumPy array, a Python number or a container
                elif names and all(n in jaxapi.NON_TRACER_TYPES and n not in _CONTAINER_TYPES for n in names):
                    return False  # what holds tracers is no NumPy array or Python scalar (a pytree may be a list)
        if self.traced and isinstance(expr, cst.Call) and self.qualify_call_target(expr.func) == "all" and \
                self._some_item_no_instance(expr):
            return False
        if self.traced and isinstance(expr, cst.Call) and expr.args and not expr.args[0].star and \
                self.qualify_call_target(expr.func) in jaxapi.CONCRETENESS_TESTS:
            # `if not jax.core.is_concrete(m): raise ValueError(...)` (jax-fli's healpy spectra, fresh set BL):
            # a tracer without a concrete value is not concrete; one of plain grad is
            subject = self.static_value(expr.args[0].value)
            if isinstance(subject, Taint) and not subject.container and not subject.opaque:
                return subject.level < TRACED
        if self.traced and self._any_traced(self._tracer_test_subjects(expr)):
            return True
        if self.traced and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and \
                self._tests_its_parameters(expr.func.value) is False and \
                self._any_traced([arg.value for arg in expr.args if not arg.star]):
            return False  # `_is_concrete(x)` of `return not isinstance(x, jax.core.Tracer)` (jaxnu, fresh set AN)
        value = self.static_value(expr)
        if isinstance(value, Const):
            return bool(value.value)
        if isinstance(value, KnownTruth):
            return value.truth
        if isinstance(value, FuncValue):
            return True
        return None

    def _some_item_no_instance(self, call: cst.Call) -> bool:
        """`all([isinstance(t, (int, float)) for t in values])` where `values` holds a traced array: that
        item is no instance of a type no tracer is (levy-stable-jax's `is_scalar` of its arguments, fresh
        set AY: under jit the `.item()` it guards never runs)."""
        if len(call.args) != 1 or call.args[0].star or call.args[0].keyword is not None:
            return False
        comp = call.args[0].value
        if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or comp.for_in.inner_for_in is not None or \
                comp.for_in.ifs or not isinstance(comp.for_in.target, cst.Name):
            return False
        test = comp.elt
        if not (isinstance(test, cst.Call) and self.qualify_call_target(test.func) == "isinstance" and
                len(test.args) == 2 and isinstance(test.args[0].value, cst.Name) and
                test.args[0].value.value == comp.for_in.target.value):
            return False
        names = [self._type_name(t) for t in _types_of(test.args[1].value)]
        if not names or not all(n in jaxapi.NON_TRACER_TYPES for n in names):
            return False
        holds_tracers_only = not any(n in _CONTAINER_TYPES for n in names)  # (a pytree of tracers may be a list)
        items = comp.for_in.iter
        if isinstance(items, (cst.List, cst.Tuple)):
            parts = [self.static_value(el.value) for el in items.elements if not isinstance(el, cst.StarredElement)]
        else:
            held = self.static_value(items)
            if not (isinstance(held, Taint) and held.container and not held.mapping and not held.opaque):
                return False
            if held.elements is None:
                # some item is a tracer or holds one (the contexts of several callers joined): no Python number
                return holds_tracers_only
            parts = list(held.elements)
        return any(isinstance(v, Taint) and not v.opaque and (v.is_array and not v.container or holds_tracers_only)
                   for v in parts)

    def reads_traced_shape(self, test: cst.BaseExpression) -> bool:
        """Whether a test reads the shape of a traced array (`x.ndim`, `x.shape[0]`, `x.size`, `len(x)`)."""
        stack = [test]
        while stack:
            node = stack.pop()
            base = None
            if isinstance(node, cst.Attribute) and node.attr.value in ("ndim", "shape", "size"):
                base = node.value
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and \
                    len(node.args) == 1:
                base = node.args[0].value
            if isinstance(base, cst.Name):
                # (a traced value of unknown kind whose shape is read is an array)
                value = self.lookup(base.value)
                if isinstance(value, Taint) and (value.is_array or value.opaque) and not value.container:
                    return True
            stack.extend(children(node))
        return False

    def tests_type(self, test: cst.BaseExpression) -> bool:
        """Whether a test dispatches on the type of a parameter (`isinstance(sig, np.ndarray)`, and `grid is
        None`: NoneType or another): when it stays undecided, which branch runs depends on what callers pass
        (an eager caller's NumPy array, a traced caller's tracer; a caller that fills an optional parameter
        or leaves it out). A module constant's type is not the callers' to choose."""
        params = set(self.info.params) if self.info is not None else set()
        return any(isinstance(node, cst.Call) and self.qualify_call_target(node.func) == "isinstance" and
                   node.args and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value in params
                   or none_test_of(node) in params
                   for node in descendants(test))

    def tests_flag(self, test: cst.BaseExpression) -> bool:
        """Whether a test is the truth of a Python flag the callers choose and this context does not decide:
        a parameter (`if return_pair_chains_iptm:`), or a name bound once to a test of a parameter's type
        (`steering_on = steering_args is not None and steering_args["fk"]`, which stands for that test).
        Which branch runs is the callers' to choose: FoldJAX's confidence head keeps an eager-only branch
        behind such a flag that its jitted callers turn off (fresh set BF). A flag computed from what a
        parameter holds (`"nodal imposition" in settings["structure"]`) is a configuration of the traced
        code itself, not a type: a claim under it stands (autopdex, fresh set N; jax-bandflux, AQ)."""
        narrowed = self.truth_narrowing(test)
        info = self.info
        if narrowed is None or info is None:
            return False
        name = narrowed[0]
        if name in info.params:
            return name not in info.assignments
        sources = info.assignments.get(name, [])
        return len(sources) == 1 and isinstance(sources[0], cst.BaseExpression) and self.tests_type(sources[0])

    def _exact_type_test(self, test: cst.Comparison) -> cst.Call | None:
        """`type(x) is T` / `type(x) == T` with T a type no tracer is an instance of, as `isinstance(x, T)`:
        what that says of tracers holds of it too (False for one; in its body `x` is none). jaxgsa's
        `to_device`, fresh set AT: `np.asarray` behind `type(a) is np.ndarray` never sees a tracer."""
        if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, (cst.Is, cst.Equal)):
            return None
        left = test.left
        if not (isinstance(left, cst.Call) and self.qualify_call_target(left.func) == "type" and
                len(left.args) == 1 and left.args[0].keyword is None and not left.args[0].star):
            return None
        target = test.comparisons[0].comparator
        if not self._never_a_tracer(self._type_name(target)):
            return None
        return cst.Call(cst.Name("isinstance"), [cst.Arg(left.args[0].value), cst.Arg(target)])

    def truth_narrowing(self, test: cst.BaseExpression) -> tuple[str, bool] | None:
        """`if verbose:` / `if not verbose:` on a static name whose value is unknown: the name, and its truth
        in the body (the opposite in the `else`). A tracer's truth is not narrowed: testing it raises."""
        positive = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, positive = test.expression, not positive
        if not isinstance(test, cst.Name) or test.value in ("True", "False", "None"):
            return None
        value = self.lookup(test.value)
        return (test.value, positive) if value is None or isinstance(value, NotNone) else None

    def _static_comparison(self, expr: cst.Comparison) -> bool | None:
        """`x is None`, `x is not None`, `a == b` of one comparison, when constants decide it."""
        op = expr.comparisons[0].operator
        left, right = self.static_value(expr.left), self.static_value(expr.comparisons[0].comparator)
        if isinstance(op, (cst.Is, cst.IsNot)):
            if isinstance(left, Const) and isinstance(right, Const):
                if isinstance(left.value, ModuleRef) and isinstance(right.value, ModuleRef):
                    same = left.value == right.value  # `xp is np` with `xp=jnp`: a different module
                    return same if isinstance(op, cst.Is) else not same
                if left.value is not None and right.value is not None:
                    return None  # `is` between other constants is an implementation detail
                same = left.value is right.value
            elif Const(None) in (left, right):
                other = right if left == Const(None) else left
                # A function, a known non-None constant, something holding tracers (None holds none; a value
                # from unknown code, `opaque`, may be None): never None.
                known = isinstance(other, (FuncValue, NotNone)) or isinstance(other, Taint) and \
                    (other.is_array or not other.opaque) or isinstance(other, Const)
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

    def none_branch(self, test: cst.BaseExpression):
        """For a test of whether `n` is None, an earlier undecided one of the same `n` (in this walk, or in
        the body this function is defined in) whose branches bound names differently: (that test's
        branches and merged bindings, the branch this test's truth takes), else None. Behind `factor is not
        None`, `s` bound as `s = factor` there (a traced value in the other branch) is that Python value
        (tractor_jax's renderers, fresh set BK)."""
        name = none_test_of(test)
        if name is None:
            return None
        is_not = isinstance(test.comparisons[0].operator, cst.IsNot)
        for seen, reads, branches, merged in reversed(self.tests_seen.get(frozenset((name, "None")), ())):
            if none_test_of(seen) == name and self.env.get(name) == reads.get(name):
                return (branches, merged), 0 if isinstance(seen.comparisons[0].operator, cst.IsNot) == is_not else 1
        return None

    def as_before(self, earlier, branch: int) -> dict[str, tuple]:
        """In a branch of a test seen before: the names that branch bound then, where not bound since (a
        name only read from the enclosing body is as that body bound it). What it replaced, by name: (the
        value,) or () where the name was not bound here."""
        branches, merged = earlier
        own = self.info.assignments if self.info is not None else {}
        replaced = {}
        for name, value in branches[branch].items():
            if name in self.env:
                if self.env[name] == merged[name]:
                    replaced[name] = (self.env[name],)
                    self.env[name] = value
            elif name not in own and self.info is not None and self.info.outer_none_tests:
                replaced[name] = ()
                self.env[name] = value
        return replaced

    def none_narrowing(self, test: cst.BaseExpression) -> tuple[list[str], list[str]]:
        """Names a test proves are not None: `x` in the else branch of `if x is None` (and in the body of
        `if x is not None`), for a static name whose value is not otherwise known. Also through a flag bound
        once to such a test (`diff_mode = grid is not None` ... `if diff_mode:`; clm-ml-jax's diff mode, fresh
        set AT: the traced scan is built in that branch, where `grid` is set)."""
        flag, negated = _without_not(test)
        if isinstance(flag, cst.Name):
            sources = (self.info.assignments if self.info is not None else self.facts.module_assignments).get(
                flag.value, [])
            if len(sources) == 1 and isinstance(sources[0], cst.Comparison) and none_test_of(sources[0]) and \
                    not (self.info is not None and none_test_of(sources[0]) in self.info.assignments):
                body, orelse = self.none_narrowing(sources[0])
                return (orelse, body) if negated else (body, orelse)
            return [], []
        name = none_test_of(test)
        if name is None:
            return [], []
        if self.lookup(name) is not None:
            return [], []  # a tracer, a constant, a function: the value itself already says it
        names = [name, *self._aliases(name, test)]
        return (names, []) if isinstance(test.comparisons[0].operator, cst.IsNot) else ([], names)

    def _aliases(self, name: str, test: cst.BaseExpression) -> list[str]:
        """Names bound to the same object at `test`: `nbrs = neighbors` (the assignment of `nbrs` that
        reaches the test, however `nbrs` is rebound after it; the other a parameter or bound once), so
        narrowing one narrows the other."""
        info = self.info
        if info is None:
            return []
        out = []
        sources = info.assignments.get(name, [])
        if len(sources) > 1 and any(isinstance(src, cst.Name) for src in sources):  # (only then an alias)
            reaching = runs.reaching_assignment(info, test, name)
            sources = [reaching] if reaching is not None else sources
        if len(sources) == 1 and isinstance(sources[0], cst.Name):
            other = sources[0].value
            if other in info.params and other not in info.assignments or len(info.assignments.get(other, [])) == 1:
                out.append(other)
        for other, exprs in info.assignments.items():
            if other != name and len(exprs) == 1 and isinstance(exprs[0], cst.Name) and exprs[0].value == name \
                    and (name in info.params and name not in info.assignments or len(sources) == 1):
                out.append(other)
        return out

    def static_value(self, expr: cst.BaseExpression) -> Value:
        """What a name or literal is, without evaluating (recording) anything; `len(x)` of a tuple whose
        positions are known."""
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False", "None"):
                return literal_const(expr)
            value = self.lookup(expr.value)
            return self.module_ref(expr) if value is None else value
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].star and \
                expr.args[0].keyword is None and isinstance(expr.args[0].value, cst.Name) and \
                self.qualify_call_target(expr.func) == "len":
            value = self.lookup(expr.args[0].value.value)
            if isinstance(value, Taint) and value.container and value.elements is not None:
                return Const(len(value.elements))
            if isinstance(value, Const) and isinstance(value.value, (tuple, list, str, dict)):
                return Const(len(value.value))
            return None
        return literal_const(expr)

    def _type_predicate(self, test: cst.BaseExpression) -> cst.BaseExpression:
        """`is_traced(x)` of a module function whose body is `return isinstance(value, jax.core.Tracer)`:
        that `isinstance` test, of `x`; `type(x) is np.ndarray`: `isinstance(x, np.ndarray)` (else the test
        itself)."""
        if isinstance(test, cst.Comparison):
            return self._exact_type_test(test) or test
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and len(test.args) == 1
                and not test.args[0].keyword and not test.args[0].star and isinstance(test.args[0].value, cst.Name)):
            return test
        info = self.facts.module_defs.get(test.func.value)
        call = _sole_return(info)
        if call is None or not info.positional:
            return test
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance"
                and len(call.args) == 2 and isinstance(call.args[0].value, cst.Name)
                and call.args[0].value.value == info.positional[0]):
            return test
        return call.with_changes(args=[call.args[0].with_changes(value=test.args[0].value), call.args[1]])

    def _tracer_test_subjects(self, test: cst.BaseExpression, depth: int = 0) -> list[cst.BaseExpression]:
        """What a test checks for being a tracer: `x` of `isinstance(x, jax.core.Tracer)`, each of `any(
        isinstance(v, Tracer) for v in (x, info))`, the arguments of a module function whose one `return`
        is such a test of its parameters (`_is_traced(*arrays)`), and those of such a test handed to another
        call or joined by `or` (`_skip_on_any_rank(_is_traced(A.data) or ..., comm)`): code written to leave
        traced values alone (jaxamg's eager checks, fresh set AM). [] when it is no such test."""
        if depth > 3:
            return []
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
            return self._tracer_test_subjects(test.left, depth + 1) + self._tracer_test_subjects(test.right, depth + 1)
        if not isinstance(test, cst.Call):
            return []
        q = self.qualify_call_target(test.func)
        positional = [arg.value for arg in test.args if arg.keyword is None and not arg.star]
        if q == "isinstance" and len(test.args) == 2:
            names = [self._type_name(t) for t in _types_of(test.args[1].value)]
            return [test.args[0].value] if any(n in _TRACER_ONLY for n in names) else []
        if q == "any" and len(positional) == 1 and isinstance(positional[0], cst.GeneratorExp):
            gen = positional[0]
            target = gen.for_in.target
            if gen.for_in.inner_for_in is None and isinstance(target, cst.Name) and \
                    isinstance(gen.for_in.iter, (cst.Tuple, cst.List)) and \
                    any(isinstance(s, cst.Name) and s.value == target.value
                        for s in self._tracer_test_subjects(gen.elt, depth + 1)):
                return [el.value for el in gen.for_in.iter.elements if isinstance(el, cst.Element)]
            return []
        if isinstance(test.func, cst.Name) and self._tests_its_parameters(test.func.value) is True:
            # (`_is_traced(*arrays)`: the tuple it is handed stands for its items)
            return [arg.value if not arg.star else cst.StarredElement(arg.value) for arg in test.args]
        return [s for arg in positional for s in self._tracer_test_subjects(arg, depth + 1)]

    def _tests_its_parameters(self, name: str) -> bool | None:
        """A module function whose body is one `return` of a tracer test of its parameters: True (`def
        _is_traced(*arrays): return any(isinstance(a, jax.core.Tracer) for a in arrays)`), False for its
        negation (`def _is_concrete(x): return not isinstance(x, jax.core.Tracer)`), else None."""
        info = self.facts.module_defs.get(name)
        value = _sole_return(info)
        if value is None:
            return None
        ret, negated = _without_not(value)
        star = info.node.params.star_arg
        if isinstance(star, cst.Param) and isinstance(ret, cst.Call) and self.qualify_call_target(ret.func) == "any" \
                and ret.args and isinstance(ret.args[0].value, cst.GeneratorExp):
            gen = ret.args[0].value
            if isinstance(gen.for_in.iter, cst.Name) and gen.for_in.iter.value == star.name.value and \
                    self._tracer_test_subjects(gen.elt, 1):
                return not negated
            return None
        subjects = self._tracer_test_subjects(ret, 1)
        if subjects and all(isinstance(s, cst.Name) and s.value in info.params for s in subjects):
            return not negated
        return None

    def _any_traced(self, subjects: list[cst.BaseExpression]) -> bool:
        """Whether one of them holds a tracer here (of unknown kind too: then the test may be True, and the
        code it guards is not claimed to see a tracer)."""
        for subject in subjects:
            starred = isinstance(subject, cst.StarredElement)
            value = self.static_value(subject.value if starred else subject)
            if isinstance(value, Taint) and (starred or not value.container):
                return True
        return False

    def _type_name(self, t: cst.BaseExpression) -> str | None:
        """The qualified name of an isinstance target, through a project module that re-exports a library
        name (`from brainstate._compatible_import import Tracer`: `jax.core.Tracer`; fresh set N)."""
        q = self.qualify_call_target(t)
        if q is None:
            return t.value if isinstance(t, cst.Name) else None
        if "." in q and q not in jaxapi.TRACER_TYPES and q not in jaxapi.NON_TRACER_TYPES and \
                self.facts.imported_kind is not None:
            kind = self.facts.imported_kind(q)
            if kind is not None and kind.startswith("alias "):
                return kind[len("alias "):]
        return q

    def _is_traced_array(self, expr: cst.BaseExpression) -> bool:
        value = self.static_value(expr)
        return isinstance(value, Taint) and value.is_array and not value.container and not value.opaque

    def _never_a_tracer(self, name: str | None) -> bool:
        """An isinstance target no tracer is an instance of: a Python or NumPy type, a class of the module,
        or a class imported from anywhere but JAX that is not an ABC every array satisfies (TRACER_ABCS).
        (An unresolved bare name may be an alias of `jax.Array`: it proves nothing.)"""
        if name is None or name in jaxapi.TRACER_TYPES or name in jaxapi.TRACER_ABCS:
            return False
        if name in jaxapi.NON_TRACER_TYPES or name in self.facts.classes:
            return True
        return "." in name and name.partition(".")[0] not in ("jax", "jaxlib")

    def isinstance_narrowing(self, test: cst.BaseExpression) -> tuple[list[str], list[str]]:
        """Names a test proves are not tracers: in the body of `if isinstance(x, (int, np.ndarray))`, and
        in the else branch of `if isinstance(x, jax.Array)` (every tracer is a jax.Array)."""
        if isinstance(test, cst.BooleanOperation):
            return _combined(test, self.isinstance_narrowing)
        test, negate = _without_not(test)
        subject = self._imported_tracer_test(test) or self._array_attribute_test(test)
        if isinstance(subject, cst.Name) and isinstance(self.lookup(subject.value), Taint):
            return ([subject.value], []) if negate else ([], [subject.value])  # not a tracer where it fails
        test = self._isinstance_of_name(test)
        if test is None:
            return [], []
        return self._split_by_type(test, test.args[0].value.value, negate)

    def switch_atoms(self, test: cst.BaseExpression, negate: bool = False) -> list[tuple[str, bool]]:
        """What `test` holding (failing, `negate`) decides of tests that read only the process environment:
        `'A' in os.environ or 'B' in os.environ` failing fails each. bqskit-qfactor-jax jits its sweep in the
        `else` of `if 'NO_JIT' in os.environ or 'PRINT_LOSS' in os.environ:`, so under that jit its `if
        'PRINT_LOSS' in os.environ:` debug loop never runs (fresh set AV)."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negate = test.expression, not negate
        if isinstance(test, cst.BooleanOperation):
            if isinstance(test.operator, cst.Or) is not negate:
                return []  # `a or b` holding (`a and b` failing) decides neither part
            return self.switch_atoms(test.left, negate) + self.switch_atoms(test.right, negate)
        if self._reads_environment_only(test):
            return [(switch_key(test), not negate)]
        return []

    def _reads_environment_only(self, test: cst.BaseExpression) -> bool:
        """A test of the process environment (`'X' in os.environ`, `os.getenv("X") == "1"`): nothing in it
        but `os.environ`/`os.getenv`, literals and operators."""
        found = False
        stack = [test]
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is cst.Attribute or cls is cst.Name:
                q = self.qualify_call_target(node)
                if q in _ENVIRONMENT:
                    found = True
                    continue
                if cls is cst.Name:
                    if node.value not in ("None", "True", "False"):
                        return False
                    continue
                stack.append(node.value)  # `os.environ.get`: its base
                continue
            if isinstance(node, cst.BaseExpression) and cls not in _SWITCH_NODES:
                return False
            stack.extend(children(node))
        return found

    def _array_attribute_test(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """`x` of `hasattr(x, "shape")` (an attribute every traced array has): where it fails, `x` is no
        traced array (jax-flash-attn2's `get_strides`, taking an array or its shape: fresh set AV)."""
        if not (isinstance(test, cst.Call) and len(test.args) == 2 and not any(a.star or a.keyword for a in test.args)
                and self.qualify_call_target(test.func) == "hasattr"):
            return None
        attr = literal_const(test.args[1].value)
        return test.args[0].value if attr is not None and attr.value in jaxapi.STATIC_ATTRS else None

    def _isinstance_of_name(self, test: cst.BaseExpression) -> cst.Call | None:
        """`isinstance(x, T)` (or a module tracer test standing for one) of a name holding tracers."""
        test = self._type_predicate(test)
        if not (isinstance(test, cst.Call) and self.qualify_call_target(test.func) == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
            return None
        return test if isinstance(self.lookup(test.args[0].value.value), Taint) else None

    def _imported_tracer_test(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """`x` of `is_tracer(x)`, where `is_tracer` is another project module's function whose body is
        `return isinstance(value, jax.core.Tracer)` (ProjectIndex.value_kind); else None."""
        if not (isinstance(test, cst.Call) and len(test.args) == 1 and test.args[0].keyword is None
                and not test.args[0].star and self.facts.imported_kind is not None):
            return None
        q = self.qualify_call_target(test.func)
        if q is None or "." not in q or self.facts.imported_kind(q) != "returns tracer-test":
            return None
        return test.args[0].value

    def array_narrowing(self, test: cst.BaseExpression) -> list[str]:
        """Traced names a test proves are arrays in its body: `isinstance(x, (np.ndarray, jnp.ndarray))`
        holds of a value holding tracers only where it is a traced array (so `isinstance(x, np.ndarray)`
        is then False; autopdex's `reshape_as`, fresh set N)."""
        test = self._isinstance_of_name(test)
        if test is None or self.lookup(test.args[0].value.value).is_array:
            return []
        name = test.args[0].value.value
        names = [self._type_name(t) for t in _types_of(test.args[1].value)]
        if any(n in jaxapi.TRACER_TYPES for n in names) and all(
                n in jaxapi.TRACER_TYPES or n in jaxapi.NON_TRACER_TYPES and n not in _CONTAINER_TYPES
                for n in names):
            return [name]
        return []

    def expression_narrowing(self, test: cst.BaseExpression) -> tuple[list[str], list[str]]:
        """As `isinstance_narrowing`, for an item or attribute (`isinstance(objs[0], dict)`): its source
        text, proved not a tracer in the body or the else branch (trax's `nested_map`, fresh set G)."""
        if isinstance(test, cst.BooleanOperation):
            return _combined(test, self.expression_narrowing)
        test, negate = _without_not(test)
        test = self._type_predicate(test)
        if not (isinstance(test, cst.Call) and len(test.args) == 2 and
                isinstance(test.args[0].value, (cst.Subscript, cst.Attribute)) and
                self.qualify_call_target(test.func) == "isinstance"):
            return [], []
        return self._split_by_type(test, self.facts.module.code_for_node(test.args[0].value), negate)

    def _split_by_type(self, test: cst.Call, name: str, negate: bool) -> tuple[list[str], list[str]]:
        kinds = test.args[1].value
        types = [el.value for el in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        names = [self._type_name(t) for t in types]
        if all(self._never_a_tracer(n) for n in names):
            body, orelse = [name], []
        elif any(n in jaxapi.TRACER_TYPES for n in names):
            body, orelse = [], [name]
        else:
            return [], []
        return (orelse, body) if negate else (body, orelse)


_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "set", "type", "collections.abc.Callable",
                              "typing.Callable"})


def _sole_return(info) -> cst.BaseExpression | None:
    """What a module def returns when its body (past a docstring) is one `return <value>` line."""
    if info is None or not isinstance(info.node, cst.FunctionDef):
        return None
    body = [s for s in info.node.body.body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(
        s.body[0], cst.Expr) and isinstance(s.body[0].value, cst.SimpleString))]  # (docstring)
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or \
            not isinstance(body[0].body[0], cst.Return):
        return None
    return body[0].body[0].value


def _without_not(test: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """`not not t` -> (t, False), `not t` -> (t, True)."""
    negate = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negate, test = not negate, test.expression
    return test, negate


def _combined(test: cst.BooleanOperation, narrowing) -> tuple[list[str], list[str]]:
    """Narrowing by `a or b` / `a and b` from each side's: `isinstance(x, list) or isinstance(x, tuple)`
    proves `x` no tracer where either side does in the body (and, for `and`, where either does)."""
    left_body, left_else = narrowing(test.left)
    right_body, right_else = narrowing(test.right)
    if isinstance(test.operator, cst.Or):
        return [n for n in left_body if n in right_body], list(dict.fromkeys([*left_else, *right_else]))
    return list(dict.fromkeys([*left_body, *right_body])), [n for n in left_else if n in right_else]


def _types_of(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The classes of an isinstance test: `T` or the elements of `(T1, T2)`."""
    if isinstance(expr, cst.Tuple):
        return [el.value for el in expr.elements if isinstance(el, cst.Element)]
    return [expr] if isinstance(expr, (cst.Name, cst.Attribute)) else []
