"""The module's own functions and objects: what the analysis learns of each function, and them as values.

``FunctionInfo`` holds what the analysis learned of one ``def`` or lambda (its parameters, its trace
contexts, one ``Variant`` per calling context); ``JitBinding`` the options of one jit application;
``FuncValue`` and ``InstanceValue`` are a function or an object of a class of the module as abstract values,
beside the lattice's (``jitlint.analysis.values``) in the ``Value`` union, with the merge of any two values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.contexts import Context
from jitlint.analysis.index import JitSignature, static_params
from jitlint.analysis.literals import literal_const
from jitlint.analysis.names import Scope, dotted
from jitlint.analysis.values import NOT_NONE, Const, KnownTruth, NotNone, Taint, join, module_const
from jitlint.source.cstwalk import names_spelt

MAX_VARIANTS = 6
JOINED = ("*",)  # the key of the variant that absorbs contexts beyond MAX_VARIANTS


@dataclass
class Variant:
    """One calling context of a traced function: its parameters' values and what it returns there."""

    key: tuple
    params: dict[str, Value]
    return_taint: Taint | None = None
    returns_known: bool = False  # set once the body was walked with these parameters
    # Every path of the body raises in this context (`if isinstance(x, jax.core.Tracer): raise ...` first):
    # a call of it does not return, so what follows the call is not run there.
    never_returns: bool = False
    # Every `return` of the body gives a value known not to be None (`n + 1`, `int(c)`, a non-None
    # constant) and no path falls off its end: a call of it is not None there (`if p is None: p = pick(n)`).
    returns_not_none: bool = False
    # What every `return` gives alike that the context decides: a constant or a decided flag (`KnownTruth`),
    # or for returned tuple displays a tuple of those per position (None where they differ or are unknown):
    # `arrays, is_scalar = canonicalize(values)` gets the flag the helper computed here.
    return_static: object = None
    # What the branch the function was traced from decided of its closure's names (`lax.while_loop(cond,
    # body, init)` in the `else` of `if verbose:`: `verbose` is falsy in `body` there; not None past `if
    # nbrs is None: return`), and the array module a caller chose (`xp`), by name.
    closure: dict[str, KnownTruth | NotNone | Const] = field(default_factory=dict)
    # Staged like jit (jnp on constants gives tracers here), or traced only by vmap / grad without a jit
    # around it (jnp on constants stays concrete): part of the context, since one function may be both.
    traces_constants: bool = False


def variant_key(params: list[str], values: dict[str, Value]) -> tuple:
    """What tells two contexts apart: each parameter's kind (a constant's value; a taint's flags, not the
    name it came from)."""
    key = []
    for name in params:
        v = values.get(name)
        if isinstance(v, Taint):
            key.append((v.level, v.is_array, v.is_bool, v.container, v.opaque, v.filtered, v.from_constant,
                        v.class_name, v.mapping))
        elif isinstance(v, Const):
            key.append(("const", type(v.value).__name__, v.value))
        elif isinstance(v, NotNone):
            key.append("not-none")
        elif isinstance(v, KnownTruth):
            key.append(("truth", v.truth))
        else:
            key.append(None)
    return tuple(key)


@dataclass(frozen=True)
class TraceEdge:
    """How one function comes to be traced: a step of a finding's witness.

    kind: "entry" -- a transform or control-flow call traces it (`@jax.jit`, `jax.vmap(f)`, `lax.scan`
    body); "call" -- traced code (`caller`) calls it; "defined" -- it is defined inside traced `caller`;
    "foreign" -- traced code in another module calls it (`foreign`, whose steps are the witness there).
    node: where (the decorated def, the transform's or control-flow call, the call, the nested def)."""

    kind: str
    node: cst.CSTNode
    how: str  # the transform's or control-flow call's name as messages write it (`@jax.jit`, `lax.scan`)
    caller: "FunctionInfo | None" = None
    foreign: object = None  # "foreign": the call from another module's traced code (foreign.ForeignCall)
    # "call": the innermost test around the call that the walk could not decide (`if self.model.is_precessing:`
    # with an object's attribute): the callee is traced there only on the branch the test takes
    guard: cst.BaseExpression | None = None
    # The calling context of `caller` that made this step (its `Variant.key`; None from eager code), and the
    # context of the callee it reaches: a witness chains steps whose contexts meet (witness.traced_path).
    caller_variant: tuple | None = None
    variant: tuple | None = None


@dataclass
class JitBinding:
    """A name bound to a jitted callable: `@jax.jit def f`, or `g = jax.jit(f, ...)`."""

    name: str
    transform: str
    target: FunctionInfo | None
    static_argnums: tuple[int, ...] | None  # None: unknown (not literal)
    static_argnames: tuple[str, ...] | None
    node: cst.CSTNode  # the decorator or the call
    bound: frozenset[str] = frozenset()  # parameters bound by functools.partial before jit
    bound_self: bool = False  # a bound method: static_argnums count from the parameter after `self`

    def free_positional(self) -> list[str]:
        """The positional parameters callers pass (what static_argnums index)."""
        assert self.target is not None
        return self.target.free_positional(self.bound, self.bound_self)

    def static_params(self) -> set[str] | None:
        if self.target is None or self.static_argnums is None or self.static_argnames is None:
            return None
        return self.target.static_param_names(self.static_argnums, self.static_argnames, self.bound,
                                              self.bound_self) | set(self.bound)

    def signature(self, path: str, info: FunctionInfo | None = None) -> JitSignature:
        """This jitted callable as its callers see it: the same JitSignature the project index builds
        for the jitted functions of other files, so rules read one type whatever file defines it."""
        info = info or self.target
        return JitSignature.build(info.qualname, self.transform, info.positional, info.kwonly,
                                  info.vararg is not None, info.kwarg is not None, self.static_params(), path)


class FunctionInfo:
    """A function definition (or lambda) and what the analysis learned about it."""

    def __init__(self, node: cst.FunctionDef | cst.Lambda, name: str, qualname: str,
                 parent: FunctionInfo | None, class_name: str | None, scope: Scope):
        self.node = node
        self.name = name
        self.qualname = qualname
        self.parent = parent
        self.class_name = class_name
        self.scope = scope
        params = node.params
        self.positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        self.posonly = [p.name.value for p in params.posonly_params]
        self.kwonly = [p.name.value for p in params.kwonly_params]
        self.vararg = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        self.kwarg = params.star_kwarg.name.value if params.star_kwarg is not None else None
        all_params = (*params.posonly_params, *params.params, *params.kwonly_params)
        self.defaults = {p.name.value for p in all_params if p.default is not None}
        # `training=False`, `eps=1e-6`: when a caller passes such a parameter it gets a traced scalar.
        self.scalar_defaults = {p.name.value for p in all_params if _is_scalar_literal(p.default)}
        self.annotations = {p.name.value: p.annotation for p in all_params if p.annotation is not None}
        self.local_defs: dict[str, FunctionInfo] = {}
        self.is_method = class_name is not None and isinstance(node, cst.FunctionDef) and not _is_static_method(node)
        # @property, @functools.cached_property, @x.setter ...: attribute access calls it.
        self.is_property = isinstance(node, cst.FunctionDef) and any(
            (dotted(d.decorator) or "").endswith(("property", ".setter", ".getter")) for d in node.decorators)
        # analysis state
        self.contexts: list[Context] = []
        # One summary per distinct calling context (which parameters are traced, and how; which are
        # known constants), keyed by `variant_key`; beyond MAX_VARIANTS, further contexts share one joined.
        self.variants: dict[tuple, Variant] = {}
        self.own_returns: list[cst.Return] | None = None  # runs.own_returns, computed on first use
        self._names_read: frozenset[str] | None = None
        # Local classes of the objects callers pass to parameters of this (jitted) function.
        self.param_classes: dict[str, str | None] = {}
        # Parameters (of a jitted function) every caller in the module passes a Python number or bool to
        # (True: a traced scalar inside), or something else somewhere (False).
        self.param_scalars: dict[str, bool] = {}
        # ... a Python string to (True), or something else somewhere (False).
        self.param_strings: dict[str, bool] = {}
        # Functions/objects eager callers pass (None where they disagree), for the eager walk.
        self.eager_values: dict[str, Value] = {}
        self._default_exprs = {p.name.value: p.default for p in all_params if p.default is not None}
        self.closure: dict[str, Value] = {}
        # The undecided `is None` tests of the enclosing body's last walk that bound names differently per
        # branch (Frame.tests_seen entries): behind the same test here, a name it reads from there holds
        # that branch's value (Guards.none_branch).
        self.outer_none_tests: dict[frozenset[str], list] = {}
        self.traced = False
        self.traces_constants = False
        self.callback = False  # target of a host callback: runs on concrete values
        self.eager_done = False
        self.passed_params: set[str] = set()  # defaulted params some caller passes explicitly
        # ... and those a call that reaches a trace passes (a jitted or transformed call, not an eager call
        # of the def by its own name): only these are surely traced when passed
        self.trace_passed_params: set[str] = set()
        self.assignments: dict[str, list[cst.BaseExpression]] = {}  # local name -> assigned expressions
        self.unpacked: set[str] = set()  # local names also bound to a part of an unpacked value (`a, b = f()`)
        self.def_loop: cst.CSTNode | None = None  # the loop (in the enclosing function) around this def
        self.jit_binding: JitBinding | None = None  # set when a jit decorator wraps this def
        # Its jit decorator leaves a plain class's `self` traced: every call raises TypeError before JAX
        # looks at the other arguments (hicosmo's jitted methods, fresh set BG).
        self.calls_refused = False

    @property
    def names_read(self) -> frozenset[str]:
        """Every name its code spells (its own and nested bodies): what it may read from enclosing code."""
        if self._names_read is None:
            self._names_read = names_spelt(self.node)
        return self._names_read

    def default_expr(self, name: str) -> cst.BaseExpression | None:
        """The default written for parameter `name`, if any."""
        return self._default_exprs.get(name)

    def default_const(self, name: str) -> Const | None:
        """The default of parameter `name` when it is a literal Python constant or an array module
        (`xp=jnp`)."""
        expr = self._default_exprs.get(name)
        const = literal_const(expr)
        if const is None and isinstance(expr, (cst.Name, cst.Attribute)):
            return module_const(self.scope.qualify(expr))
        return const

    @property
    def params(self) -> list[str]:
        names = [*self.positional, *self.kwonly]
        if self.vararg:
            names.append(self.vararg)
        if self.kwarg:
            names.append(self.kwarg)
        return names

    def free_positional(self, bound: frozenset[str] = frozenset(), bound_self: bool = False) -> list[str]:
        """The positional parameters a caller passes: less those a partial binds, and `self` (`cls`) where it
        is reached through an object (`bound_self`) and is a method (a `@staticmethod` has no `self` to bind:
        `jax.jit(self.adapter, static_argnums=[2])` of a three-parameter one is valid, jax_act, fresh set BO)."""
        free = [p for p in self.positional if p not in bound]
        return free[1:] if bound_self and self.is_method and free else free

    def static_param_names(self, argnums: tuple[int, ...], argnames: tuple[str, ...],
                           bound: frozenset[str] = frozenset(), bound_self: bool = False) -> set[str]:
        return static_params(self.free_positional(bound, bound_self), argnums, argnames)

    def invalid_static_options(self, argnums: tuple[int, ...], argnames: tuple[str, ...],
                               bound: frozenset[str] = frozenset(),
                               bound_self: bool = False) -> tuple[list[int], list[str]]:
        """The `static_argnums` past its positional parameters and the `static_argnames` it does not take
        (positional-only parameters cannot be passed by name): `jax.jit` raises ValueError for either.
        `*args` / `**kwargs` accept any."""
        n = len(self.free_positional(bound, bound_self))
        nums = [i for i in argnums if not -n <= i < n] if self.vararg is None else []
        names = [name for name in argnames if name not in self.params or name in self.posonly] \
            if self.kwarg is None else []
        return nums, names

    def __repr__(self) -> str:
        return f"<FunctionInfo {self.qualname}>"


def _is_scalar_literal(expr: cst.BaseExpression | None) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float)) or (
        isinstance(expr, cst.Name) and expr.value in ("True", "False"))


def _is_static_method(node: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in node.decorators)


@dataclass
class FuncValue:
    """A Python callable bound to a name: a local def/lambda, maybe partial-bound or transformed."""

    info: FunctionInfo
    bound: frozenset[str] = frozenset()  # parameters bound by functools.partial (static)
    bound_self: bool = False
    transform: str | None = None  # qualified name of the jit-like wrapper, when wrapped
    partial: bool = False  # a functools.partial object (a new object each time it is built)
    binding: JitBinding | None = None  # the jit options, when `transform` is set
    consts: tuple[tuple[str, "Const | NotNone"], ...] = ()  # partial-bound literals (or not-None), by parameter
    skip_args: int = 0  # leading call arguments the function does not see (`model.apply(variables, x)`)
    # Wrapped by a derivative (`jax.grad(f)`): what calling it returns instead of what `f` does
    # (Transform.result: "like_argument", "value_and_argument").
    derivative: str | None = None


@dataclass
class InstanceValue:
    """An instance of a class defined in this module."""

    class_name: str


Value = Union[Taint, Const, NotNone, KnownTruth, FuncValue, InstanceValue, None]


def value_taint(value: Value) -> Taint | None:
    return value if isinstance(value, Taint) else None


def merge_values(old: Value, new: Value) -> Value:
    if old is new:  # (most names hold what they held on the other path)
        return old
    if isinstance(old, Taint) or isinstance(new, Taint):
        return join(value_taint(old), value_taint(new))
    if isinstance(old, KnownTruth) or isinstance(new, KnownTruth):
        return old if old == new else None  # (truthy on one path, falsy on the other: unknown)
    if isinstance(old, NotNone) or isinstance(new, NotNone):
        # Known not None on both paths (a non-None constant, a function or object is not None): still so.
        other = new if isinstance(old, NotNone) else old
        known = isinstance(other, (NotNone, FuncValue, InstanceValue)) or \
            isinstance(other, Const) and other.value is not None
        return NOT_NONE if known else None
    if isinstance(old, Const) and isinstance(new, Const):
        if old == new:
            return old
        # two different constants: static, value unknown (not None when neither is)
        return NOT_NONE if old.value is not None and new.value is not None else None
    if isinstance(old, Const) or isinstance(new, Const):
        return None if (old is None or new is None) else (new if not isinstance(new, Const) else old)
    return new if new is not None else old


def merge_env(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    out = dict(a)
    for name, value in b.items():
        out[name] = merge_values(a.get(name), value) if name in a else value
    return out


def bool_array_annotation(annotation: cst.Annotation | None) -> bool:
    """`Bool[Array, "b"]` (jaxtyping): the parameter is declared a boolean array, a mask."""
    ann = annotation.annotation if annotation is not None else None
    if not isinstance(ann, cst.Subscript) or not isinstance(ann.value, (cst.Name, cst.Attribute)):
        return False
    return (dotted(ann.value) or "").split(".")[-1] in jaxapi.BOOL_ARRAY_ANNOTATIONS


def annotation_kind(annotation: cst.Annotation | None) -> str | None:
    """"array" / "scalar" / "static" / "mapping" / None (unknown) from a parameter annotation."""
    if annotation is None:
        return None
    ann = annotation.annotation
    if isinstance(ann, cst.Subscript):
        ann = ann.value
    name = dotted(ann) if isinstance(ann, (cst.Name, cst.Attribute)) else None
    if name is None:
        return None
    last = name.split(".")[-1]
    if last in jaxapi.ARRAY_ANNOTATIONS:
        return "array"
    if last in jaxapi.SCALAR_ANNOTATIONS:
        return "scalar"
    if last in jaxapi.STATIC_ANNOTATIONS:
        return "static"
    if last in jaxapi.MAPPING_ANNOTATIONS:
        return "mapping"
    return None
