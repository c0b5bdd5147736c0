"""The frame of one walk: the body walked (a function in one calling context, or the module), its
environment and the loops around the statement being walked, and where the walk's results go (the
module's facts, and the scheduler of the other walks). Every part of the evaluator shares it."""

from __future__ import annotations

import libcst as cst

from jitlint.analysis.contexts import Context, ContextKind
from jitlint.analysis.model import ModuleFacts
from jitlint.analysis.objects import JOINED, FuncValue, FunctionInfo, Value, Variant, merge_values
from jitlint.analysis.scheduler import Scheduler
from jitlint.analysis.sites import Site
from jitlint.analysis.values import TRACED, Const, KnownTruth, NotNone, Taint, module_const


class Frame:
    """The per-body state of a walk, and the lookups every transfer function makes in it."""

    def __init__(self, facts: ModuleFacts, scheduler: Scheduler, info: FunctionInfo | None,
                 variant: Variant | None = None):
        self.facts = facts
        self.scheduler = scheduler
        self.info = info
        self.variant = variant  # the calling context this walk of a traced function is for
        self.scope = info.scope if info else facts.scope
        self.traced = bool(info and info.traced and not info.callback and variant is not None)
        # A walk of the variant that absorbs contexts past the budget (JOINED) only answers what the
        # function returns: joined values are not a calling context anyone has, so it records no claims.
        self.claims = self.traced and variant is not None and variant.key != JOINED
        # Untraced code inside `with jax.disable_jit()` / `ensure_compile_time_eval()`: transforms and lax
        # loops run their bodies eagerly there.
        self.eager_depth = 0
        # Traced code inside `with jax.ensure_compile_time_eval()`: jnp on constants stays concrete.
        self.compile_time_eval = 0
        # Enclosing loops, innermost last: (loop node, names that change between iterations -> kind).
        self.loops: list[tuple[cst.CSTNode, dict[str, str]]] = []
        self.env: dict[str, Value] = {}
        self.returns: list[Taint | None] = []
        # what each `return` gives that the context decides (a constant, a decided flag; per position of a
        # returned tuple display): Variant.return_static
        self.return_statics: list = []
        # Reachability, for a traced walk: False once every path so far has raised, returned or called a
        # function that never returns in its context (the statements after are not run there); `returned`:
        # a `return` was reached on some path.
        self.live = True
        self.returned = False
        self.may_return_none = False  # a `return` whose value may be None was reached (`returns_not_none`)
        # a `return` of a Python value the context does not decide (not a literal) was reached: beside a
        # traced return, what the call gives may be either (Evaluator.run)
        self.returns_unknown_static = False
        # Items and attributes (their source text) an `isinstance` test proved are not tracers here.
        self.narrowed: frozenset[str] = frozenset()
        # Undecided `if` tests walked, by the names they read, with what each branch bound
        # (Statements._same_test): a later test of the same condition takes the same branch.
        self.tests_seen: dict[frozenset[str], list] = {k: list(v) for k, v in info.outer_none_tests.items()} \
            if info is not None and info.outer_none_tests else {}
        # Undecided tests of a traced value's shape around the statement walked (`if x.ndim == 0:`).
        self.dispatch_guards: list[tuple[cst.BaseExpression, str]] = []  # (test, "shapes" | "types")
        # Every test around the statement walked that the walk could not decide, innermost last: a call
        # under one traces its callee only on the branch the test takes (TraceEdge.guard).
        self.open_guards: list[cst.BaseExpression] = []
        # Per undecided `if` around the statement walked: the names None in the branch walked, and those not
        # None there (CallSite.needs_none, needs_value).
        self.none_here: list[tuple] = []
        # What the branches around the statement walked decided of tests that read only the process
        # environment (`'DEBUG' in os.environ`): (Guards.switch_key, truth), handed to what is traced here.
        self.switch_truths: list[tuple[str, bool]] = []
        self.context: Context | None = info.contexts[0] if info and info.contexts else None
        self.level = max((t.level for t in variant.params.values() if isinstance(t, Taint)),
                         default=TRACED) if variant else TRACED
        self.nested_seen: list[FunctionInfo] = []
        # What the call just evaluated produced besides its taint: a function, an object (`Model(...)`).
        self.last_call_value: Value = None
        self.last_call_statics = None  # Variant.return_static of the local function the last call ran
        self.binding_loop_target = False  # assigning a `for` loop's own target (Loops.stmt_For)
        # walking a class body (its bindings are the class's attributes): the names it declares `global`
        self.class_body: frozenset[str] | None = None
        self.walk_once = False  # in the first pass of a loop nested deeper than FULL_LOOP_DEPTH (Loops)

    @property
    def recording(self) -> bool:
        return self.traced

    def site(self) -> Site:
        assert self.info is not None
        return Site(self.info, self.context or Context(ContextKind.HELPER), self.level, self.scope,
                    bool(self.loops), self.staged,
                    self.dispatch_guards[-1] if self.dispatch_guards else None)

    @property
    def staged(self) -> bool:
        """Whether this walk's context stages jnp on constants (under jit, not only vmap or grad), outside
        `ensure_compile_time_eval`."""
        if self.compile_time_eval or self.info is None:
            return False
        return self.variant.traces_constants if self.variant is not None else self.info.traces_constants

    @property
    def variant_key(self) -> tuple | None:
        """The calling context walked (None: eager code)."""
        return self.variant.key if self.variant is not None else None

    @property
    def open_guard(self) -> cst.BaseExpression | None:
        return self.open_guards[-1] if self.open_guards else None

    def record(self, node: cst.CSTNode) -> None:
        if self.claims:
            old = self.facts.sites.get(node)
            if old is not None and old.constants_traced and not self.staged:
                return  # (staged in another context, only vmapped or differentiated in this one: that one claims)
            site = self.facts.sites[node] = self.site()
            self.facts.variant_sites.setdefault(node, {})[self.variant_key] = site

    def lookup(self, name: str) -> Value:
        if name in self.env:
            return self.env[name]
        info = self.info
        if self.variant is not None and name in self.variant.closure:
            return self.variant.closure[name]  # what the branch it was traced from decided
        if info is not None and name in info.closure:
            return info.closure[name]
        if self.info is not None:
            found = self.facts.enclosing_binding(name, self.info)
            if found is True:
                return None  # (an enclosing function's parameter or local hides the module's name)
            fn = found if found is not None else self.facts.module_defs.get(name)
            if fn is not None:
                return FuncValue(fn)
            if name in self.facts.module_env:
                v = self.facts.module_env[name]
                if isinstance(v, Taint):
                    return None  # module code never runs under trace
                return v
        return None

    def module_ref(self, expr: cst.Name) -> Const | None:
        """An array module named as imported (`np`, `jnp`), not rebound here: the module as a value."""
        info = self.info
        if info is not None and (expr.value in info.params or expr.value in info.assignments):
            return None
        return module_const(self.scope.qualify(expr))

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
            if self.facts.lookup_function(name, self.info) is not None or name in self.facts.module_env:
                return None
            return name  # a builtin (or an unresolved global)
        return None

    def self_class(self, expr: cst.BaseExpression) -> str | None:
        """The class of `self` when `expr` is the first parameter of a method."""
        info = self.info
        if isinstance(expr, cst.Name) and info is not None and info.is_method and info.positional and \
                expr.value == info.positional[0]:
            return info.class_name
        return None

    def closure(self) -> dict[str, Value]:
        """What a function defined here sees of this body: its own closure, then its environment."""
        out: dict[str, Value] = {}
        if self.info is not None:
            out.update(self.info.closure)
        if self.variant is not None:
            out.update(self.variant.closure)
        out.update(self.env)
        return out

    def closure_for(self, callee: FunctionInfo) -> dict[str, Value] | None:
        """What a call or trace of `callee` from here passes of the names it reads from enclosing code: this
        body's closure and environment when `callee` is defined here; else only what a guard here decided
        (`KnownTruth`, `NotNone`) of names that `callee` and this body both read from a def enclosing them
        both (a lambda in the `else` of `if verbose:` calling a sibling helper that tests `verbose`; a scan
        body built where `grid` is set calling a sibling step that passes `grid` on)."""
        if self.info is None:
            return None
        if callee.parent is self.info:
            self.share_none_tests(callee)
            return self.closure()
        outer = self.info.parent
        while outer is not None and outer is not callee.parent:
            outer = outer.parent
        if outer is None:
            return None
        own = self.info.params
        truths = {n: v for n, v in self.closure().items() if isinstance(v, (KnownTruth, NotNone)) and n not in own
                  and n not in self.info.assignments}
        return truths or None

    def share_none_tests(self, callee: FunctionInfo) -> None:
        """Hand a function defined here the undecided `is None` tests walked so far that bound names per
        branch (`s = factor` if `factor is not None` else a traced value), as this walk saw them last."""
        for names, entries in self.tests_seen.items():
            if len(names) == 2 and "None" in names and any(none_test_of(entry[0]) for entry in entries):
                callee.outer_none_tests[names] = [entry for entry in entries if none_test_of(entry[0])]

    def closure_into(self, info: FunctionInfo) -> None:
        if self.info is None:
            return
        self.share_none_tests(info)
        for name, value in self.closure().items():
            info.closure[name] = merge_values(info.closure.get(name), value)


def none_test_of(test: cst.CSTNode) -> str | None:
    """`x` of `x is None` / `x is not None` (either way round), else None."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and
            isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))):
        return None
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(right, cst.Name) and right.value == "None" and isinstance(left, cst.Name):
        return left.value
    if isinstance(left, cst.Name) and left.value == "None" and isinstance(right, cst.Name):
        return right.value
    return None
