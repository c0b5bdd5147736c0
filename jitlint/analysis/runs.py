"""How often code runs: the facts the recompile rules (JIT1xx-JIT3xx) need about loops and callers.

A jit re-created in a loop only costs something when the loop repeats *the same* computation. This module
tells apart:

* data-driven repetition (`for batch in loader`, `for _ in range(steps)`, `while`): each iteration runs
  the same program again, so a fresh wrapper recompiles for nothing;
* a sweep over a fixed set of configurations written in the source (a literal tuple/list, an
  `itertools.product` of literals, a module-level dict's items, an Enum): each item is a different
  program, one compile per item is by design;
* code that runs once per key (a memoized function: `functools.cache`, `lru_cache`, `cached_property`,
  a project decorator that applies one, or the `cache[key] = jax.jit(...)` idiom);
* code staged by an outer trace (jit, a lax body, their helpers): a jit inside is inlined, compiled once
  (under plain grad nothing is staged: only a stable function's re-wrap is free there);
* wrappers that are only lowered or exported (`.lower()`, `jax.export.export`): never dispatched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.contexts import ContextKind
from jitlint.analysis.literals import argument, literal_const
from jitlint.analysis.names import dotted
from jitlint.analysis.sites import call_arguments
from jitlint.source.cstwalk import bound_names, children, descendants, statement_part, target_names, walk_statements

if TYPE_CHECKING:
    from jitlint.analysis.model import ModuleFacts
    from jitlint.analysis.objects import FunctionInfo

_SET_ALGEBRA = {"difference", "intersection", "copy"}  # (`union` and `symmetric_difference` may add any number)
_ARRAY_OF_DISPLAY = {"numpy.array", "numpy.asarray", "jax.numpy.array", "jax.numpy.asarray"}
_SWEEP_BUILDERS = {"itertools.product", "zip", "enumerate", "reversed", "sorted", "list", "tuple", "set",
                   "itertools.chain", "itertools.permutations", "itertools.combinations"}


def loop_iterable(loop: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(loop, (cst.For, cst.CompFor)):
        return loop.iter
    return None  # `while`: data-driven


_COUNTERS = {"range", "itertools.count", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"}
_PASS_THROUGH = {"enumerate", "reversed", "list", "tuple", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"}


def counts_passes(a: "ModuleFacts", loop: cst.CSTNode) -> bool:
    """A loop whose passes are numbered, not items: `while`, `for i in range(n)` (through `enumerate`,
    `tqdm`), `itertools.count()`. Its passes repeat one computation on new data; a loop over items (impls,
    configs, cases) gives each pass an item of its own."""
    iterable = loop_iterable(loop)
    for _ in range(4):
        if not isinstance(iterable, cst.Call):
            return iterable is None
        q = a.call_names.get(iterable)
        if q in _COUNTERS:
            return True
        positional = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
        if q not in _PASS_THROUGH or not positional:
            return False
        iterable = positional[0]
    return False


def sweeps_configurations(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    """A loop over items that are configurations: not numbered passes (counts_passes), and its body uses
    an item (or what it derives from one) as an option -- the value of a keyword argument
    (`impl=impl`, `replace(cfg, block_v=block_v)`), a function it calls, a string it compares
    (`name == "xla"`) -- here or in a function of the module it hands the item to. Each pass then runs
    another computation: a benchmark over implementations, a test over tile sizes (jax-linear-attention,
    fresh set AL). An item only used as an operand (`v * s`) is data: the same program would do. A loop
    that does not repeat the same work (a literal sweep, the command line's values) counts too."""
    found = a.configuration_loops.get(id(loop))
    if found is None:
        found = a.configuration_loops[id(loop)] = isinstance(loop, (cst.For, cst.CompFor)) and (
            not repeats_same_work(a, func, loop) or
            not counts_passes(a, loop) and _used_as_option(a, func, _loop_scope(a, loop),
                                                           set(target_names(loop.target)), 0))
    return found


def _loop_scope(a: "ModuleFacts", loop: cst.CSTNode) -> cst.CSTNode:
    return a.comprehensions.get(loop, loop) if isinstance(loop, cst.CompFor) else loop


def _used_as_option(a: "ModuleFacts", func: "FunctionInfo | None", scope: cst.CSTNode, names: set[str],
                    depth: int) -> bool:
    table = func.assignments if func is not None else a.module_assignments
    wrappers: set[str] = set()  # derived names that are JAX wrappers of a closure over the item (`f = jit(...)`)
    for _ in range(3):  # what the body derives from the items (`scfg = replace(cfg, block_v=block_v)`)
        more = {name for name, exprs in table.items() if name not in names and
                any(not isinstance(e, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and names_read_any(e, names)
                    for e in exprs if isinstance(e, cst.BaseExpression))}
        if not more:
            break
        names |= more
        wrappers |= {name for name in more if all(isinstance(e, cst.Call) and a.call_names.get(e) in jaxapi.TRANSFORMS
                                                  for e in table[name])}

    def named(expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Name) and expr.value in names

    def called(expr: cst.BaseExpression) -> bool:  # calling the jit it makes of the item is not an option
        return named(expr) and expr.value not in wrappers

    def field_of_item(expr: cst.BaseExpression) -> bool:  # `c`, `c.kind`, `c["dtype"]`, `c.get("dtype")`
        while True:
            if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
                expr = expr.func.value
            elif isinstance(expr, (cst.Attribute, cst.Subscript)):
                expr = expr.value
            else:
                return named(expr)

    for node in descendants(scope):
        if isinstance(node, cst.Arg) and node.keyword is not None and named(node.value):
            return True
        if isinstance(node, cst.Call) and called(node.func):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and named(node.func.value) and \
                node.func.attr.value in _TEXT_TESTS:
            return True  # `name.startswith("mimo")`: the item is a name
        if isinstance(node, cst.Comparison):
            sides = (node.left, *(c.comparator for c in node.comparisons))
            # the item, or a field of it, compared with a string: a name, a kind, a dtype
            if any(field_of_item(x) for x in sides) and \
                    any(isinstance(x, (cst.SimpleString, cst.ConcatenatedString)) for x in sides):
                return True
        if depth < 2 and isinstance(node, cst.Call):
            site = a.call_sites.get(node)
            callee = site.callee if site is not None else None
            if callee is None or callee.transform is not None or not isinstance(callee.info.node, cst.FunctionDef):
                continue
            params = {param for param, expr in call_arguments(site, callee.info) if names_read_any(expr, names)}
            if params and _used_as_option(a, callee.info, callee.info.node.body, params, depth + 1):
                return True
    return False


_TEXT_TESTS = {"startswith", "endswith", "isidentifier", "isdigit", "isalpha"}


def names_read_any(expr: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in (expr, *descendants(expr)))


def is_fixed_sweep(a: "ModuleFacts", func: "FunctionInfo | None", iterable: cst.BaseExpression | None,
                   _depth: int = 0) -> bool:
    """Whether iterating `iterable` visits a fixed set of configurations written in the source."""
    if iterable is None or _depth > 4:
        return False
    if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
        return len(iterable.elements) <= jaxapi.MAX_SWEEP and not any(
            isinstance(el, cst.StarredElement) for el in iterable.elements)
    if isinstance(iterable, cst.Dict):
        return len(iterable.elements) <= jaxapi.MAX_SWEEP
    if isinstance(iterable, cst.Call):
        site = a.call_sites.get(iterable)
        callee = site.callee if site is not None else None
        if callee is not None and callee.transform is None and _yields_fixed_items(callee.info):
            # a generator of the module with its `yield`s outside any loop (`def _cases(shape): yield
            # rand(*shape)`): as many items as it has yields, each written out (brainevent's tests, fresh
            # set R)
            return True
        if callee is not None and callee.transform is None and isinstance(callee.info.node, cst.FunctionDef):
            # a function of the module that returns a sweep (`return tuple(s for s in [0, mid, end] if
            # s <= n)`: a few window starts; jax-linear-attention's tests, fresh set AL)
            # (not a container it fills: `batches = []`, appended to in a loop, then `return batches`)
            returns = own_returns(callee.info)
            if returns and all(r.value is not None and not _filled(a, callee.info, r.value) and
                               is_fixed_sweep(a, callee.info, r.value, _depth + 1) for r in returns):
                return True
        q = a.call_names.get(iterable) or _qualify(a, func, iterable.func)
        args = [arg.value for arg in iterable.args if arg.keyword is None]
        if q == "itertools.product":
            # Every factor a display, a named constant or an Enum class: a grid of configurations.
            return bool(args) and all(not isinstance(v, cst.Call) or is_fixed_sweep(a, func, v, _depth + 1)
                                      for v in args)
        if q in _SWEEP_BUILDERS:
            return bool(args) and all(is_fixed_sweep(a, func, v, _depth + 1) for v in args)
        if q in _ARRAY_OF_DISPLAY:
            # `Ns = onp.array([8, 16])`: an array written out is as many configurations as its display
            # (jax-fem's convergence study over mesh sizes, fresh set BL)
            return bool(args) and is_fixed_sweep(a, func, args[0], _depth + 1)
        if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in ("items", "keys") and \
                not iterable.args:
            # A mapping's keys are distinct: each pass is another key (`for obs_id, obs in
            # result.obsconfs.items()`: one observation each), a configuration, not the same work again
            # (jaxspec, fresh set L). An enclosing data-driven loop still repeats the whole pass.
            return True
        if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "values":
            return is_fixed_sweep(a, func, iterable.func.value, _depth + 1)
        if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in _SET_ALGEBRA:
            # `{A, B, C}.difference({current})`: no more items than the literal it starts from
            return is_fixed_sweep(a, func, iterable.func.value, _depth + 1)
        return False
    if isinstance(iterable, cst.BinaryOperation) and isinstance(iterable.operator, cst.Add):
        # `names[shift:] + names[:shift]`, `list(A.items()) + list(B.items())`: no more items than its parts
        return is_fixed_sweep(a, func, iterable.left, _depth + 1) and \
            is_fixed_sweep(a, func, iterable.right, _depth + 1)
    if isinstance(iterable, cst.Subscript) and all(isinstance(el.slice, cst.Slice) for el in iterable.slice):
        return is_fixed_sweep(a, func, iterable.value, _depth + 1)  # `(32, 64, 128)[:n]`
    if isinstance(iterable, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        # `[make(flag) for flag in (True, False)]`: one item per item of the sweeps it goes over
        comp: cst.CompFor | None = iterable.for_in
        while comp is not None:
            if not is_fixed_sweep(a, func, comp.iter, _depth + 1):
                return False
            comp = comp.inner_for_in
        return True
    if isinstance(iterable, cst.IfExp):  # `[200, 500] if ci else [200, 500, 1000]`
        return is_fixed_sweep(a, func, iterable.body, _depth + 1) and \
            is_fixed_sweep(a, func, iterable.orelse, _depth + 1)
    if isinstance(iterable, (cst.Name, cst.Attribute)):
        # a literal list of configurations another project module binds (`from .profiles import
        # _JAXXED_MODELS as PROFILES`: jaxtronomy's tests, fresh set N), read through the index
        q = _qualify(a, func, iterable)
        imported_kind = getattr(a, "imported_kind", None)
        if q is not None and imported_kind is not None and imported_kind(q) == "sweep":
            return True
    if isinstance(iterable, cst.Name):
        if iterable.value in a.classes:
            return _is_enum(a, iterable.value)
        where, sources = _binding(a, func, iterable.value)
        if where is not None and iterable.value in where.params:
            return _every_caller_passes_sweep(a, where, iterable.value, _depth)
        # `dtypes = [f16, f32]` then `dtypes += [f64]` outside any loop: still a list written in the source.
        return bool(sources) and all(
            is_fixed_sweep(a, where, src.value if isinstance(src, cst.AugAssign) else src, _depth + 1)
            and not (isinstance(src, cst.AugAssign) and _inside_loop(a, where, src)) for src in sources)
    return False


def iterates_tree_leaves(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    """`for leaf, flag in zip(jax.tree.leaves(params), jax.tree.leaves(mask))`: a loop over the leaves of
    pytrees (through `enumerate`, `zip`, `list`, names bound to them) visits the parts of fixed structures,
    the same parts each time it runs: a value taken per leaf takes one value per leaf, not a new one per
    pass (paligemma's per-leaf cast with a static trainable flag, fresh set BN)."""
    return _leaves_of_trees(a, func, loop_iterable(loop), 0)


def _leaves_of_trees(a: "ModuleFacts", func: "FunctionInfo | None", expr: cst.BaseExpression | None,
                     depth: int) -> bool:
    if expr is None or depth > 4:
        return False
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) \
            and isinstance(expr.slice[0].slice.value, cst.Integer) and expr.slice[0].slice.value.value == "0":
        # `jax.tree.flatten(params)[0]`
        return isinstance(expr.value, cst.Call) and jaxapi.TREE_LEAVES.get(_call_name(a, func, expr.value)) is True
    if isinstance(expr, cst.Call):
        q = _call_name(a, func, expr)
        if jaxapi.TREE_LEAVES.get(q) is False:
            return True
        args = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
        return q in ("zip", "enumerate", "list", "tuple", "reversed") and bool(args) and \
            all(_leaves_of_trees(a, func, v, depth + 1) for v in args[:1 if q == "enumerate" else None])
    if isinstance(expr, cst.Name):
        sources = assigned(a, func, expr.value)
        if len(sources) == 1:
            return _leaves_of_trees(a, func, sources[0], depth + 1)
        # `leaves, treedef = jax.tree.flatten(params)` (a treedef is not iterable: what a loop goes over
        # is the leaves)
        unpacked = unpacked_from_call(a, func, expr.value)
        return unpacked is not None and jaxapi.TREE_LEAVES.get(_call_name(a, func, unpacked)) is True
    return False


def _call_name(a: "ModuleFacts", func: "FunctionInfo | None", call: cst.Call) -> str | None:
    return a.call_names.get(call) or _qualify(a, func, call.func)


def scalar_sweep(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    """A `for` over a display written out (or a name bound once to one) of at least two Python numbers of
    one type (`for p in [0.1, 0.3, 0.5]`): handed to a jitted call as arguments, every item is a traced
    scalar of the same shape and dtype, so the items alone make no other program."""
    iterable = loop_iterable(loop)
    if isinstance(iterable, cst.Name):
        sources = assigned(a, func, iterable.value)
        iterable = sources[0] if len(sources) == 1 else None
    if not isinstance(iterable, (cst.Tuple, cst.List)) or len(iterable.elements) < 2:
        return False
    kinds = set()
    for el in iterable.elements:
        const = literal_const(el.value) if isinstance(el, cst.Element) else None
        if const is None or type(const.value) not in (int, float, bool):
            return False
        kinds.add(type(const.value))
    return len(kinds) == 1


def _filled(a: "ModuleFacts", func: "FunctionInfo", expr: cst.BaseExpression) -> bool:
    """A name bound only to empty displays (`out = []`): a container the code fills."""
    if not isinstance(expr, cst.Name):
        return False
    sources = assigned(a, func, expr.value)
    return bool(sources) and all(isinstance(src, (cst.List, cst.Tuple, cst.Set, cst.Dict)) and not src.elements
                                 for src in sources)


def _yields_fixed_items(info: "FunctionInfo") -> bool:
    """A generator whose every `yield` (no `yield from`) stands as a statement outside any loop of its
    own body: it yields at most that many items."""
    if not isinstance(info.node, cst.FunctionDef):
        return False
    finder = _YieldFinder()
    walk_statements(info.node.body, finder)
    return 0 < finder.count <= jaxapi.MAX_SWEEP and finder.fixed


class _YieldFinder:
    def __init__(self) -> None:
        self.count, self.loops, self.fixed = 0, 0, True

    def _value(self, node) -> None:
        value = getattr(node, "value", None)
        if isinstance(value, cst.Yield):
            self.count += 1
            if self.loops or isinstance(value.value, cst.From):
                self.fixed = False

    visit_Expr = visit_Assign = visit_AnnAssign = _value

    def visit_For(self, node) -> None:
        self.loops += 1

    def leave_For(self, node) -> None:
        self.loops -= 1

    visit_While, leave_While = visit_For, leave_For

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False


def _every_caller_passes_sweep(a: "ModuleFacts", func: "FunctionInfo", param: str, depth: int) -> bool:
    """`def run(N, rhos): for rho in rhos: ...` called as `run(N, (0, 1e-3, 1))`: a parameter that every
    call of the function in this module binds to a fixed sweep (at least one call, and every call passes
    it plainly)."""
    calls = [site for site in a.call_sites.values() if site.callee is not None and site.callee.info is func
             and site.callee.transform is None]
    default = _default_of(func, param)
    # `def build(..., wavelet_types=['starlet', 'battle-lemarie-3'])`: a default written as a list of
    # configurations is one, whoever calls without overriding it (herculens, fresh set K).
    default_sweeps = default is not None and is_fixed_sweep(a, func.parent, default, depth + 1)
    if not calls and not default_sweeps:
        return False
    for site in calls:
        arg = _argument_for(func, site, param)
        if arg is None and default_sweeps and not _passes_unseen(site):
            continue
        if arg is None or not is_fixed_sweep(a, site.func, arg, depth + 1):
            return False
    return True


def _default_of(func: "FunctionInfo", param: str) -> cst.BaseExpression | None:
    node = func.node
    if not isinstance(node, (cst.FunctionDef, cst.Lambda)):
        return None
    p = node.params
    for each in (*p.params, *p.kwonly_params, *p.posonly_params):
        if each.name.value == param:
            return each.default
    return None


def _passes_unseen(site) -> bool:
    """A call with `*args`/`**kwargs`, which may fill any parameter."""
    return any(arg.star for arg in site.node.args)


def _argument_for(func: "FunctionInfo", site, param: str) -> cst.BaseExpression | None:
    """The expression a call passes for `param` (by keyword or position; None when not passed plainly)."""
    args = site.node.args
    for arg in args:  # (a keyword written out is that parameter's, whatever `**kwargs` holds)
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    if any(arg.star for arg in args):
        return None
    free = func.free_positional(site.callee.bound, site.callee.bound_self)
    positional = [arg.value for arg in args if arg.keyword is None]
    if param in free and free.index(param) < len(positional):
        return positional[free.index(param)]
    return None


def _inside_loop(a: "ModuleFacts", func: "FunctionInfo | None", node: cst.CSTNode) -> bool:
    """Is `node` (a statement of `func`'s own body, or of the module's) inside a `for`/`while` there?"""
    body = func.node.body if func is not None and isinstance(func.node, cst.FunctionDef) else a.module
    stack: list[tuple[cst.CSTNode, bool]] = [(body, False)]
    while stack:
        current, looped = stack.pop()
        if current is node:
            return looped
        inner = looped or current.__class__ in (cst.For, cst.While)
        if current.__class__ not in _NEW_BODIES or current is body:
            stack.extend((child, inner) for child in children(current))
    return False


def assigned(a: "ModuleFacts", func: "FunctionInfo | None", name: str) -> list[cst.BaseExpression]:
    """What `name` is assigned, in the innermost function that assigns it, else at module level."""
    return _binding(a, func, name)[1]


def assigned_to_self(a: "ModuleFacts", class_name: str, attr: str) -> list[tuple["FunctionInfo", cst.BaseExpression]]:
    """What the methods of `class_name` assign to `self.attr` (`self.model = Net(cfg)`, `self.solver:
    Solver = solver`), each with the method assigning it; not in the defs and classes inside them."""
    found = []
    for info in a.classes.get(class_name, {}).values():
        self_name = info.positional[0] if info.positional else None
        if self_name is None or not isinstance(info.node, cst.FunctionDef):
            continue
        lines = _StatementLines(info.node)
        walk_statements(info.node, lines)
        for stmt in lines.found:
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target, value = small.targets[0].target, small.value
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    target, value = small.target, small.value
                else:
                    continue
                if isinstance(target, cst.Attribute) and target.attr.value == attr and \
                        isinstance(target.value, cst.Name) and target.value.value == self_name:
                    found.append((info, value))
    return found


class _StatementLines:
    """The simple statement lines of a function, not of the defs and classes inside it."""

    def __init__(self, top: cst.FunctionDef) -> None:
        self.top, self.found = top, []

    def visit_FunctionDef(self, node) -> bool:
        return node is self.top

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_SimpleStatementLine(self, node) -> bool:
        self.found.append(node)
        return False


def reaching_assignment(func: "FunctionInfo", node: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of the last plain `name = ...` before the statement holding `node`, in its block or an
    enclosing one of `func` (the assignment that reaches it, where branches assign it differently); None
    when none is seen."""
    def holds(tree: cst.CSTNode) -> bool:
        stack = [tree]
        while stack:
            current = stack.pop()
            if current is node:
                return True
            stack.extend(children(current))
        return False

    def search(block) -> tuple[bool, cst.BaseExpression | None]:
        last = None
        for stmt in block:
            if holds(stmt):
                for inner in _blocks(stmt):
                    found, value = search(inner)
                    if found:
                        return True, value if value is not None else last
                return True, last
            for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()):
                if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                         for t in small.targets):
                    last = small.value
        return False, None

    body = func.node.body
    return search(body.body if isinstance(body, cst.IndentedBlock) else ())[1]


def _blocks(stmt: cst.CSTNode):
    """The statement lists directly inside a compound statement (its body, else, handlers, ...)."""
    for child in children(stmt):
        if isinstance(child, cst.IndentedBlock):
            yield child.body
        elif isinstance(child, (cst.Else, cst.If, cst.ExceptHandler, cst.Finally)):
            yield from _blocks(child)


def bound_values(a: "ModuleFacts", func: "FunctionInfo | None", expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What `expr` certainly is one of: itself for a call; for a name, every expression it is bound to where
    `func` sees it, and nothing when it is a parameter there too (the caller's value comes in)."""
    if isinstance(expr, cst.Call):
        return [expr]
    if not isinstance(expr, cst.Name):
        return []
    where, sources = _binding(a, func, expr.value)
    return [] if where is not None and expr.value in where.params else sources


def unpacked_from_call(a: "ModuleFacts", func: "FunctionInfo | None", name: str) -> cst.Call | None:
    """`init_fn, step_fn = minimize.fire_descent(...)`: the one call whose result `name` is unpacked from,
    in the innermost function binding `name` as seen from `func` (or the module), when that is its only
    binding there; else None."""
    found = unpacked_sources(a, func, name)
    return found[0] if len(found) == 1 and isinstance(found[0], cst.Call) else None


def unpacked_sources(a: "ModuleFacts", func: "FunctionInfo | None", name: str) -> list[cst.BaseExpression]:
    """The values `name` is unpacked from (`a, name = value`), in the innermost function binding it as seen
    from `func` (or the module), when it is bound only so there; else []."""
    f = func
    while True:
        if f is not None and (name in f.params or name in f.assignments):
            return []  # a parameter, or bound to a value jitlint knows (not only unpacked)
        found = _unpacks(f.node if f is not None else a.module, name)
        if found or f is None:
            return found
        f = f.parent


def part_of_call_results(loops, expr: cst.BaseExpression) -> bool:
    """`edges` of `attrs, edges = net.get_network()`, `net.idxs` of `net = Network().add(s)`: a part of what
    calls return, where every binding of its name inside the outermost of `loops` binds a call's result.
    Which parts of a result change with the loop is the callee's to say (a network rebuilt per
    participant keeps its edges), so the part's cardinality is unknown here."""
    root = expr
    while isinstance(root, cst.Attribute):
        root = root.value
    if not loops or not isinstance(root, cst.Name) or (root is expr and not _unpacks(loops[0], root.value)):
        return False
    name = root.value
    found: list[bool] = []  # per binding inside the loop: is it (a part of) a call's result
    stack: list[cst.CSTNode] = [loops[0]]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # (their own scopes)
        if isinstance(node, cst.Assign):
            if any(name in target_names(t.target) for t in node.targets):
                found.append(isinstance(node.value, cst.Call))
        elif isinstance(node, cst.AnnAssign):
            if name in target_names(node.target):
                found.append(isinstance(node.value, cst.Call))
        elif isinstance(node, (cst.AugAssign, cst.For, cst.NamedExpr)):
            if name in target_names(node.target):
                found.append(False)
        elif isinstance(node, cst.AsName) and name in target_names(node.name):
            found.append(False)
        stack.extend(children(node))
    return bool(found) and all(found)


def _unpacks(scope: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The values unpacked into `name` (`a, name = value`) by the statements of `scope` itself."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [scope]
    while stack:  # the statements only, in order: no assignment statement lives in an expression
        node = stack.pop()
        cls = node.__class__
        if cls is cst.Assign:
            for t in node.targets:
                if isinstance(t.target, (cst.Tuple, cst.List)) and any(
                        isinstance(el.value, cst.Name) and el.value.value == name for el in t.target.elements):
                    found.append(node.value)
            continue
        if cls is cst.ClassDef or (cls is cst.FunctionDef and node is not scope):
            continue  # not the statements of nested defs and classes
        stack.extend(reversed([c for c in children(node) if statement_part(c.__class__)]))
    return found


def _binding(a: "ModuleFacts", func: "FunctionInfo | None", name: str):
    """(the innermost function binding `name` as seen from `func`, or None for the module; what it assigns)."""
    f = func
    while f is not None:
        if name in f.assignments:
            return f, f.assignments[name]
        if name in f.params:
            return f, []
        f = f.parent
    return None, a.module_assignments.get(name, [])


def _qualify(a: "ModuleFacts", func: "FunctionInfo | None", expr: cst.BaseExpression) -> str | None:
    scope = func.scope if func is not None else a.scope
    return scope.qualify(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None


def _is_enum(a: "ModuleFacts", class_name: str) -> bool:
    bases = [b.split(".")[-1] for b in a.class_bases.get(class_name, [])]
    return any(b in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag") for b in bases)


def loops_are_sweeps(a: "ModuleFacts", func: "FunctionInfo | None", loops, node: cst.CSTNode | None = None,
                     sweeps: bool = True) -> bool:
    """Every enclosing loop is a fixed sweep (an outer data-driven loop repeats the whole sweep), or runs
    `node` again only after a failure (a retry loop). `sweeps=False`: a sweep over configurations written
    in the source counts as repeating it (the caller asks what of the work changes with the items)."""
    return bool(loops) and all(not repeats_same_work(a, func, loop, node, sweeps) for loop in loops)


def repeats_same_work(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode,
                      node: cst.CSTNode | None = None, sweeps: bool = True) -> bool:
    """Whether `loop` runs `node` again and again with the same meaning: not a sweep over configurations,
    not a pass over names, not a retry that runs it again only after a failure."""
    return not (at_most_one_pass(a, loop) or sweeps and is_fixed_sweep(a, func, loop_iterable(loop)) or
                iterates_names(a, loop) or
                iterates_sizes(a, loop)
                or iterates_command_line(a, func, loop) or patches_imported_state(a, func, loop)
                or node is not None and (reruns_only_on_failure(a, loop, node) or leaves_after(a, loop, node)
                                         or runs_on_one_pass(a, func, loop, node) or runs_once(a, loop, node)))


def at_most_one_pass(a: "ModuleFacts", loop: cst.CSTNode) -> bool:
    """`for seed in range(1):`, `for x in [only]:`: a loop over a literal range or display of at most one
    item runs its body once at most, repeating nothing (jax-verify's test over one seed, fresh sets AT
    and BN)."""
    iterable = loop_iterable(loop)
    if isinstance(iterable, (cst.List, cst.Tuple)):
        return len(iterable.elements) <= 1 and not any(isinstance(el, cst.StarredElement) for el in iterable.elements)
    length = literal_range_length(a, iterable)
    return length is not None and length <= 1


def literal_range_length(a: "ModuleFacts", iterable: cst.BaseExpression | None) -> int | None:
    """How many values `range(...)` with integers written in the source gives (`range(1, 4)`: 3), or None
    for anything else."""
    if not (isinstance(iterable, cst.Call) and a.call_names.get(iterable) == "range" and 1 <= len(iterable.args) <= 3
            and all(arg.keyword is None and not arg.star for arg in iterable.args)):
        return None
    values = [literal_const(arg.value) for arg in iterable.args]
    if any(v is None or not isinstance(v.value, int) or isinstance(v.value, bool) for v in values):
        return None
    try:
        return len(range(*(v.value for v in values)))
    except ValueError:  # range(0, 3, 0)
        return None


def patches_imported_state(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    """`for mode in modes: kernels.backend = pick(mode)`: a loop that assigns an attribute of an imported
    module or class, or a `global` of its function, changes what traced code reads from it at trace time,
    so each pass builds another program on purpose (a jit hoisted out of it would keep the first pass's
    program: a stale kernel; jax-linear-attention's profilers, fresh set AL)."""
    found = a.patching_loops.get(id(loop))
    if found is None:
        found = a.patching_loops[id(loop)] = isinstance(loop, (cst.For, cst.While)) and \
            _patches(a, func, loop)
    return found


def _patches(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    targets = [t for n in descendants(loop.body) if isinstance(n, (cst.Assign, cst.AugAssign))
               for t in ([x.target for x in n.targets] if isinstance(n, cst.Assign) else [n.target])]
    scope = func.scope if func is not None else a.scope
    if any(isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and scope.lookup(t.value.value) is not None
           for t in targets):
        return True
    if func is None:
        return False
    declared = a.globals_declared.get(id(func.node))
    if declared is None:
        declared = a.globals_declared[id(func.node)] = frozenset(
            alias.name.value for n in descendants(func.node.body) if isinstance(n, cst.Global) for alias in n.names)
    return any(isinstance(t, cst.Name) and t.value in declared for t in targets)


def iterates_command_line(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> bool:
    """`for shape in args.shapes.split(";")`, `for n in sys.argv[1:]`: a loop over values typed on the
    command line (an option of `parse_args()`, `sys.argv`, and lists built from them, or a literal list
    of defaults in their place) goes over the configurations the user asked for, a handful, each a run of
    its own: a benchmark over shapes and implementations compiles each as a new program by construction,
    not the same work again (jax-linear-attention's benchmark scripts, fresh set AL)."""
    return _per_loop(a.command_line_loops, a, loop,
                     lambda a, loop, targets: _typed_values(a, func, loop.iter, 0))


_TEXT_METHODS = {"split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "lower", "upper"}
_SAME_ITEMS = {"list", "tuple", "sorted", "reversed", "enumerate", "set", "frozenset"}


def _typed_values(a: "ModuleFacts", func: "FunctionInfo | None", expr: cst.BaseExpression | None,
                  depth: int) -> bool:
    """Are the items of `expr` values the user typed on the command line (see iterates_command_line)?"""
    if expr is None or depth > 4:
        return False
    if isinstance(expr, cst.Call):
        q = a.call_names.get(expr) or _qualify(a, func, expr.func) or ""
        positional = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
        if q in _SAME_ITEMS:
            return bool(positional) and _typed_values(a, func, positional[0], depth + 1)
        if q == "zip":
            return bool(positional) and all(_typed_values(a, func, v, depth + 1) for v in positional)
        if q == "filter":
            return len(positional) == 2 and _typed_values(a, func, positional[1], depth + 1)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _TEXT_METHODS:
            return _typed_values(a, func, expr.func.value, depth + 1)  # `args.impls.split(",")`
        return False
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return _typed_values(a, func, expr.for_in.iter, depth + 1)
    if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
        # `sys.argv[1:] or ["fits", "report"]`: what was typed, or the defaults in its place
        sides = (expr.left, expr.right)
        return any(_typed_values(a, func, x, depth + 1) for x in sides) and \
            all(_typed_values(a, func, x, depth + 1) or is_fixed_sweep(a, func, x) for x in sides)
    if isinstance(expr, cst.Subscript):
        return _typed_values(a, func, expr.value, depth + 1)  # `sys.argv[1:]`
    if isinstance(expr, cst.Attribute):
        if _qualify(a, func, expr) == "sys.argv":
            return True
        return isinstance(expr.value, cst.Name) and _parsed_arguments(a, func, expr.value.value)  # `args.shapes`
    if isinstance(expr, cst.Name):
        if _qualify(a, func, expr) == "sys.argv":
            return True
        values = assigned(a, func, expr.value)
        # every value it is given: typed ones, or a literal list of defaults (`shapes = SHAPES` first)
        return bool(values) and any(_typed_values(a, func, v, depth + 1) for v in values) and all(
            _typed_values(a, func, v, depth + 1) or is_fixed_sweep(a, func, v) for v in values)
    return False


def _parsed_arguments(a: "ModuleFacts", func: "FunctionInfo | None", name: str) -> bool:
    """Is `name` the parsed command line: `args = parser.parse_args()` (argparse's Namespace)?"""
    values = assigned(a, func, name)
    return bool(values) and all(isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and
                                v.func.attr.value == "parse_args" for v in values)


def iterates_sizes(a: "ModuleFacts", loop: cst.CSTNode) -> bool:
    """`for dim in dims: params = normal(key, shape=(dim,))`: a loop whose variable is the shape (a size, a
    count) of an array its body makes goes over sizes: each pass computes on arrays of other shapes, so
    what it compiles is a new program every pass, by construction (a benchmark over sizes; pyprobml's
    subspace dimensions, fresh set AE)."""
    return _per_loop(a.size_loops, a, loop, _iterates_sizes)


def _per_loop(table: dict, a: "ModuleFacts", loop: cst.CSTNode, decide) -> bool:
    """`decide(a, loop, its target names)` for a `for` loop (False for another loop), once per loop."""
    found = table.get(id(loop))
    if found is None:
        found = table[id(loop)] = isinstance(loop, cst.For) and decide(a, loop, set(target_names(loop.target)))
    return found


def _iterates_sizes(a: "ModuleFacts", loop: cst.For, targets: set[str]) -> bool:
    # and what the body unpacks from an item (`m, k, n = SHAPES[name]`)
    for node in descendants(loop.body):
        if isinstance(node, cst.Assign) and names_read_any(node.value, targets):
            targets |= {name for t in node.targets for name in target_names(t.target)}
    for node in descendants(loop.body):
        if not isinstance(node, cst.Call):
            continue
        spec = jaxapi.SHAPE_ARGS.get(a.call_names.get(node) or "")
        if spec is None:
            continue
        shape = argument(node, *spec)
        if shape is not None and any(isinstance(n, cst.Name) and n.value in targets
                                     for n in (shape, *descendants(shape))):
            return True
    return False


def iterates_names(a: "ModuleFacts", loop: cst.CSTNode) -> bool:
    """`for key in obj._params: ... {key: p} ...`: a loop whose variable the body uses as a name -- a key
    written in a dict display (`f(**{param: v})`), the attribute of `getattr`/`setattr`/`hasattr` -- goes
    over names of parameters or fields: each pass builds a different program, by construction
    (jax-galsim's tests jit a closure per parameter name, fresh set M)."""
    return _per_loop(a.name_loops, a, loop, _iterates_names)


def _iterates_names(a: "ModuleFacts", loop: cst.For, targets: set[str]) -> bool:
    for node in descendants(loop.body):
        if isinstance(node, cst.DictElement) and isinstance(node.key, cst.Name) and node.key.value in targets:
            return True
        if isinstance(node, cst.Call) and len(node.args) >= 2 and isinstance(node.args[1].value, cst.Name) and \
                node.args[1].value.value in targets and \
                a.call_names.get(node) in ("getattr", "setattr", "hasattr", "delattr"):
            return True
    return False


def reruns_only_on_failure(a: "ModuleFacts", loop: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`while True: try: f = jax.jit(...); f(x); break` / `except OOM: batch //= 2`: the pass that succeeds
    leaves the loop, so `node` (in that `try`) runs again only after a failure; code in an `except` handler
    runs once per failure. A retry on out-of-memory with a halved batch compiles a new program each time,
    a few times at most (ripplegw, mbirjax: fresh set L)."""
    regions = a.failure_regions.get(id(loop))
    if regions is None:
        regions = a.failure_regions[id(loop)] = _failure_regions(loop)
    return id(node) in regions


def _failure_regions(loop: cst.CSTNode) -> frozenset[int]:
    """The ids of the nodes of `loop` that run only after a failure: in a `try` body that leaves the loop
    on success, or in an `except` handler; not across an inner loop or another body (their own). A body
    whose last statement leaves the loop (`return avg_rate, avg_time` after checks that `continue` with
    adjusted settings) passes again only after such a rejection: all of it (cuequivariance-jax's
    benchmark retries, fresh set BB: counts reassigned on the rejection branches)."""
    if not isinstance(loop, (cst.For, cst.While)):
        return frozenset()
    if loop.body.body and _leaves(loop.body.body[-1]):
        return frozenset(id(n) for n in _descendants_in_body(loop.body))
    if loop.orelse is not None and loop.orelse.body.body and _raises(loop.orelse.body.body[-1]) and \
            any(isinstance(n, cst.Break) for n in _descendants_in_body(loop.body)):
        # `for _ in range(10): out = build(mb); if ok(out): break; mb *= 2` / `else: raise`: running out of
        # passes is the failure, so every pass but the one that breaks is a rejected attempt (jaxFMM's
        # box-buffer doubling, fresh set BC)
        return frozenset(id(n) for n in _descendants_in_body(loop.body))
    found: set[int] = set()
    todo: list[cst.CSTNode] = list(loop.body.body)  # statements only, until a `try`
    while todo:
        stmt = todo.pop()
        cls = stmt.__class__
        if cls is cst.Try:
            ends = [stmt.body.body[-1]] + ([stmt.orelse.body.body[-1]] if stmt.orelse is not None else [])
            regions = [h for h in stmt.handlers] + ([stmt.body] if any(_leaves(e) for e in ends) else [])
            for region in regions:
                found.update(id(n) for n in _descendants_in_body(region))
            todo.extend(stmt.body.body)  # a nested `try` there may leave too (ids already in)
        elif cls in (cst.If, cst.With):
            todo.extend(stmt.body.body)
            orelse = getattr(stmt, "orelse", None)
            while isinstance(orelse, cst.If):
                todo.extend(orelse.body.body)
                orelse = orelse.orelse
            if orelse is not None:
                todo.extend(orelse.body.body)
    return frozenset(found)


def runs_on_one_pass(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`for r in range(rounds): ... if r == 0: stats = jax.jit(...)(x)`: `node` is under a test that the
    loop's counter equals a constant (also one conjunct of an `and`; or the name a sweep of names is at,
    `if name == "einsum"`), so it runs on one pass of the loop only (jax-linear-attention's profilers,
    fresh set AL)."""
    regions = a.one_pass_regions.get(id(loop))
    if regions is None:
        regions = a.one_pass_regions[id(loop)] = _one_pass_regions(a, func, loop)
    return id(node) in regions


def runs_once(a: "ModuleFacts", loop: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`if found["first"] is None: found["first"] = make_run(x)(y)` in a loop (also one conjunct of an
    `and`): `node` is under a test that a name, attribute or entry is still None, and the branch sets it, so
    it runs on one pass at most (a lazy initialisation; jaxfne's first-crossing search, fresh set AW). Not
    where the loop sets it back to None."""
    regions = a.one_pass_regions.get(("once", id(loop)))
    if regions is None:
        regions = a.one_pass_regions[("once", id(loop))] = _set_once_regions(a, loop)
    return id(node) in regions


def _set_once_regions(a: "ModuleFacts", loop: cst.CSTNode) -> frozenset[int]:
    if not isinstance(loop, (cst.For, cst.While)):
        return frozenset()  # (a comprehension holds no statements)
    code = a.module.code_for_node

    def unset_tests(test: cst.BaseExpression) -> list[str]:
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return unset_tests(test.left) + unset_tests(test.right)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
                isinstance(test.comparisons[0].operator, cst.Is) and \
                isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
            return [code(test.left)]
        return []

    def assigned(body: cst.CSTNode) -> dict[str, bool]:
        """The targets `body` assigns (by source), each with whether some assignment gives it None."""
        out: dict[str, bool] = {}
        for n in descendants(body):
            if isinstance(n, cst.Assign):
                for t in n.targets:
                    key = code(t.target)
                    out[key] = out.get(key, False) or (isinstance(n.value, cst.Name) and n.value.value == "None")
        return out

    found: set[int] = set()
    reset = {k for k, to_none in assigned(loop.body).items() if to_none}
    for stmt in descendants(loop.body):
        if isinstance(stmt, cst.If):
            sets = assigned(stmt.body)
            if any(key in sets and key not in reset for key in unset_tests(stmt.test)):
                found.update(id(n) for n in descendants(stmt.body))
    return frozenset(found)


def _counter(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> tuple[str, type] | None:
    """The name that takes a distinct value on each pass, and the kind of constant it is compared with:
    `i` of `for i in range(n)` or of `for i, x in enumerate(xs)` (an int), `name` of a loop over a fixed
    sweep of names (a string)."""
    if not isinstance(loop, cst.For):
        return None
    q = a.call_names.get(loop.iter) if isinstance(loop.iter, cst.Call) else None
    target = loop.target
    if q == "enumerate" and isinstance(target, cst.Tuple) and target.elements:
        target, kind = target.elements[0].value, cst.Integer
    elif q in _COUNTERS:
        kind = cst.Integer
    elif is_fixed_sweep(a, func, loop.iter):
        kind = cst.SimpleString
    else:
        return None
    return (target.value, kind) if isinstance(target, cst.Name) else None


def _one_pass_regions(a: "ModuleFacts", func: "FunctionInfo | None", loop: cst.CSTNode) -> frozenset[int]:
    found_counter = _counter(a, func, loop)
    if found_counter is None:
        return frozenset()
    counter, constant = found_counter

    def pins(test: cst.BaseExpression) -> bool:
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return pins(test.left) or pins(test.right)
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or \
                not isinstance(test.comparisons[0].operator, cst.Equal):
            return False
        sides = (test.left, test.comparisons[0].comparator)
        return any(isinstance(x, cst.Name) and x.value == counter for x in sides) and \
            any(isinstance(x, constant) for x in sides)

    found: set[int] = set()
    for stmt in descendants(loop.body):
        if isinstance(stmt, cst.If) and pins(stmt.test) and counter not in _rebound_in(loop.body):
            found.update(id(n) for n in descendants(stmt.body))
    return frozenset(found)


def _rebound_in(body: cst.CSTNode) -> set[str]:
    return {name for n in descendants(body) if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign))
            for name in bound_names(n)}


def leaves_after(a: "ModuleFacts", loop: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`for i in ...: ... return retry(x, lr / 3)`: `node` is in a statement that leaves `loop` (a `return`
    or `raise`, also from an inner loop; a `break` of this loop's own body), or that one does right after:
    it runs at most once per run of the loop (emlp's `sparsify_basis` retry, fresh set Z)."""
    regions = a.leaving_regions.get(id(loop))
    if regions is None:
        regions = a.leaving_regions[id(loop)] = _leaving_regions(loop)
    return id(node) in regions


def _leaving_regions(loop: cst.CSTNode) -> frozenset[int]:
    if not isinstance(loop, (cst.For, cst.While)):
        return frozenset()
    found: set[int] = set()

    def leaves(stmt: cst.CSTNode, own: bool) -> bool:
        return _leaves(stmt) and (own or not isinstance(stmt.body[-1], cst.Break))

    def block(statements, own: bool) -> None:
        statements = list(statements)
        # from which statement on the block leaves on every path: it ends by leaving, and nothing after
        # goes on to the next pass (`rest = run(...); history = ...; if stored: return rest; return
        # merged`: jax-numerical-operators' one-shot recursion after a remesh, fresh set AO)
        ends_leaving = bool(statements) and leaves(statements[-1], own)
        for i, stmt in enumerate(statements):
            if isinstance(stmt, cst.SimpleStatementLine):
                if leaves(stmt, own) or ends_leaving and not any(_continues(later) for later in statements[i + 1:]):
                    found.update(id(n) for n in _descendants_in_body(stmt))
                continue
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            inner = own and not isinstance(stmt, (cst.For, cst.While))
            for body in _blocks(stmt):
                block(body, inner)

    block(loop.body.body, True)
    return frozenset(found)


def _continues(stmt: cst.CSTNode) -> bool:
    """A `continue` of the loop around `stmt` (not of a loop nested in it)."""
    return jumps(stmt, (cst.Continue,))


def jumps(node: cst.CSTNode, kinds: tuple = (cst.Break, cst.Continue)) -> bool:
    """A `break` or `continue` (of `kinds`) of the loop around `node`, not of a loop or def nested in it."""
    return any(isinstance(n, kinds) for n in _descendants_in_body(node))


def _descendants_in_body(root: cst.CSTNode):
    """`root` and its descendants, not entering inner loops or other bodies (defs, classes, lambdas)."""
    stack = [root]
    while stack:
        current = stack.pop()
        yield current
        for child in children(current):
            if child.__class__ not in (cst.For, cst.While) and child.__class__ not in _NEW_BODIES:
                stack.append(child)


def _raises(stmt: cst.CSTNode) -> bool:
    """A statement line that ends with `raise`."""
    return _ends_with(stmt, cst.Raise)


def _leaves(stmt: cst.CSTNode) -> bool:
    """A statement that leaves the loop: `break`, `return`, `raise` (last on its line)."""
    return _ends_with(stmt, (cst.Break, cst.Return, cst.Raise))


def _ends_with(stmt: cst.CSTNode, kinds) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and bool(stmt.body) and isinstance(stmt.body[-1], kinds)


def builds_collection(a: "ModuleFacts", loop: cst.CSTNode, call: cst.CSTNode,
                      callee: "FunctionInfo | None" = None) -> bool:
    """`{k: make_wrapper(v) for k, v in items}`: a comprehension keeping one function per item from a
    factory (or one `jax.jit(...)` per item, or one object of a class of the module per item), rather than
    calling the same computation on every item; or a statement loop keeping what such a call gives on each
    pass (`self.steps.append(build_step(c))`, `keeps_per_item`: jax-lab's per-component kernels built in
    `__init__`, fresh set AN)."""
    if isinstance(loop, (cst.For, cst.While)):
        constructs = isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in a.classes
        return (constructs or callee is not None and returns_function(a, callee)) and keeps_per_item(loop, call)
    comp = a.comprehensions.get(loop) if isinstance(loop, cst.CompFor) else None
    if comp is None or isinstance(comp, cst.GeneratorExp):
        return False
    element = comp.value if isinstance(comp, cst.DictComp) else getattr(comp, "elt", None)
    if element is not call:
        return False
    # (`[Block(rin, rout) for rin, rout in pairs]`: one object per item, kept: its constructor, and any jit
    # it makes, runs once for that item, as emlp's layers, fresh set Z)
    constructs = isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in a.classes
    return callee is None or constructs or returns_function(a, callee)


def keeps_per_item(loop: cst.CSTNode, call: cst.CSTNode, wrapped: cst.CSTNode | None = None) -> bool:
    """`for c in constraints: f = jax.jit(make(c)); kept.append(f)`: a statement loop that keeps the wrapper it
    builds on each pass (appended or added to a collection, also inside a constructor call's arguments;
    stored under a key; yielded), as `{k: jax.jit(f_k) for k in ...}` does. Each one is compiled once for its
    item and reused after the loop, so the loop pays one compile per item, not one per use. A wrapper only
    called in the loop (`out.append(f(x))`) is not kept. `wrapped`: a jit-decorated def, kept by its name."""
    if not isinstance(loop, (cst.For, cst.While)):
        return False
    body = descendants(loop.body)
    names = {t.target.value for n in body if isinstance(n, cst.Assign) and n.value is call
             for t in n.targets if isinstance(t.target, cst.Name)}
    if isinstance(wrapped, cst.FunctionDef):
        names.add(wrapped.name.value)

    def holds_wrapper(expr: cst.BaseExpression) -> bool:
        nodes = descendants(expr)
        called = {id(n.func) for n in nodes if isinstance(n, cst.Call)}
        return any((n is call or isinstance(n, cst.Name) and n.value in names) and id(n) not in called
                   for n in nodes)

    for n in body:
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and \
                n.func.attr.value in ("append", "add", "insert", "appendleft") and \
                any(holds_wrapper(arg.value) for arg in n.args):
            return True
        if isinstance(n, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in n.targets) and \
                holds_wrapper(n.value):
            return True
        if isinstance(n, cst.Yield) and isinstance(n.value, cst.BaseExpression) and holds_wrapper(n.value):
            return True
    return False


def new_function_factory(a: "ModuleFacts", func: "FunctionInfo | None", call: cst.BaseExpression,
                         index=None) -> tuple[str, str] | None:
    """`make_step(cfg)`: a call of a function that defines the function it returns (a plain nested def,
    or a lambda), so that every call hands back a new function object; (the factory's name, what it
    returns), else None. Silent wherever another object could come back: a factory that is decorated
    (a cache), rebound (`make_step = functools.cache(make_step)`), async or a generator, or whose
    returned name is rebound in it; and a nested def decorated by a jit (reported where it is built)."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    factory = a.lookup_function(name, func)
    if factory is None or not isinstance(factory.node, cst.FunctionDef) or factory.node.decorators or \
            factory.node.asynchronous is not None or factory.is_method or _rebound(a, func, factory, name):
        return None
    made = []
    for r in own_returns(factory):
        value = r.value
        if isinstance(value, cst.Lambda):
            made.append("a lambda")
        elif isinstance(value, cst.Name) and value.value in factory.local_defs and \
                value.value not in factory.assignments and \
                not factory.local_defs[value.value].node.decorators:
            made.append(f"`{value.value}`")
        else:
            return None
    if not made or _yields(factory) or memoized(a, factory, index):
        return None
    return name, made[0]


def _rebound(a: "ModuleFacts", func: "FunctionInfo | None", factory: "FunctionInfo", name: str) -> bool:
    """Whether `name`, where it is called, may be something else than the def `factory`."""
    f = func
    while f is not None and f is not factory.parent:
        if name in f.params or name in f.assignments:
            return True
        f = f.parent
    return name in (factory.parent.assignments if factory.parent is not None else a.module_assignments)


def _yields(info: "FunctionInfo") -> bool:
    return any(node.__class__ is cst.Yield for node in _walk(info.node.body))


def returns_function(a: "ModuleFacts", info: "FunctionInfo") -> bool:
    """Every `return` of `info` hands back a function: a nested def, a lambda, or a transform's result."""
    returns = own_returns(info)
    return bool(returns) and all(
        isinstance(r.value, cst.Name) and r.value.value in info.local_defs or isinstance(r.value, cst.Lambda)
        or isinstance(r.value, cst.Call) and a.call_names.get(r.value) in jaxapi.TRANSFORMS for r in returns)


def own_returns(info: "FunctionInfo") -> list[cst.Return]:
    """The `return` statements of a def's own body (not of defs, lambdas or classes nested in it), found
    once per def: every call of a helper asks."""
    if info.own_returns is None:
        found: list[cst.Return] = []
        if isinstance(info.node, cst.FunctionDef):
            # statements only: a `return` is never inside an expression (but in a lambda or nested def)
            walk_statements(info.node.body, _ReturnCollector(found))
        info.own_returns = found
    return info.own_returns


class _ReturnCollector:
    def __init__(self, found: list) -> None:
        self.found = found

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


# ------------------------------------------------------------------------------ memoized code


def memoized(a: "ModuleFacts", func: "FunctionInfo | None", index=None) -> bool:
    """`func` (or a function enclosing it) runs once per distinct key: a memoizing decorator."""
    return _decorated(func, lambda parent, decorator: _is_memoizer(a, parent, decorator, index))


def jitted_by_project_decorator(a: "ModuleFacts", func: "FunctionInfo | None", index=None) -> bool:
    """`@jit_with_docstring(static_argnames=["fun"])` above `func` (or a function enclosing it): a project
    decorator whose body applies `jax.jit` (the index's jit makers) stages the function, so a jit created
    in it runs while that is traced, inlined (autopdex's `precompute_*`, fresh set N)."""
    makes_jit = getattr(index, "makes_jit", None)
    if makes_jit is None:
        return False
    module = a.scope.module_name

    def makes_a_jit(parent, decorator) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        q = _qualify(a, parent, target)
        if q is None and isinstance(target, cst.Name) and target.value in a.module_defs and module:
            q = f"{module}.{target.value}"
        return q is not None and "." in q and makes_jit(q)

    return _decorated(func, makes_a_jit)


def _decorated(func: "FunctionInfo | None", test) -> bool:
    """Whether a decorator of `func` or of a function enclosing it passes `test(enclosing function, decorator
    expression)`."""
    f = func
    while f is not None:
        node = f.node
        if isinstance(node, cst.FunctionDef):
            for dec in node.decorators:
                if test(f.parent, dec.decorator):
                    return True
        f = f.parent
    return False


def _is_memoizer(a: "ModuleFacts", func, decorator: cst.BaseExpression, index) -> bool:
    target = decorator.func if isinstance(decorator, cst.Call) else decorator
    q = _qualify(a, func, target)
    if q in jaxapi.MEMOIZERS:
        return True
    name = dotted(target)
    if name is not None and name in a.module_defs:
        return _body_memoizes(a, a.module_defs[name])
    return bool(q and index is not None and hasattr(index, "is_memoizer") and index.is_memoizer(q))


def _body_memoizes(a: "ModuleFacts", info: "FunctionInfo") -> bool:
    stack: list[cst.CSTNode] = [info.node]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Name, cst.Attribute)) and info.scope.qualify(node) in jaxapi.MEMOIZERS:
            return True
        if isinstance(node, cst.Attribute):
            stack.append(node.value)
            continue
        stack.extend(children(node))
    return False


def stored_per_key(a: "ModuleFacts", func: "FunctionInfo | None", creation_node: cst.CSTNode) -> bool:
    """Built once per key or once per object: the dict-cache idiom `cache[key] = jax.jit(...)`, and lazy
    initialisation, `if self._fn is None: self._fn = jax.jit(...)` (also `not hasattr(self, "_fn")`, a
    global tested the same way, or `if self._fn is not None: return self._fn` before it; easydel's cached
    scoring function, fresh set O) -- directly or through a name."""
    if func is None or not isinstance(func.node, cst.FunctionDef):
        return False
    names = {name for name, exprs in func.assignments.items() if any(_holds(e, creation_node) for e in exprs)}
    # `@jax.jit def forward_fn` then `cache[key] = forward_fn`: the decorated def's name holds the wrapper
    names |= {f.name for f in a.functions if f.parent is func and isinstance(f.node, cst.FunctionDef) and
              any(d is creation_node or d.decorator is creation_node for d in f.node.decorators)}
    code = a.module.code_for_node  # (libcst renders the source: only for the assignments that hold it)
    entries = list(_assignments(func.node.body))
    for node, unset in entries:
        value = node.value
        if _holds(value, creation_node) or isinstance(value, cst.Name) and value.value in names:
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Subscript):
                    return True
                if _outlives_call(func, t):
                    tested = unset(code)
                    if code(t) in tested or _initialises(func, entries, tested, code):
                        return True
    return False


def _initialises(func: "FunctionInfo", entries, unset: set[str], code) -> bool:
    """Whether the block a guard `unset` opens sets what the guard tests (`if not hasattr(self, "_tv0"):
    self._tv0 = ...; self._fns = build(...)`): a lazy initialisation, so everything stored on the object
    in it is built once per object (cosmocnc_jax's cached sigma functions, fresh set BK)."""
    return bool(unset) and any(
        any(_outlives_call(func, t.target) and code(t.target) in unset for t in node.targets) and other(code) >= unset
        for node, other in entries)


def _holds(value: cst.BaseExpression, node: cst.CSTNode) -> bool:
    """`value` is `node`, or a tuple/list literal with it among its elements (`hit = (consts, jax.jit(...),
    treedef)` stored in the cache as one entry: jax-numerical-operators' march cache, fresh set AO)."""
    if value is node:
        return True
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(_holds(el.value, node) for el in value.elements)
    return False


def _outlives_call(func: "FunctionInfo", target: cst.BaseExpression) -> bool:
    """Whether what is assigned to `target` is still there at the next call: an attribute, or a name the
    function declares `global`/`nonlocal` (a local starts unset on every call)."""
    if isinstance(target, cst.Attribute):
        return True
    if not isinstance(target, cst.Name):
        return False
    return any(isinstance(n, (cst.Global, cst.Nonlocal)) and any(g.name.value == target.value for g in n.names)
               for n in _walk(func.node.body))


def computed_once_per_key(a: "ModuleFacts", func: "FunctionInfo | None", call: cst.Call) -> bool:
    """`if key not in cache: cache[key] = f(x, n)` (or `if self._y is None: self._y = f(x, n)`): the call
    runs once per key of a memo dict, however often the loop around it runs, so what it passes takes one
    value per key (tunix's fused-weight cache, fresh set M)."""
    body = func.node.body if func is not None and isinstance(func.node, cst.FunctionDef) else a.module
    code = a.module.code_for_node
    for node, unset in _assignments(body):
        if node.value is call:
            return any(_fills_unset(func, target.target, unset(code), code) for target in node.targets)
    return False


def _fills_unset(func: "FunctionInfo | None", target: cst.BaseExpression, unset, code) -> bool:
    """Assigning `target` sets what a test said is not set yet (`unset`, from `_unset_by`): `cache[key]`
    under `key not in cache`, `self._fn` under `self._fn is None`."""
    if isinstance(target, cst.Subscript) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
        return f"{code(target.slice[0].slice.value)} in {code(target.value)}" in unset
    return func is not None and _outlives_call(func, target) and code(target) in unset


def filled_once_per_key(a: "ModuleFacts", func: "FunctionInfo | None", node: cst.CSTNode) -> bool:
    """`node` sits in the body of a test that fills what it checks: `if key not in cache: ...; cache[key] =
    ...` (or `if self._fn is None: ... self._fn = ...`), or `if state["gen"] != self.generation: ...;
    state["gen"] = self.generation` (`if loss is not self._loss: ...; self._loss = loss`) -- the body runs
    once per key (per change of what it tracks), however often the code around it runs (jaxvacua's kernel
    cache, jaxFMM's rebuild on a new setup, fresh set BC; SeapoPym-JAX's evaluator, fresh set BG).
    The helpers the body calls to build what it stores run as often."""
    root = func.node.body if func is not None and isinstance(func.node, cst.FunctionDef) else a.module
    regions = a.filled_regions.get(id(root))
    if regions is None:
        regions = a.filled_regions[id(root)] = _filled_regions(a, func, root)
    return id(node) in regions


def _filled_regions(a: "ModuleFacts", func: "FunctionInfo | None", root: cst.CSTNode) -> frozenset[int]:
    code = a.module.code_for_node
    found: set[int] = set()
    for stmt in _walk(root):
        if isinstance(stmt, cst.If) and _fills_its_test(func, stmt, code):
            found.update(id(n) for n in _walk(stmt.body))
    return frozenset(found)


def _fills_its_test(func: "FunctionInfo | None", stmt: cst.If, code) -> bool:
    unset = _unset_by(stmt.test, code)
    tracked = _tracked_change(stmt.test, code)
    if not unset and tracked is None:
        return False
    for assign in _walk(stmt.body):
        if not isinstance(assign, cst.Assign):
            continue
        for target in assign.targets:
            t = target.target
            if _fills_unset(func, t, unset, code):
                return True
            if tracked is not None and (code(t), code(assign.value)) in (tracked, tracked[::-1]) and \
                    (func is None or _outlives_call(func, t) or isinstance(t, cst.Subscript)):
                return True
    return False


def _tracked_change(test: cst.BaseExpression, code) -> tuple[str, str] | None:
    """`stored != current` (or `current is not stored`, either order): (stored, current), the assignment
    that makes the test false again."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.comparisons[0].operator, (cst.NotEqual, cst.IsNot)):
        return code(test.left), code(test.comparisons[0].comparator)
    return None


def _assignments(body: cst.CSTNode):
    """Each assignment in a body (not in nested defs), with what the guards around it say is not set yet
    there: a function of `code` giving texts -- `self._fn` (from `self._fn is None`, `not self._fn`,
    `not hasattr(self, "_fn")`), `key in cache` (from `key not in cache`). A guard that returns when the
    thing is set (`if self._fn is not None: return self._fn`) holds for the statements after it."""
    stack: list[tuple[cst.CSTNode, tuple]] = [(body, ())]
    while stack:
        node, tests = stack.pop()
        if isinstance(node, cst.Assign):
            yield node, lambda code, tests=tests: {t for test in tests for t in _unset_by(test, code)}
            continue
        if node.__class__ in _NEW_BODIES and node is not body:
            continue
        if isinstance(node, cst.If):
            stack.append((node.body, (*tests, node.test)))
            if node.orelse is not None:
                stack.append((node.orelse, tests))
            continue
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            after = tests
            for stmt in node.body:
                stack.append((stmt, after))
                if isinstance(stmt, cst.If) and stmt.orelse is None and ends_in_return(stmt.body):
                    after = (*after, cst.UnaryOperation(cst.Not(), stmt.test))  # past `if set: return`
            continue
        # (statements only: an assignment is never inside an expression)
        stack.extend((child, tests) for child in children(node) if statement_part(child.__class__))


def ends_in_return(block: cst.BaseSuite) -> bool:
    """Does a branch end in a `return`?"""
    last = block.body[-1] if block.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, cst.Return)


def _unset_by(test: cst.BaseExpression, code) -> list[str]:
    """What a test being true says is not set: `x is None` / `not x` -> x; `not hasattr(o, "a")` -> o.a;
    `k not in d` -> "k in d"; `not (x is not None)` -> x; `getattr(o, "a", None)` stands for o.a; and of
    each side of an `and`."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_unset_by(test.left, code), *_unset_by(test.right, code)]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if isinstance(inner, (cst.Name, cst.Attribute)):
            return [code(inner)]
        read = _getattr_read(inner, code)
        if read is not None:
            return [read]  # `not getattr(self, "_fn", None)`
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "hasattr" and \
                len(inner.args) == 2 and isinstance(inner.args[1].value, cst.SimpleString):
            return [f"{code(inner.args[0].value)}.{inner.args[1].value.evaluated_value}"]
        if isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 and \
                isinstance(inner.comparisons[0].operator, cst.IsNot) and \
                code(inner.comparisons[0].comparator) == "None":
            return [code(inner.left)]
        return []
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op, right = test.comparisons[0].operator, test.comparisons[0].comparator
        if isinstance(op, cst.Is) and code(right) == "None":
            return [_getattr_read(test.left, code) or code(test.left)]
        if isinstance(op, cst.NotIn):
            return [f"{code(test.left)} in {code(right)}"]
    return []


def _getattr_read(expr: cst.BaseExpression, code) -> str | None:
    """`getattr(o, "a", default)`: the text `o.a`; else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "getattr" and \
            len(expr.args) == 3 and isinstance(expr.args[1].value, cst.SimpleString):
        name = expr.args[1].value.evaluated_value
        if isinstance(name, str) and name.isidentifier():
            return f"{code(expr.args[0].value)}.{name}"
    return None


# What starts a body of its own. (A class test rather than isinstance: libcst's concrete node classes have no
# subclasses, and isinstance against them goes through ABCMeta, several times slower on this hot path.)
_NEW_BODIES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def _walk(root: cst.CSTNode):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.__class__ not in _NEW_BODIES or node is root:
            stack.extend(children(node))


# ------------------------------------------------------------------------------ traced or never dispatched


def inside_traced_code(func: "FunctionInfo | None") -> str | None:
    """How the code around a jit creation is itself traced: "staged" (under jit, a lax body, or a helper of
    one: the inner jit is inlined into the outer trace, compiled once), "grad" (under plain grad: a stable
    function's wrapper is traced once per outer call, but a new function object still compiles each time,
    measured on JAX 0.10.2), or None."""
    found = None
    f = func
    while f is not None:
        if f.traced and not f.callback:
            if f.traces_constants:
                return "staged"
            if all(c.kind is ContextKind.GRAD for c in f.contexts):
                found = "grad"
        f = f.parent
    return found


def inside_outer_jit(a: "ModuleFacts", creation_node: cst.CSTNode) -> bool:
    """`jax.jit(jax.vmap(jax.jit(f)))`: the inner wrapper, handed through transforms to an outer jit, is
    traced into the outer one's program and never compiles on its own (measured: one compile per outer
    wrapper, named after `f`); what re-making them costs is the outer creation's to say (jaxrenderer's
    benchmark notebooks, fresh set AF)."""
    for outer in a.jit_creations.values():
        node = outer.node
        if node is creation_node or not isinstance(node, cst.Call):
            continue
        inner = next((arg.value for arg in node.args if arg.keyword is None and not arg.star), None)
        for _ in range(4):  # through the transforms around it
            if inner is creation_node:
                return True
            q = a.call_names.get(inner) if isinstance(inner, cst.Call) else None
            if q not in jaxapi.TRANSFORMS or not jaxapi.TRANSFORMS[q].returns_function:
                break
            inner = next((arg.value for arg in inner.args if arg.keyword is None and not arg.star), None)
    return False


def only_lowered(a: "ModuleFacts", func: "FunctionInfo | None", creation_node: cst.CSTNode) -> bool:
    """`jax.jit(f).lower(...)`, or a name bound to the wrapper used only as `g.lower(...)`/`g.trace(...)` or
    handed to `jax.export.export`: the wrapper is compiled ahead of time, never called."""
    uses = _name_uses(a, func)
    if id(creation_node) in uses.lowered_ids:
        return True
    names = {name for name, exprs in (func.assignments if func else a.module_assignments).items()
             if creation_node in exprs}
    return bool(names) and all(0 < uses.reads.get(n, 0) == uses.lowered.get(n, 0) for n in names)


# A transform or lax body given a wrapper calls it then and there (`jax.vmap(jax.jit(f))(x)` compiles `f`'s
# wrapper eagerly), so handing a wrapper to one is a call, not a hand-over.
_CALLS_WHAT_IT_IS_GIVEN = frozenset({*jaxapi.TRANSFORMS, *jaxapi.LAX_BODIES, *jaxapi.LAX_SWITCH, *jaxapi.TREE_MAPS,
                                     *jaxapi.CALLERS})


class _Uses:
    """How the names of one function body (or the module) are read: in all, and as a wrapper handed only
    to lowering; and which expressions are lowered directly. Built once per body (bodies with many jit
    creations would otherwise be walked once per creation)."""

    def __init__(self, a: "ModuleFacts", func: "FunctionInfo | None") -> None:
        self.reads: dict[str, int] = {}
        self.lowered: dict[str, int] = {}
        self.lowered_ids: set[int] = set()
        self.passed: dict[str, int] = {}  # read as a call's argument (`SaveAt(fn=save)`)
        self.passed_ids: set[int] = set()
        body = func.node.body if func is not None and isinstance(func.node, cst.FunctionDef) else a.module
        called_params: dict[int, set[str]] | None = None
        for node in _walk(body):
            if isinstance(node, cst.Call) and a.call_names.get(node) not in _CALLS_WHAT_IT_IS_GIVEN:
                site = a.call_sites.get(node)
                for arg in node.args:
                    if site is not None and site.callee is not None and not site.callee.info.traced:
                        if called_params is None:
                            called_params = _called_parameters(a)
                        if _receiving_parameter(site, arg) in called_params.get(id(site.callee.info), ()):
                            continue  # a function of the module that calls what it is given: it is called
                    self.passed_ids.add(id(arg.value))
                    if isinstance(arg.value, cst.Name):
                        self.passed[arg.value.value] = self.passed.get(arg.value.value, 0) + 1
                f = node.func
                target = None
                if isinstance(f, cst.Attribute) and f.attr.value in jaxapi.LOWERING_METHODS:
                    target = f.value
                elif a.call_names.get(node) in jaxapi.EXPORTERS and node.args:
                    target = node.args[0].value
                if target is not None:
                    self.lowered_ids.add(id(target))
                    if isinstance(target, cst.Name):
                        self.lowered[target.value] = self.lowered.get(target.value, 0) + 1
            elif isinstance(node, cst.Name):
                self.reads[node.value] = self.reads.get(node.value, 0) + 1
        # Assignment targets are Name nodes too, not reads.
        for name, exprs in (func.assignments if func is not None else a.module_assignments).items():
            if name in self.reads:
                self.reads[name] -= len(exprs)


def _called_parameters(a: "ModuleFacts") -> dict[int, set[str]]:
    """id of each function of the module -> the names it calls that are its own parameters."""
    called: dict[int, set[str]] = {}
    for site in a.call_sites.values():
        f, info = site.node.func, site.func
        if isinstance(f, cst.Name) and info is not None and f.value in (*info.positional, *info.kwonly):
            called.setdefault(id(info), set()).add(f.value)
    return called


def _receiving_parameter(site, arg: cst.Arg) -> str | None:
    """The parameter of the module's function `site` calls that `arg` fills, where the call says plainly."""
    if arg.keyword is not None:
        return arg.keyword.value
    positional = [each for each in site.node.args if each.keyword is None]
    if arg.star or any(each.star for each in positional):
        return None
    free = site.callee.info.free_positional(site.callee.bound, site.callee.bound_self)
    index = next(i for i, each in enumerate(positional) if each is arg)
    return free[index] if index < len(free) else None


def only_passed_on(a: "ModuleFacts", func: "FunctionInfo | None", creation_node: cst.CSTNode,
                   wrapped: cst.CSTNode) -> bool:
    """A wrapper never called where it is made, only handed to other code as an argument
    (`diffrax.SaveAt(fn=save_nodes)`): it compiles where that code calls it, inside a trace not at all
    (inlined), so whether re-making it costs a compile is that code's to say. Handed to code that calls
    it -- a transform or lax body (`lax.scan(jax.jit(step), ...)`), a tree map, a library function known
    to call what it is given (`blackjax.smc.base.step`), a function of the module calling the parameter
    it fills -- it is called there, on every pass."""
    uses = _name_uses(a, func)
    if id(creation_node) in uses.passed_ids:
        return True
    if isinstance(wrapped, cst.FunctionDef) and any(creation_node is d for d in wrapped.decorators):
        names = {wrapped.name.value}
    else:
        table = func.assignments if func is not None else a.module_assignments
        names = {name for name, exprs in table.items() if creation_node in exprs}
    return bool(names) and all(0 < uses.reads.get(n, 0) == uses.passed.get(n, 0) for n in names)


def only_handed_on(a: "ModuleFacts", func: "FunctionInfo | None") -> bool:
    """Does `func` run only where code it is handed to calls it, and maybe inside a trace? Its outermost
    enclosing def, a module-level function, is never called by name in the module, only passed as an
    argument, each time to a function of the module that traces code of its own (`update_marginals(
    get_vmp_messages, ...)`, whose `lax.scan` body calls it): there a jitted call compiles nothing of its
    own, so what its calls would recompile is not known here. (Handed to another library's wrapper, or
    to nothing, it is the module's API, called eagerly.)"""
    f = func
    while f is not None and f.parent is not None:
        f = f.parent
    if f is None or f.class_name is not None or not isinstance(f.node, cst.FunctionDef):
        return False
    known = a.handed_on.get(f.name)
    if known is not None:
        return known
    called, passed = a.function_references().get(f.name, (0, 0))
    found = False
    if passed and not called:
        receivers = [site.callee.info for site in a.call_sites.values() if site.callee is not None and any(
            isinstance(arg.value, cst.Name) and arg.value.value == f.name for arg in site.node.args)]
        found = len(receivers) == passed and all(any(g.traced and g.parent is r for g in a.functions)
                                                 for r in receivers)
    a.handed_on[f.name] = found
    return found


def only_used_by_nested(a: "ModuleFacts", func: "FunctionInfo | None", creation_node: cst.CSTNode,
                        wrapped: cst.CSTNode) -> bool:
    """A wrapper the function that makes it never uses itself -- never called, returned or handed on there,
    only read by its nested defs (`@jax.jit def check_needs_rebuild` called by an `update_fn` handed back
    inside an object): it compiles only when whoever receives those calls them (jax-md's multi-image
    neighbor lists, whose test loop only allocates; the second corpus's review)."""
    if func is None:
        return False
    uses = _name_uses(a, func)
    if isinstance(wrapped, cst.FunctionDef) and any(creation_node is d for d in wrapped.decorators):
        names = {wrapped.name.value}
    else:
        names = {name for name, exprs in func.assignments.items() if creation_node in exprs}
        if not names:
            return False
    return all(uses.reads.get(n, 0) == 0 for n in names) and \
        any(n in _names_of_nested_reads(func) for n in names) and not _calls_its_readers(func, names)


def _calls_its_readers(func: "FunctionInfo", names: set[str]) -> bool:
    """The function itself calls a nested def or lambda that reads one of `names` (`dev = lambda a:
    _devfn(a)` then `z = dev(x)`): the wrapper runs on every run of the function after all (jax-morpho's
    per-point developer, fresh set AQ's recall sample)."""
    readers: set[str] = set()
    for node in descendants(func.node.body):
        if isinstance(node, cst.FunctionDef) and names_read_any(node.body, names):
            readers.add(node.name.value)
    for name, exprs in func.assignments.items():
        if any(isinstance(e, cst.Lambda) and names_read_any(e.body, names) for e in exprs):
            readers.add(name)
    return bool(readers) and any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in readers
                                 for n in _walk(func.node.body))


def _names_of_nested_reads(func: "FunctionInfo") -> set[str]:
    """The names the nested defs and lambdas of `func` read."""
    out: set[str] = set()
    for node in descendants(func.node.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            out |= {n.value for n in descendants(node.body) if isinstance(n, cst.Name)}
    return out


def _name_uses(a: "ModuleFacts", func: "FunctionInfo | None") -> _Uses:
    uses = a.name_uses.get(id(func))
    if uses is None:
        uses = a.name_uses[id(func)] = _Uses(a, func)
    return uses


def wrapper_reused(a: "ModuleFacts", func: "FunctionInfo | None", creation_node: cst.CSTNode,
                   creation_loops: tuple[cst.CSTNode, ...]) -> bool:
    """A wrapper bound to a name and then dispatched many times per creation, or never dispatched by
    itself: called in a loop that does not re-create it (`step = jax.jit(env.step)` then `while ...:
    step(s)`), read by a nested function or lambda (called when that runs; inside traced code it is
    inlined into the outer trace), or returned (the caller keeps it). Re-wrapping costs once per creation,
    so such a wrapper's creation is not where dispatch overhead piles up."""
    table = func.assignments if func is not None else a.module_assignments
    names = {name for name, exprs in table.items() if creation_node in exprs}
    if not names:
        return False
    body = func.node.body if func is not None and isinstance(func.node, cst.FunctionDef) else a.module
    outer = set(map(id, creation_loops))
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(body, False, False)]  # node, in a new loop, nested
    while stack:
        node, looped, nested = stack.pop()
        cls = node.__class__
        if cls is cst.Name and node.value in names and (nested or looped):
            return True
        if cls is cst.Return and node.value is not None and names & _names_in(node.value):
            return True
        if cls is cst.Call and node.func.__class__ is cst.Name and node.func.value in names and looped:
            return True
        inner_loop = looped or (cls in (cst.For, cst.While) and id(node) not in outer)
        inner_nested = nested or (cls in _NEW_BODIES and node is not body)
        stack.extend((child, inner_loop, inner_nested) for child in children(node))
    return False


def _names_in(expr: cst.CSTNode) -> set[str]:
    out = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.__class__ is cst.Name:
            out.add(node.value)
        stack.extend(children(node))
    return out
