"""What is known of one module: its functions and classes, and what the walks of its code recorded.

``ModuleFacts`` is the store the evaluator (``jitlint.analysis.eval``) writes and the rules read (through
``jitlint.analysis.facade.ModuleAnalysis``): the module's functions, classes and scopes (collected once, before
any walk), the values and sites recorded in traced code, the calls, jit applications and creations, the
module's globals, loggers and assignments; and the queries on its classes (methods, framework, pytree
fields). How often each body is walked, and in which calling contexts, is the solver's
(``jitlint.analysis.solver``).
"""

from __future__ import annotations

import weakref
from typing import Iterator

import libcst as cst

from jitlint.analysis import jaxapi
from jitlint.analysis.literals import kwarg, literal_const
from jitlint.analysis.names import Scope, dotted
from jitlint.analysis.objects import FunctionInfo, JitBinding, TraceEdge, Value, annotation_kind
from jitlint.analysis.qualnames import canonical
from jitlint.analysis.sites import CallSite, JitCreation, Site
from jitlint.analysis.values import Const, Taint
from jitlint.source.cstwalk import TopLevel, children, descendants, walk_statements


class ModuleFacts:
    """What is known of one module (see the module's docstring)."""

    def __init__(self, module: cst.Module, module_name: str | None = None, is_package: bool = False):
        self.module = module
        self.scope = Scope(module_name=module_name, is_package=is_package)
        self.functions: list[FunctionInfo] = []
        self.def_infos: dict[cst.FunctionDef, FunctionInfo] = {}
        self.module_defs: dict[str, FunctionInfo] = {}
        self.classes: dict[str, dict[str, FunctionInfo]] = {}
        self.class_bases: dict[str, list[str]] = {}
        self.taints: dict[cst.CSTNode, Taint] = {}
        # The calling contexts (Variant keys) whose walks found each of those values traced: a report's
        # witness is a chain into one of them, not into a context where the line is fine.
        # (with the highest trace level the value had in each: under a jit, or only under grad)
        self.taint_contexts: dict[cst.CSTNode, dict[tuple, int]] = {}
        self.sites: dict[cst.CSTNode, Site] = {}
        # Each calling context's site of a node (a helper walked from two callers has two): a report's
        # message names the context its witness goes into (witness.claim_site), not the last one walked.
        self.variant_sites: dict[cst.CSTNode, dict[tuple | None, Site]] = {}
        self._claim_sites: dict[cst.CSTNode, Site] = {}
        self._sites_by_class: dict[type, list[tuple[int, cst.CSTNode]]] = {}  # (see sites_of)
        self._sites_indexed = 0
        self.call_sites: dict[cst.Call, CallSite] = {}
        # How each traced function comes to be traced (the witnesses' steps), keyed per (kind, node, the
        # caller's context, the callee's context).
        self.trace_edges: dict[FunctionInfo, dict[tuple, TraceEdge]] = {}
        # What a call of a module function gives alike on every return in the caller's context, per (call,
        # the caller's context key): `Variant.return_static` (`if not _movable(x): return x` decided).
        self.call_statics: dict[tuple[int, tuple | None], object] = {}
        self.call_names: dict[cst.Call, str | None] = {}  # qualified callee (builtins by bare name)
        # Calls from traced code to functions the module imports (jitlint.analysis.foreign): per (call,
        # the caller's context key), (caller, call, qualified callee, argument specs, values, traces constants)
        self.foreign_calls: dict[tuple[int, tuple], tuple] = {}
        # The contexts other modules' traced code gives this module's functions (foreign.ForeignCall)
        self.incoming: tuple = ()
        # What a name of another project module holds (ProjectIndex.value_kind: "returns array", ...), or
        # None without a project index
        self.imported_kind = None
        self.module_env: dict[str, Value] = {}
        self.jax_constants: set[str] = set()  # module globals holding concrete jax arrays
        # Names of those read as they are in traced code (`float(SCALE)`): the concrete array itself, not a
        # tracer, until a jnp/lax function or an operator computes with it (rules/_helpers.traced_in).
        self.bare_constants: set[cst.Name] = set()
        self.loggers: set[str] = set()  # module/local names bound to logging.getLogger(...)
        self.jit_creations: dict[cst.CSTNode, JitCreation] = {}
        self.bindings: dict[cst.CSTNode, JitBinding] = {}  # every jit application with its options
        self._skipping: dict[int, bool] = {}  # skips_when_traced, per function
        self.module_assignments: dict[str, list[cst.BaseExpression]] = {}
        self.module_unpacked: set[str] = set()  # module names also bound to a part of an unpacked value
        # The iterables among those sources: a loop's target is bound to one *element* of it (ids).
        self.iteration_sources: set[int] = set()
        self.comprehensions: dict[cst.CompFor, cst.BaseExpression] = {}  # each `for` clause -> its comprehension
        self._lambda_infos: dict[cst.Lambda, FunctionInfo] = {}
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._literals: dict[str, cst.BaseExpression] | None = None  # (see module_literals)
        self._class_node_cache: dict[str, cst.ClassDef] | None = None
        self._registered_cache: frozenset[str] | None = None
        self._aux_field_cache: dict[str, frozenset[str]] = {}
        # Local linen Module classes whose `apply` a TrainState holds (`TrainState.create(apply_fn=m.apply)`).
        self.apply_fn_classes: set[str] = set()
        # (class, attribute) -> the function or object `self.attribute = ...` stores (None: several)
        self.attribute_values: dict[tuple[str, str], Value] = {}
        self.name_uses: dict[int, object] = {}  # runs.py's per-body name uses, built on first need
        self.failure_regions: dict[int, frozenset[int]] = {}  # runs.py: per loop, what runs only on failure
        # runs.py: per function (id of its node, or of the module), the nodes in bodies of tests they fill
        self.filled_regions: dict[int, frozenset[int]] = {}
        self.leaving_regions: dict[int, frozenset[int]] = {}  # runs.py: per loop, what runs once, then leaves
        self.one_pass_regions: dict[object, frozenset[int]] = {}  # runs.py: per loop, nodes run on one pass only
        self._repetitions = None  # repetition.py: the functions that run repeatedly, worked out on first use
        self.name_loops: dict[int, bool] = {}  # runs.py: per loop, whether it iterates names
        self.size_loops: dict[int, bool] = {}  # runs.py: per loop, whether it iterates array sizes
        self.command_line_loops: dict[int, bool] = {}  # runs.py: per loop, whether it iterates typed values
        self.patching_loops: dict[int, bool] = {}  # runs.py: per loop, whether it patches imported state
        self.globals_declared: dict[int, frozenset[str]] = {}  # runs.py: per def, the names it declares `global`
        self.configuration_loops: dict[int, bool] = {}  # runs.py: per loop, whether its items are configurations
        # lint/exports.py: per (class, attribute), the one project class its methods assign `self.attr`
        self.attribute_classes: dict[tuple[str, str], str | None] = {}
        self._def_statements: dict[cst.FunctionDef, int] = {}  # each def -> the top-level statement around it
        self._parts: dict[int, cst.CSTNode] | None = None  # (see _statement_guess)
        self._function_of: dict[int, FunctionInfo] | None = None  # (see function_of)
        self._derivative_rules: dict[int, list] | None = None  # (see derivative_rules)
        self.overloaded: frozenset[str] = frozenset()  # module-level names of several overloads (`@multimethod`)
        self._references: dict[str, tuple[int, int]] | None = None  # (see function_references)
        self.handed_on: dict[str, bool] = {}  # runs.only_handed_on, per module-level function
        self.used_names: dict[int, frozenset[str]] = {}  # evaluator: per function, the names it uses itself
        # (for fixes and positions; a weak reference: a cycle through the index would keep each file's
        # analysis alive until the cyclic collector runs, 45 MiB more at the peak of a corpus run)
        self.top_level = TopLevel(module, weakref.WeakMethod(self._statement_guess))
        _Collector(self).collect()

    # ---------------------------------------------------------------- queries for rules
    def taint(self, expr: cst.CSTNode) -> Taint | None:
        return self.taints.get(expr)

    def owner_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The recorded call an argument belongs to (`f(x, n=len(b))` for `len(b)`), or the recorded
        statement or expression a test belongs to (`if x > 0:` for `x > 0`)."""
        self._index_parts()
        return self._parts.get(id(node))

    def function_references(self) -> dict[str, tuple[int, int]]:
        """Name -> (how often the module calls it by that name, how often it passes it as an argument),
        anywhere in the module. Built on first use, from the recorded calls."""
        if self._references is None:
            refs: dict[str, list[int]] = {}
            for node in self.call_sites:  # (every call: the walks visit all of the module's code)
                if isinstance(node.func, cst.Name):
                    refs.setdefault(node.func.value, [0, 0])[0] += 1
                for arg in node.args:
                    if isinstance(arg.value, cst.Name):
                        refs.setdefault(arg.value.value, [0, 0])[1] += 1
            self._references = {name: (c, p) for name, (c, p) in refs.items()}
        return self._references

    def function_of(self, node: cst.CSTNode) -> FunctionInfo | None:
        """The innermost def or lambda holding `node` (None at module level). Indexed on first use: only
        files with something to report ask (for their witnesses)."""
        if self._function_of is None:
            index: dict[int, FunctionInfo] = {}
            depth = {}
            for info in self.functions:
                d, p = 0, info.parent
                while p is not None:
                    d, p = d + 1, p.parent
                depth[id(info)] = d
            for info in sorted(self.functions, key=lambda f: depth[id(f)]):  # inner defs overwrite outer ones
                stack = [info.node.body]
                while stack:
                    n = stack.pop()
                    index[id(n)] = info
                    stack.extend(children(n))
            self._function_of = index
        return self._function_of.get(id(node))

    def _index_parts(self) -> None:
        if self._parts is None:
            self._parts = {}
            for call in self.call_sites:
                for arg in call.args:
                    self._parts[id(arg.value)] = call
            for owner in self.sites:
                test = getattr(owner, "test", None)  # if, while, assert, a conditional expression
                if test is not None:
                    self._parts[id(test)] = owner

    def _statement_guess(self, node: cst.CSTNode) -> int | None:
        """The top-level statement around the def whose walk recorded `node` (a call, a traced site, an
        argument of a call, the test of a site): where the rules' reports and fixes are (`TopLevel` checks
        it). Asked once the analysis is done."""
        if node in self._def_statements:  # a witness's decorated or nested def
            return self._def_statements[node]
        site = self.call_sites.get(node) or self.sites.get(node)
        if site is None:
            self._index_parts()
            owner = self._parts.get(id(node))
            site = self.call_sites.get(owner) or self.sites.get(owner) if owner is not None else None
        func = site.func if site is not None else None
        while func is not None and func.node not in self._def_statements:  # (a lambda: its enclosing def)
            func = func.parent
        return self._def_statements.get(func.node) if func is not None else None

    def star_name(self, name: str, star_binding) -> str | None:
        """What a name no import binds refers to through the module's star imports (`from common import *`
        of a project module that imports jax: `jax.jit`), by `star_binding(module, name)` of the project
        index; None where the module binds the name itself or no star-imported module exports it."""
        if not self.scope.stars or name in self.module_defs or name in self.classes or \
                name in self.module_assignments:
            return None
        for module in self.scope.stars:
            found = star_binding(module, name)
            if found is not None:
                return found
        return None

    def sites_of(self, *types: type) -> Iterator[tuple[cst.CSTNode, Site]]:
        """The recorded sites of nodes of these types, in the order they were recorded."""
        # Some twenty rule queries per file each filtered every site with an isinstance test: the sites
        # are grouped by node class once (again if more were recorded since).
        if self._sites_indexed != len(self.sites):
            self._sites_by_class = {}
            for i, node in enumerate(self.sites):
                self._sites_by_class.setdefault(node.__class__, []).append((i, node))
            self._sites_indexed = len(self.sites)
        groups = [group for cls, group in self._sites_by_class.items() if issubclass(cls, types)]
        sites = self.sites
        for _, node in groups[0] if len(groups) == 1 else sorted(entry for group in groups for entry in group):
            yield node, sites[node]

    # ---------------------------------------------------------------- what the walks need
    def lambda_info(self, node: cst.Lambda, parent: FunctionInfo | None, scope: Scope) -> FunctionInfo:
        info = self._lambda_infos.get(node)
        if info is None:
            qual = f"{parent.qualname}.<lambda>" if parent else "<lambda>"
            info = FunctionInfo(node, "<lambda>", qual, parent, None, scope)
            self._lambda_infos[node] = info
            self.functions.append(info)
        return info

    def scope_for(self, node: cst.CSTNode) -> Scope:
        return self._scopes.get(node, self.scope)

    def module_literals(self) -> dict[str, cst.BaseExpression]:
        """What each module-level `NAME = expr` assigns (the last one): static options may be named."""
        lits = self._literals
        if lits is None:
            lits = {}
            for stmt in self.module.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
                                small.targets[0].target, cst.Name):
                            lits[small.targets[0].target.value] = small.value
            self._literals = lits
        return lits

    def lookup_function(self, name: str, func: FunctionInfo | None) -> FunctionInfo | None:
        """A def visible by this name from inside `func` (lexical scoping; classes skipped)."""
        found = self.enclosing_binding(name, func)
        if found is None:
            return self.module_defs.get(name)
        return None if found is True else found

    def enclosing_binding(self, name: str, func: FunctionInfo | None) -> FunctionInfo | bool | None:
        """What binds `name` read inside `func`, in it or in a function around it, innermost first: a local
        def, or True for a parameter or local (which hides the module's def or value of that name:
        fesom_jax's tests, whose helpers take pytest's `mesh` fixture value as a parameter beside the
        fixture `def mesh()`, fresh set BI); None where only the module may bind it."""
        f = func
        while f is not None:
            if name in f.local_defs:
                return f.local_defs[name]
            if name in f.params or name in f.assignments:
                return True
            f = f.parent
        return None

    def skips_when_traced(self, info: FunctionInfo) -> bool:
        """Whether `info` is decorated by a module function whose wrapper returns before calling it when an
        argument is a tracer (`@skip_if_traced` of `def _wrapper(*args, **kwargs): if is_traced(*args):
        return`, `is_traced` returning True on a tracer test of its arguments): its body never runs under a
        trace that hands it a tracer (jax-ifnt's `print`, fresh set BA)."""
        node = info.node
        if not isinstance(node, cst.FunctionDef) or not node.decorators:
            return False
        known = self._skipping.get(id(info))
        if known is None:
            decorators = [self.module_defs.get(dec.decorator.value) for dec in node.decorators
                          if isinstance(dec.decorator, cst.Name)]
            known = self._skipping[id(info)] = any(
                d is not None and d is not info and self._skipping_wrapper(d) for d in decorators)
        return known

    def _skipping_wrapper(self, decorator: FunctionInfo) -> bool:
        """`decorator` returns a nested def that begins (after its docstring) with `if TEST: return` (or
        `return None`), TEST calling a module function that returns True where one of the wrapper's starred
        arguments is a tracer (one part of an `or` is enough)."""
        body = _own_statements(decorator.node)
        returned = {s.body[0].value.value for s in body if isinstance(s, cst.SimpleStatementLine) and
                    isinstance(s.body[0], cst.Return) and isinstance(s.body[0].value, cst.Name)}
        for wrapper in body:
            if not (isinstance(wrapper, cst.FunctionDef) and wrapper.name.value in returned and
                    isinstance(wrapper.params.star_arg, cst.Param)):
                continue
            first = next(iter(_own_statements(wrapper)), None)
            if not (isinstance(first, cst.If) and first.orelse is None and _returns_none(first.body)):
                continue
            stars = {wrapper.params.star_arg.name.value}
            if isinstance(wrapper.params.star_kwarg, cst.Param):
                stars.add(wrapper.params.star_kwarg.name.value)
            parts, test = [], first.test
            while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
                parts.append(test.right)
                test = test.left
            parts.append(test)
            if any(self._tracer_test_of(part, stars) for part in parts):
                return True
        return False

    def _tracer_test_of(self, test: cst.BaseExpression, stars: set[str]) -> bool:
        """`is_traced(*args)`: a call of a module function returning True on a tracer among its starred
        parameter's items, handed the wrapper's starred arguments."""
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.args and
                all(arg.star == "*" for arg in test.args) and
                any(isinstance(arg.value, cst.Name) and arg.value.value in stars for arg in test.args)):
            return False
        helper = self.module_defs.get(test.func.value)
        return helper is not None and self._true_on_tracers(helper)

    def _true_on_tracers(self, helper: FunctionInfo) -> bool:
        """A body of `if ...: return True` statements, one of them testing `any(isinstance(x, T) for x in
        xs)` over its starred parameter with T a tracer type: True whenever an item is a tracer."""
        star = helper.node.params.star_arg if isinstance(helper.node, cst.FunctionDef) else None
        if not isinstance(star, cst.Param):
            return False
        for stmt in _own_statements(helper.node):
            if not (isinstance(stmt, cst.If) and stmt.orelse is None and _returns_true(stmt.body)):
                return False
            test = stmt.test
            if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "any" and \
                    len(test.args) == 1 and isinstance(test.args[0].value, cst.GeneratorExp):
                gen = test.args[0].value
                elt = gen.elt
                if isinstance(gen.for_in.iter, cst.Name) and gen.for_in.iter.value == star.name.value and \
                        isinstance(elt, cst.Call) and isinstance(elt.func, cst.Name) and elt.func.value == "isinstance" \
                        and len(elt.args) == 2 and helper.scope.qualify(elt.args[1].value) in jaxapi.TRACER_TYPES:
                    return True
        return False

    def derivative_rules(self, info: FunctionInfo) -> list[tuple[FunctionInfo, str, cst.CSTNode]]:
        """The custom derivative rules of a module-level function (`f.defvjp(f_fwd, f_bwd)`, `@f.defjvp`):
        (the rule's def, its role "fwd" / "bwd" / "jvp", where it is attached). JAX traces them where it
        differentiates a traced call of `f` (measured on JAX 0.10.2: under `jit(grad(...))` both get
        tracers; under plain `grad` concrete arrays, as `f` itself)."""
        if self._derivative_rules is None:
            found: dict[str, list[tuple[FunctionInfo, str, cst.CSTNode]]] = {}

            def attach(target: cst.BaseExpression, method: str, rules: list, node: cst.CSTNode) -> None:
                if not isinstance(target, cst.Name):
                    return
                roles = ("fwd", "bwd") if method == "defvjp" else ("jvp",) if method == "defjvp" else ()
                for rule, role in zip(rules, roles):
                    rule_info = self.module_defs.get(rule.value) if isinstance(rule, cst.Name) else None
                    if rule_info is not None:
                        found.setdefault(target.value, []).append((rule_info, role, node))

            for stmt in self.module.body:
                if isinstance(stmt, cst.FunctionDef):
                    for d in stmt.decorators:  # `@f.defjvp`
                        dec = d.decorator
                        if isinstance(dec, cst.Attribute) and dec.attr.value == "defjvp":
                            attach(dec.value, "defjvp", [stmt.name], d)
                elif isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        call = small.value if isinstance(small, cst.Expr) else None
                        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                                call.func.attr.value in ("defvjp", "defjvp"):
                            attach(call.func.value, call.func.attr.value,
                                   [a.value for a in call.args if a.keyword is None and not a.star], call)
            by_def: dict[int, list] = {}
            for name, rules in found.items():
                primal = self.module_defs.get(name)
                if primal is None:  # `f = jax.custom_vjp(g)`: the rules are g's
                    values = self.module_assignments.get(name, [])
                    wrapped = [v.args[-1].value for v in values if isinstance(v, cst.Call) and v.args]
                    primal = self.module_defs.get(wrapped[0].value) if len(wrapped) == 1 and isinstance(
                        wrapped[0], cst.Name) else None
                if primal is not None:
                    by_def.setdefault(id(primal), []).extend(rules)
            self._derivative_rules = by_def
        return self._derivative_rules.get(id(info), [])

    def qualify_text(self, dotted_name: str) -> str | None:
        """`nn.Module` -> `flax.linen.Module` through the module's imports."""
        head, _, rest = dotted_name.partition(".")
        bound = self.scope.bindings.get(head)
        return canonical(bound + ("." + rest if rest else "")) if bound is not None else None

    # ---------------------------------------------------------------- classes and their fields
    def library_bases(self, class_name: str) -> set[str]:
        """Qualified names of the library classes a local class derives from (through local classes)."""
        out: set[str] = set()
        seen: set[str] = set()
        todo = [class_name]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            for base in self.class_bases.get(c, []):
                if base in self.classes:
                    todo.append(base)
                else:
                    q = self.qualify_text(base)
                    if q is not None:
                        out.add(q)
        return out

    def framework_of(self, class_name: str) -> str | None:
        """"linen" / "nnx" / "equinox" for a local class deriving (maybe through local classes) from a
        framework's module base class, else None."""
        for base in self.library_bases(class_name):
            if base in jaxapi.MODULE_BASES:
                return jaxapi.MODULE_BASES[base]
        return None

    def pytree_class(self, class_name: str) -> bool:
        """A class whose instances are pytrees with known fields: a framework Module, a NamedTuple, a
        flax struct or registered dataclass, or a library class in the tables."""
        if class_name in jaxapi.PYTREE_CLASSES:
            return True
        if class_name not in self.classes:
            return False
        if self.framework_of(class_name) or self.library_bases(class_name) & (jaxapi.PYTREE_BASES | set(
                jaxapi.PYTREE_CLASSES)):
            return True
        node = self._class_nodes().get(class_name)
        return node is not None and any(self._pytree_decorator(
            self.qualify_text(dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or ""))
            for d in node.decorators)

    def _pytree_decorator(self, q: str) -> bool:
        """A pytree decorator: JAX's or chex's, or a project function applying one (`jax_md.dataclasses.dataclass`,
        from the project index)."""
        return q in jaxapi.PYTREE_DECORATORS or (
            "." in q and self.imported_kind is not None and self.imported_kind(q) == "pytree decorator")

    def field_kind(self, class_name: str, attr: str, filtered: bool) -> str | None:
        """How a field of a traced pytree of this class is traced: "leaf" (a traced array), "scalar" (a
        Python number by annotation: traced where a transform flattened the pytree), "subtree",
        "static" (declared static metadata, or a non-array under an equinox filter), "variable" (an nnx
        Variable: `field_class` says which), "layer" (a library layer whose call returns an array:
        jaxapi.ARRAY_LAYERS), None (unknown)."""
        table = jaxapi.PYTREE_CLASSES.get(class_name)
        if table is not None:
            return table.get(attr, table.get("*"))
        if class_name not in self._class_nodes():
            return None
        if attr in self._aux_fields(class_name):
            return "static"
        declared = self.declared_fields(class_name).get(attr)
        if declared is not None:
            return self._declared_field_kind(declared, filtered)
        if self.framework_of(class_name) == "nnx":
            assigned = self._init_assigned(class_name, attr)
            if assigned is not None:
                return assigned[0]
        for base in self.library_bases(class_name):
            if base in jaxapi.PYTREE_CLASSES:
                return jaxapi.PYTREE_CLASSES[base].get(attr)
        for base in self.class_bases.get(class_name, []):
            if base in self.classes:
                return self.field_kind(base, attr, filtered)
        return None

    def _declared_field_kind(self, field: cst.AnnAssign, filtered: bool) -> str | None:
        value = field.value
        if isinstance(value, cst.Call):
            q = self.qualify_text(dotted(value.func) or "") or ""
            if "." in q and self.imported_kind is not None and self.imported_kind(q) == "static field":
                return "static"  # the project's own `static_field()` (from the project index)
            if q == "dataclasses.field" and _static_metadata(kwarg(value, "metadata")):
                return "static"  # `field(metadata={"static": True})`: jax.tree_util.register_dataclass reads it
            marker = jaxapi.STATIC_FIELD_CALLS.get(q)
            if marker is not None:
                keyword, static_value = marker
                for arg in value.args:
                    if arg.keyword is not None and arg.keyword.value == keyword:
                        const = literal_const(arg.value)
                        if const is not None and const.value == static_value:
                            return "static"
        ann = field.annotation.annotation
        if self.qualify_text(dotted(ann) or "") in jaxapi.ARRAY_LAYERS:
            return "layer"
        kind = annotation_kind(field.annotation)
        if kind == "array":
            return "leaf"
        if kind in ("scalar", "static") and filtered:
            return "static"  # equinox keeps non-array leaves static
        if kind == "scalar":
            return "scalar"  # a leaf where a transform flattened the pytree; what it was given where built
        if kind == "static":
            return "static"
        return None

    def field_class(self, class_name: str, attr: str) -> str | None:
        """The class of an nnx Module's "variable" or "subtree" field (a Variable class, a local Module)."""
        if self.framework_of(class_name) != "nnx":
            return None
        assigned = self._init_assigned(class_name, attr)
        if assigned is not None:
            return assigned[1]
        return next((self.field_class(b, attr) for b in self.class_bases.get(class_name, []) if b in self.classes),
                    None)

    def _init_assigned(self, class_name: str, attr: str) -> tuple[str, str | None] | None:
        """An nnx Module's fields are what its `__init__` assigns to `self`: a Variable (`nnx.Param(...)`),
        an array (a leaf) or another local nnx Module (a subtree), with their class; a plain value
        (`self.dim = dim`) is static module metadata, as is an attribute assigned in ways that disagree."""
        node = self._class_nodes().get(class_name)
        init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                    None) if node is not None else None
        if init is None or not init.params.params:
            return None
        me = init.params.params[0].name.value
        kinds = set()
        for n in descendants(init.body):
            if not isinstance(n, (cst.Assign, cst.AnnAssign)) or n.value is None:
                continue
            targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
            if any(isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == me
                   and t.attr.value == attr for t in targets):
                kinds.add(self._assigned_value_kind(n.value))
        if not kinds:
            return None
        kind = kinds.pop() if len(kinds) == 1 else None
        return kind if kind is not None else ("static", None)

    def _assigned_value_kind(self, value: cst.BaseExpression) -> tuple[str, str | None] | None:
        if not isinstance(value, cst.Call):
            return None
        q = self.qualify_text(dotted(value.func) or "") or ""
        if q in jaxapi.LEAF_FIELD_CALLS:
            cls = jaxapi.LEAF_FIELD_CALLS[q]
            return ("variable", cls) if cls is not None else ("leaf", None)
        if q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) or q in jaxapi.ARRAY_FUNCTIONS:
            return ("leaf", None)
        if q in jaxapi.ARRAY_LAYERS:
            return ("layer", q)
        if isinstance(value.func, cst.Name) and value.func.value in self.classes:
            # `class Count(nnx.Variable)`, as the nnx docs define their own state: a Variable too.
            variable = next((jaxapi.LEAF_FIELD_CALLS[b] for b in self.library_bases(value.func.value)
                             if jaxapi.LEAF_FIELD_CALLS.get(b)), None)
            if variable is not None:
                return ("variable", variable)
        if isinstance(value.func, cst.Name) and value.func.value in self.classes \
                and self.framework_of(value.func.value) == "nnx":
            return ("subtree", value.func.value)
        return None

    def _aux_fields(self, class_name: str) -> frozenset[str]:
        """The attributes a `register_pytree_node_class` class's `tree_flatten` puts in its aux data
        (`return children, int(self.nl)`): JAX keeps them as the Python values they are, static under every
        transform, and rebuilds the object with them (measured on JAX 0.10.2: `if op.nl > 0:` runs under
        jit). Empty for other classes."""
        cache = self._aux_field_cache
        if class_name not in cache:
            cache[class_name] = frozenset()
            node = self._class_nodes().get(class_name)
            registered = node is not None and any(
                self.qualify_text(dotted(d.decorator) or "") == "jax.tree_util.register_pytree_node_class"
                for d in node.decorators)
            flatten = next((s for s in node.body.body if isinstance(s, cst.FunctionDef)
                            and s.name.value == "tree_flatten"), None) if registered else None
            if flatten is not None and flatten.params.params:
                cache[class_name] = _aux_attributes(flatten)
        return cache[class_name]

    def declared_fields(self, class_name: str) -> dict[str, cst.AnnAssign]:
        """The annotated fields a local class declares in its body (`w: jax.Array`), in order."""
        node = self._class_nodes().get(class_name)
        out: dict[str, cst.AnnAssign] = {}
        for stmt in node.body.body if node is not None else ():
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        out.setdefault(small.target.value, small)
        return out

    def never_a_jax_type(self, class_name: str, depth: int = 0) -> bool:
        """Instances of this module-level class are certainly no JAX type (no array, no pytree): no
        decorator but a plain `@dataclass`, no metaclass, only `object` or such local classes as bases, no `__jax_array__` or
        `__array__`, not a pytree class, its name in no registration call and no base of another local
        class (a subclass may be a pytree). Passed as a traced argument, such an object raises TypeError."""
        node = self._class_nodes().get(class_name)
        if node is None or depth > 8 or node.keywords or self.pytree_class(class_name):
            return False
        if any(self.qualify_text(dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                                 or "") != "dataclasses.dataclass" for d in node.decorators):
            return False
        if {"__jax_array__", "__array__", "tree_flatten"} & set(self.classes.get(class_name, {})):
            return False
        for base in node.bases:
            value = base.value
            if not (isinstance(value, cst.Name) and (value.value == "object" or
                                                    self.never_a_jax_type(value.value, depth + 1))):
                return False
        return depth > 0 or class_name not in self._registered_or_subclassed()

    def _registered_or_subclassed(self) -> frozenset[str]:
        """Local class names handed to a call (`register_pytree_node(Cls, ...)`, `register_dataclass(Cls)`)
        or used as a base of another local class."""
        if self._registered_cache is None:
            names = {dotted(b.value) for n in self._class_nodes().values() for b in n.bases}
            names |= {arg.value.value for node in descendants(self.module) if isinstance(node, cst.Call)
                      for arg in node.args if isinstance(arg.value, cst.Name) and arg.value.value in self.classes}
            self._registered_cache = frozenset(n for n in names if n)
        return self._registered_cache

    def _class_nodes(self) -> dict[str, cst.ClassDef]:
        if self._class_node_cache is None:
            self._class_node_cache = {n.name.value: n for n in self.module.body if isinstance(n, cst.ClassDef)}
        return self._class_node_cache

    def method(self, class_name: str, name: str) -> FunctionInfo | None:
        seen: set[str] = set()
        todo = [class_name]
        while todo:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            if name in self.classes.get(c, {}):
                return self.classes[c][name]
            todo.extend(self.class_bases.get(c, []))
        return None


def _own_statements(node: cst.CSTNode) -> list[cst.BaseStatement]:
    """A def's statements, its docstring left out."""
    body = list(node.body.body) if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock) \
        else []
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) and \
            isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]
    return body


def _only_return(block: cst.BaseSuite) -> cst.Return | None:
    """The `return` a block consists of (`if ...: return True`, on its own line or after the colon)."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    small = lines[0].body[0] if len(lines) == 1 and isinstance(lines[0], (cst.SimpleStatementLine,
                                                                           cst.SimpleStatementSuite)) else None
    return small if isinstance(small, cst.Return) else None


def _returns_none(block: cst.BaseSuite) -> bool:
    found = _only_return(block)
    return found is not None and (found.value is None or isinstance(found.value, cst.Name) and
                                  found.value.value == "None")


def _returns_true(block: cst.BaseSuite) -> bool:
    found = _only_return(block)
    return found is not None and isinstance(found.value, cst.Name) and found.value.value == "True"


class _Collector(cst.CSTVisitor):
    """One cheap pass: functions, classes, imports (per scope), module-level facts."""

    def __init__(self, facts: ModuleFacts):
        super().__init__()
        self.a = facts
        self.func_stack: list[FunctionInfo] = []
        self.class_stack: list[str] = []
        self.scope_stack: list[Scope] = [facts.scope]
        # How many classes enclosed each open function (a class nested in a function has methods too).
        self._func_class_depth: list[int] = []
        self._overloaded: set[str] = set()  # module-level names of several overloads (`_registers_overloads`)

    def collect(self) -> None:
        # Not `module.visit(self)`: libcst rebuilds every node it visits, which cost twice the parse. Defs,
        # classes and imports are statements: the expressions (most of the nodes) are not entered.
        for k, stmt in enumerate(self.a.module.body):
            self._statement = k  # (the top-level statement around the defs met)
            walk_statements(stmt, self)
        for name in self._overloaded:
            # `@multimethod def f(x: Array)` then `@multimethod def f(x: Sparse)`: a call runs the overload
            # its arguments' types pick, which is not known here (pymdp's dense and sparse `factor_dot`,
            # fresh set W): no one def is what `f(...)` calls
            self.a.module_defs.pop(name, None)
        self.a.overloaded = frozenset(self._overloaded)

    @property
    def scope(self) -> Scope:
        return self.scope_stack[-1]

    def visit_Import(self, node: cst.Import) -> bool:
        self.scope.add_import(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.scope.add_import_from(node)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        name = node.name.value
        if not self.func_stack:
            self.a.classes.setdefault(name, {})
            self.a.class_bases[name] = [b for b in (dotted(arg.value) for arg in node.bases) if b]
        self.class_stack.append(name)
        scope = Scope(self.scope)
        self.a._scopes[node] = scope
        self.scope_stack.append(scope)
        return True

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_stack.pop()
        self.scope_stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        parent = self.func_stack[-1] if self.func_stack else None
        in_class = bool(self.class_stack) and (
            not self.func_stack or self._class_is_inside(parent))
        class_name = self.class_stack[-1] if in_class else None
        name = node.name.value
        if class_name:
            qual = f"{class_name}.{name}"
        elif parent:
            qual = f"{parent.qualname}.<locals>.{name}"
        else:
            qual = name
        scope = Scope(self.scope)
        info = FunctionInfo(node, name, qual, parent, class_name, scope)
        self.a._scopes[node] = scope
        self.a.functions.append(info)
        self.a.def_infos[node] = info
        self.a._def_statements[node] = self._statement
        for decorator in node.decorators:  # (a witness names the decorator that traces the def)
            self.a._def_statements[decorator] = self._statement
        if class_name and not self.func_stack:
            self.a.classes.setdefault(class_name, {})[name] = info
        elif parent is not None and not class_name:
            parent.local_defs[name] = info
        elif parent is None and not class_name:
            previous = self.a.module_defs.get(name)
            if previous is not None and self._registers_overloads(previous.node, node):
                self._overloaded.add(name)
            elif not node.decorators:
                self._overloaded.discard(name)  # a plain def after them: the implementation (`typing.overload`)
            self.a.module_defs[name] = info
        self.parent_scope_shadow(name)
        self.func_stack.append(info)
        self.scope_stack.append(scope)
        self._func_class_depth.append(len(self.class_stack))
        return True

    def _registers_overloads(self, old: cst.FunctionDef, new: cst.FunctionDef) -> bool:
        """Two module-level defs of one name under the same decorator (`@multimethod`, `@dispatch`,
        `@plum.dispatch`): a decorator that keeps both, as overloads. (A JAX transform, `typing.overload`
        stubs and plain redefinitions are not: the last def is the one called.)"""
        def names(node: cst.FunctionDef) -> set[str]:
            out = set()
            for d in node.decorators:
                expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
                text = dotted(expr)
                if text is None:
                    continue
                q = self.scope.qualify(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
                if q is not None and (q.startswith("jax.") or q.startswith("functools.") or q in (
                        "typing.overload", "typing_extensions.overload")):
                    continue
                out.add(text)
            return out

        return bool(names(old) & names(new))

    def _class_is_inside(self, parent: FunctionInfo | None) -> bool:
        # A class nested in a function: methods of it are still methods of that class.
        return bool(self._func_class_depth) and len(self.class_stack) > self._func_class_depth[-1]

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.func_stack.pop()
        self.scope_stack.pop()
        self._func_class_depth.pop()

    def parent_scope_shadow(self, name: str) -> None:
        if self.scope.lookup(name) is not None and name in self.scope.bindings:
            self.scope.shadow(name)


def _static_metadata(arg: cst.Arg | None) -> bool:
    """`metadata={"static": True}` / `dict(static=True)` / `{"pytree_node": False}`: a field JAX's
    `register_dataclass` (or flax) keeps static."""
    if arg is None:
        return False
    value = arg.value
    pairs = []
    if isinstance(value, cst.Dict):
        pairs = [(literal_const(el.key), literal_const(el.value)) for el in value.elements if isinstance(el, cst.DictElement)]
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        pairs = [(Const(a.keyword.value), literal_const(a.value)) for a in value.args if a.keyword is not None]
    return any(k == Const("static") and v == Const(True) or k == Const("pytree_node") and v == Const(False)
               for k, v in pairs)


def _aux_attributes(flatten: cst.FunctionDef) -> frozenset[str]:
    """`self.X` read by the aux half of what `tree_flatten` returns on its one `return children, aux`
    (the names it returns followed to their one assignment in the method)."""
    me = flatten.params.params[0].name.value
    returns = [n for n in descendants(flatten.body) if isinstance(n, cst.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Tuple) or len(returns[0].value.elements) != 2:
        return frozenset()
    aux = returns[0].value.elements[1].value
    if isinstance(aux, cst.Name):
        sources = [n.value for n in descendants(flatten.body) if isinstance(n, cst.Assign) and len(n.targets) == 1
                   and isinstance(n.targets[0].target, cst.Name) and n.targets[0].target.value == aux.value]
        if len(sources) != 1:
            return frozenset()
        aux = sources[0]
    return frozenset(n.attr.value for n in descendants(aux) if isinstance(n, cst.Attribute)
                     and isinstance(n.value, cst.Name) and n.value.value == me)
