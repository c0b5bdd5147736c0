"""The project index: which functions in the linted files are jitted, and with which static parameters.

Real code defines `@partial(jax.jit, static_argnames=...) def train_step` in one file and calls it in a
loop in another. Before the full (libcst) analysis, every file gets a cheap summary built from CPython's
`ast` (which the engine parses anyway to check syntax): its module-level jitted functions and its import
bindings (for re-exports through `__init__.py`). A summary depends only on its own file's text, so it can
be cached by content and replaced alone when one file changes (the LSP and the cache rely on that).
"""

from __future__ import annotations

import ast
import os
from dataclasses import asdict, dataclass, field

from jitlint.analysis import jaxapi
from jitlint.analysis.names import import_bindings, qualify, star_module
from jitlint.analysis.qualnames import canonical
from jitlint.source.astwalk import walk


@dataclass(frozen=True)
class JitSignature:
    """A jitted callable as seen by its callers."""

    qualname: str  # "pkg.model.train_step" (or just the name when the module is unknown)
    transform: str  # "jax.jit", "equinox.filter_jit", ...
    positional: tuple[str, ...]
    kwonly: tuple[str, ...] = ()
    varargs: bool = False
    varkw: bool = False
    static: tuple[str, ...] | None = ()  # static parameter names; None when not literal (unknown)
    filtered: bool = False  # equinox/nnx: every non-array argument is static
    path: str = ""
    line: int = 0

    @classmethod
    def build(cls, qualname: str, transform: str, positional, kwonly=(), varargs: bool = False,
              varkw: bool = False, static: "set[str] | tuple[str, ...] | None" = (), path: str = "",
              line: int = 0) -> "JitSignature":
        """The signature of `transform` applied to a function with these parameters; `static`: the names
        static_argnums/static_argnames make static (see `static_params`), None when not literal."""
        return cls(qualname, transform, tuple(positional), tuple(kwonly), varargs, varkw,
                   tuple(sorted(static)) if static is not None else None, jaxapi.TRANSFORMS[transform].filtered,
                   path, line)

    def param_of(self, position: int | None, keyword: str | None, skip_self: bool = False) -> str | None:
        if keyword is not None:
            return keyword if keyword in (*self.positional, *self.kwonly) else None
        params = self.positional[1:] if skip_self else self.positional
        if position is not None and position < len(params):
            return params[position]
        return None

    def is_static(self, param: str) -> bool | None:
        """True/False, or None when the static set is unknown."""
        if self.filtered:
            return None
        if self.static is None:
            return None
        return param in self.static

    @classmethod
    def from_dict(cls, data: dict) -> "JitSignature":
        data = dict(data)
        for key in ("positional", "kwonly"):
            data[key] = tuple(data[key])
        if data.get("static") is not None:
            data["static"] = tuple(data["static"])
        return cls(**data)


@dataclass
class ModuleSummary:
    module: str | None
    path: str
    jitted: dict[str, JitSignature] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)  # module-level name -> qualified name
    # Module-level functions that memoize what they decorate (their body uses `functools.lru_cache`, ...).
    memoizers: list[str] = field(default_factory=list)
    # Module-level `def`s: what other modules' traced code may call (jitlint.analysis.foreign).
    functions: list[str] = field(default_factory=list)
    # Module-level classes -> their plain (undecorated) methods: on an instance, each access of one makes
    # a new bound-method object (what `jax.jit(env.step)` in another file wraps).
    classes: dict[str, list[str]] = field(default_factory=dict)
    # Module-level functions -> what they return, read from their bodies: "array" (every return computes
    # with jax.numpy & co., or the return annotation is an array type and no return is a literal), or
    # "scalar" (a Python number or string whenever the arguments are). A `-> float` annotation alone is not
    # believed: JAX code annotates jnp scalars so. "function": every return is a function made on that run
    # (a lambda, a nested def, a jit wrapper), a factory.
    returns: dict[str, str] = field(default_factory=dict)
    # Module-level names bound once to a Python number, bool or string (`BASE_LR = 0.1`).
    scalars: list[str] = field(default_factory=list)
    # Module-level functions that build a jit wrapper when they run (a jit-decorated nested def, a
    # `jax.jit(...)` call): called from a loop in another file, each run may compile again.
    jit_makers: list[str] = field(default_factory=list)
    # Module-level names bound once to a literal list, tuple or set of at most 64 items (`PROFILES = ["EPL",
    # "SIS"]`): a loop over one, in any file, visits a fixed set of configurations.
    sweeps: list[str] = field(default_factory=list)
    # Module-level functions that make a class a pytree (their body applies `jax.tree_util.register_dataclass`
    # or another pytree decorator: a project's own `@dataclass`), and those that return a dataclass field
    # marked static (`dataclasses.field(metadata={"static": True})`: a project's own `static_field()`).
    pytree_makers: list[str] = field(default_factory=list)
    static_fields: list[str] = field(default_factory=list)
    # Module-level classes -> their bases, qualified (`HMM` of `from dynamax.ssm import SSM` ... `class
    # HMM(SSM)`: ["dynamax.ssm.SSM"]); with `jit_makers` holding "Class.method" for a method that builds a
    # jit wrapper when it runs, a method an object inherits is found in another file.
    class_bases: dict[str, list[str]] = field(default_factory=dict)
    # Module-level functions (and "Class.method") whose body calls a function of data-dependent size
    # without `size=` (`jnp.unique(idx)`, one-argument `jnp.where`): run again and again, what it computes
    # eagerly may reach jitted code with a new length each time (JIT605), so like `jit_makers`, a loop
    # calling one from another file makes it a repeated function there.
    size_feeders: list[str] = field(default_factory=list)
    # Module-level classes whose instances are certainly no JAX type: a plain class or a plain
    # `@dataclass` (no pytree registration, no base but `object`, no `__jax_array__`/`__array__`, not handed
    # to a module-level call nor a base of another class of the module). A jitted function's argument of
    # one raises TypeError before tracing.
    plain_classes: list[str] = field(default_factory=list)
    # Modules it star-imports at module level (`from common import *`), absolute; and its `__all__` when it
    # writes one out as a literal (None: none, so `import *` takes every name without a leading underscore;
    # [] when `__all__` is computed: which names it exports is unknown).
    stars: list[str] = field(default_factory=list)
    public: list[str] | None = None

    def imports_any(self, modules: "set[str] | frozenset[str]") -> bool:
        """Whether its top-level imports name one of `modules`, or something in one."""
        for target in self.imports.values():
            head = target
            while head and head not in modules:
                head = head.rpartition(".")[0]
            if head:
                return True
        return False

    def to_dict(self) -> dict:
        return {"module": self.module, "path": self.path, "imports": self.imports,
                "jitted": {k: asdict(v) for k, v in self.jitted.items()}, "memoizers": self.memoizers,
                "functions": self.functions, "classes": self.classes, "returns": self.returns,
                "scalars": self.scalars, "jit_makers": self.jit_makers, "sweeps": self.sweeps,
                "pytree_makers": self.pytree_makers, "static_fields": self.static_fields,
                "class_bases": self.class_bases, "size_feeders": self.size_feeders,
                "plain_classes": self.plain_classes, "stars": self.stars, "public": self.public}

    @classmethod
    def from_dict(cls, data: dict) -> "ModuleSummary":
        return cls(data["module"], data["path"], {k: JitSignature.from_dict(v) for k, v in data["jitted"].items()},
                   dict(data["imports"]), list(data["memoizers"]), list(data["functions"]),
                   {k: list(v) for k, v in data["classes"].items()}, dict(data["returns"]), list(data["scalars"]),
                   list(data["jit_makers"]), list(data["sweeps"]), list(data["pytree_makers"]),
                   list(data["static_fields"]), {k: list(v) for k, v in data["class_bases"].items()},
                   list(data["size_feeders"]), list(data["plain_classes"]), list(data["stars"]),
                   None if data["public"] is None else list(data["public"]))


# ---------------------------------------------------------------------------------------------- ast side


def _imports(tree: ast.Module, module: str | None, is_package: bool) -> dict[str, str]:
    """The module-level import bindings (what a re-export through this module resolves to)."""
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.update(import_bindings(stmt, module, is_package))
    return out


def _star_facts(tree: ast.Module, module: str | None, is_package: bool) -> tuple[list[str], list[str] | None]:
    """(the modules a module star-imports at module level, its literal `__all__` or None; [] when it
    computes `__all__`)."""
    stars: list[str] = []
    public: list[str] | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            target = star_module(stmt, module, is_package)
            if target is not None:
                stars.append(target)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = stmt.value
                names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)] \
                    if isinstance(value, (ast.List, ast.Tuple)) and isinstance(stmt, ast.Assign) else None
                public = names if names is not None and len(names) == len(value.elts) and public is None else []
    return stars, public


def _qualify(node: ast.AST, imports: dict[str, str]) -> str | None:
    return qualify(node, imports.get)


def _literal(node: ast.AST | None):
    if node is None:
        return ()
    try:
        value = ast.literal_eval(node)  # literals only: never runs code
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if value is None:
        return ()
    if isinstance(value, (int, str)):
        return (value,)
    if isinstance(value, (tuple, list, set, frozenset)):
        return tuple(value)
    return None


def _jit_of(node: ast.AST, imports: dict[str, str]) -> tuple[str, ast.Call | None] | None:
    """`jax.jit`, `jax.jit(...)` (factory form), `partial(jax.jit, ...)` -> (transform, options call)."""
    if isinstance(node, ast.Call):
        q = _qualify(node.func, imports)
        if q in jaxapi.PARTIALS and node.args:
            inner = _qualify(node.args[0], imports)
            if inner in jaxapi.JIT_WRAPPERS:
                return inner, node
            return None
        if q in jaxapi.JIT_WRAPPERS and not node.args:
            return q, node
        return None
    q = _qualify(node, imports)
    if q in jaxapi.JIT_WRAPPERS:
        return q, None
    return None


def static_params(positional, argnums, argnames) -> set[str]:
    """The parameters that `static_argnums` (indexes into `positional`, negative from the end) and
    `static_argnames` make static: the one rule, for the analysis and the index alike."""
    static = set(argnames)
    n = len(positional)
    for i in argnums:
        j = i + n if i < 0 else i
        if 0 <= j < n:
            static.add(positional[j])
    return static


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef, transform: str, options: ast.Call | None,
               qualname: str, path: str, line: int) -> JitSignature:
    args = fn.args
    positional = tuple(a.arg for a in (*args.posonlyargs, *args.args))
    t = jaxapi.TRANSFORMS[transform]
    static: set[str] | None = set()
    if options is not None:
        keywords = {kw.arg: kw.value for kw in options.keywords if kw.arg}
        nums = _literal(keywords.get(t.static_nums_kw)) if t.static_nums_kw else ()
        names = _literal(keywords.get(t.static_names_kw)) if t.static_names_kw else ()
        if nums is None or names is None or not all(isinstance(n, int) for n in nums):
            static = None
        else:
            static = static_params(positional, nums, [n for n in names if isinstance(n, str)])
    return JitSignature.build(qualname, transform, positional, (a.arg for a in args.kwonlyargs),
                              args.vararg is not None, args.kwarg is not None, static, path, line)


def _decorated_signature(fn: ast.FunctionDef | ast.AsyncFunctionDef, imports, qualname: str,
                         path: str) -> JitSignature | None:
    """The signature of a def under a jit decorator (its first one), else None."""
    for dec in fn.decorator_list:
        found = _jit_of(dec, imports)
        if found is not None:
            return _signature(fn, found[0], found[1], qualname, path, dec.lineno)
    return None


def summarize(source: str | ast.Module, path: str, module: str | None = None, is_package: bool = False, *,
              refers_to: set[str] | None = None) -> ModuleSummary:
    """The summary of one file; a file that does not parse has an empty one. `refers_to`: every qualified
    name the file refers to (prefilter.references), when known: if none is a memoizer, no function of
    the file memoizes, and their bodies need no walk (most files; the walk was a sixth of pass 1)."""
    if isinstance(source, ast.Module):
        tree = source
    else:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ModuleSummary(module, path)
    imports = _imports(tree, module, is_package)
    summary = ModuleSummary(module, path, imports=imports)
    summary.stars, summary.public = _star_facts(tree, module, is_package)
    prefix = f"{module}." if module else ""
    functions = {}
    memoizing = bool(imports) and (refers_to is None or not jaxapi.MEMOIZERS.isdisjoint(refers_to))
    bound = _module_bindings(tree)
    summary.scalars = _module_scalars(bound)
    summary.sweeps = _module_sweeps(bound)
    scalars = set(summary.scalars)
    # (only a module importing a jit wrapper's package can build one: most files need no walk)
    jitting = any(target.partition(".")[0] in _JIT_PACKAGES for target in imports.values()) and (
        refers_to is None or not jaxapi.JIT_WRAPPERS.isdisjoint(refers_to))
    # (only modules importing jax can register a pytree, only those importing dataclasses build a field)
    pytrees = any(target.partition(".")[0] in _PYTREE_PACKAGES for target in imports.values()) and (
        refers_to is None or not jaxapi.PYTREE_DECORATORS.isdisjoint(refers_to))
    fields = any(target.partition(".")[0] == "dataclasses" for target in imports.values()) and (
        refers_to is None or "dataclasses.field" in refers_to)
    # (only a module referring to a function of data-dependent size can call one)
    sizing = bool(imports) and (refers_to is None or not jaxapi.SIZE_DEPENDENT.keys().isdisjoint(refers_to))
    # What makes a function's every run compile again, and the list it goes in (when the module can have it).
    compiling = [(table, test) for enabled, table, test in ((jitting, summary.jit_makers, _makes_jit),
                                                            (sizing, summary.size_feeders, _feeds_sizes)) if enabled]
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[stmt.name] = stmt
            summary.functions.append(stmt.name)
            kind = _return_kind(stmt, imports, scalars)
            if kind is not None:
                summary.returns[stmt.name] = kind
            for table, test in compiling:
                if test(stmt, imports):
                    table.append(stmt.name)
            if memoizing and _uses_memoizer(stmt, imports):
                summary.memoizers.append(stmt.name)
            if pytrees and _calls_any(stmt, imports, jaxapi.PYTREE_DECORATORS):
                summary.pytree_makers.append(stmt.name)
            if fields and _makes_static_field(stmt, imports):
                summary.static_fields.append(stmt.name)
            sig = _decorated_signature(stmt, imports, prefix + stmt.name, path)
            if sig is not None:
                summary.jitted[stmt.name] = sig
        elif isinstance(stmt, ast.ClassDef):
            summary.classes[stmt.name] = [f.name for f in stmt.body if isinstance(f, ast.FunctionDef) and
                                          not f.decorator_list and f.args.args and not f.name.startswith("__")]
            bases = [q for q in (_qualify(b, imports) or (prefix + b.id if isinstance(b, ast.Name) else None)
                                 for b in stmt.bases) if q]
            if bases:
                summary.class_bases[stmt.name] = bases
            if _plain_class(stmt, imports):
                summary.plain_classes.append(stmt.name)
            for f in stmt.body:  # jitted methods (`@nnx.jit def __call__`), as "Class.method"
                if isinstance(f, ast.FunctionDef) and f.args.args and not any(
                        isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in f.decorator_list):
                    # (an instance method: its first parameter is the object, bound by an instance's call,
                    # passed by a call on the class; a class or static method binds otherwise: not recorded)
                    key = f"{stmt.name}.{f.name}"
                    sig = _decorated_signature(f, imports, prefix + key, path)
                    if sig is not None:
                        summary.jitted[key] = sig
            for table, test in compiling:
                if test(stmt, imports):  # (one walk of the class first: most compile nothing)
                    table += [f"{stmt.name}.{f.name}" for f in stmt.body
                              if isinstance(f, ast.FunctionDef) and f.name in summary.classes[stmt.name]
                              and test(f, imports)]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = stmt.value
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name):
                q = _qualify(value.func, imports)
                target = functions.get(value.args[0].id)
                if q in jaxapi.JIT_WRAPPERS and target is not None:
                    name = stmt.targets[0].id
                    summary.jitted[name] = _signature(target, q, value, prefix + name, path, stmt.lineno)
    if summary.jit_makers or summary.size_feeders:
        _through_calls(tree, summary)
    if summary.plain_classes:
        # (a registration call, `register_pytree_node(Cls, ...)`, is a module-level statement: only those
        # are read, not every call of the module)
        calls = [stmt.value for stmt in tree.body if isinstance(stmt, (ast.Expr, ast.Assign)) and
                 isinstance(stmt.value, ast.Call)]
        handed = {arg.id for node in calls for arg in (*node.args, *(k.value for k in node.keywords))
                  if isinstance(arg, ast.Name)}
        bases = {b.id for stmt in tree.body if isinstance(stmt, ast.ClassDef) for b in stmt.bases
                 if isinstance(b, ast.Name)}
        summary.plain_classes = [c for c in summary.plain_classes if c not in handed and c not in bases]
    return summary


def _plain_class(cls: ast.ClassDef, imports: dict[str, str]) -> bool:
    """No decorator but `dataclasses.dataclass`, no base but `object`, no metaclass, nothing that makes an
    array or a pytree of it (`__jax_array__`, `__array__`, `tree_flatten`)."""
    for dec in cls.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if _qualify(target, imports) != "dataclasses.dataclass":
            return False
    if cls.keywords or any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return False
    return not any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                   s.name in ("__jax_array__", "__array__", "tree_flatten", "tree_unflatten") for s in cls.body)


def _through_calls(tree: ast.Module, summary: ModuleSummary) -> None:
    """A function (or method) that calls one of the module's functions whose every run may compile again
    does so on its every run too (`fit` calling `make_training_loop(...)`, which jits its step: harmonic,
    fresh set AG): `jit_makers` and `size_feeders` take in the module's plain functions and methods that
    call one by name, until nothing is added."""
    defs: list[tuple[str, ast.AST]] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list:
            defs.append((stmt.name, stmt))
        elif isinstance(stmt, ast.ClassDef):
            defs += [(f"{stmt.name}.{f.name}", f) for f in stmt.body
                     if isinstance(f, ast.FunctionDef) and f.name in summary.classes.get(stmt.name, ())]
    calls = {key: {node.func.id for node in walk(fn.body) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
             for key, fn in defs}
    for key, fn in defs:
        # a method calling `self.other(...)` of its own class (jax-spectral-dns's `perform_time_step` calling
        # `self.perform_runge_kutta_step`, which jits a nested def: fresh set BT)
        owner, _, _ = key.rpartition(".")
        first = fn.args.posonlyargs[:1] or fn.args.args[:1]
        if owner and first:
            calls[key] |= {f"{owner}.{node.func.attr}" for node in walk(fn.body) if isinstance(node, ast.Call)
                           and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                           and node.func.value.id == first[0].arg}
    for table in (summary.jit_makers, summary.size_feeders):
        grew = bool(table)
        while grew:
            known = set(table)
            added = [key for key, called in calls.items() if key not in table and not called.isdisjoint(known)]
            table += added
            grew = bool(added)


_JIT_PACKAGES = {name.partition(".")[0] for name in jaxapi.JIT_WRAPPERS}
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try),
             ast.Match)


def _makes_jit(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, imports: dict[str, str]) -> bool:
    """Whether running `fn` builds a jit wrapper: a nested def decorated by a jit, or a jit called (for a
    class: whether any of its methods may)."""
    for node in walk(fn.body):  # (not its own decorators)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_jit_of(dec, imports) is not None for dec in node.decorator_list):
                return True
        elif isinstance(node, ast.Call) and _qualify(node.func, imports) in jaxapi.JIT_WRAPPERS:
            return True
    return False


def _compiles_per_run(summary: ModuleSummary, name: str) -> bool:
    return name in summary.jit_makers or name in summary.size_feeders


def _feeds_sizes(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, imports: dict[str, str]) -> bool:
    """Whether `fn`'s body calls a function of data-dependent size without `size=` (`jnp.unique(x)`, a
    one-argument `jnp.where(mask)`), as rules/shapes.py's `sizeless` reads a call."""
    for node in walk(fn.body):
        if isinstance(node, ast.Call) and node.args:
            q = _qualify(node.func, imports)
            if q in jaxapi.SIZE_DEPENDENT and not any(kw.arg == "size" for kw in node.keywords) and \
                    (q != "jax.numpy.where" or len(node.args) == 1 and not any(kw.arg in ("x", "y")
                                                                               for kw in node.keywords)):
                return True
    return False


_PYTREE_PACKAGES = {name.partition(".")[0] for name in jaxapi.PYTREE_DECORATORS}
# The metadata keys JAX and flax read as "this field is static" (`register_dataclass`, `flax.struct`).
_STATIC_METADATA = {"static", "pytree_node"}


def _calls_any(fn: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str], names) -> bool:
    return any(isinstance(node, ast.Call) and _qualify(node.func, imports) in names
               for node in walk(fn.body))


def _makes_static_field(fn: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str]) -> bool:
    """A function returning `dataclasses.field(...)` whose metadata it marks static (`metadata={"static":
    True}`, `metadata.setdefault("static", True)`, `meta["pytree_node"] = False`)."""
    nodes = list(walk(fn.body))
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and
               _qualify(n.value.func, imports) == "dataclasses.field" for n in nodes) and any(
        isinstance(n, ast.Constant) and n.value in _STATIC_METADATA or
        isinstance(n, ast.keyword) and n.arg in _STATIC_METADATA for n in nodes)


def _module_bindings(tree: ast.Module) -> dict[str, list[ast.AST | None]]:
    """Module-level name -> the values its top-level assignments give it (None for an augmented one)."""
    bound: dict[str, list[ast.AST | None]] = {}
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Name):
                bound.setdefault(t.id, []).append(stmt.value if not isinstance(stmt, ast.AugAssign) else None)
    return bound


def _module_sweeps(bound: dict[str, list[ast.AST | None]]) -> list[str]:
    """Module-level names bound once (and never extended), to a literal list, tuple or set of at most
    MAX_SWEEP items without a starred one."""
    return [name for name, values in bound.items() if len(values) == 1 and
            isinstance(values[0], (ast.List, ast.Tuple, ast.Set)) and len(values[0].elts) <= jaxapi.MAX_SWEEP and
            not any(isinstance(e, ast.Starred) for e in values[0].elts)]


def _module_scalars(bound: dict[str, list[ast.AST | None]]) -> list[str]:
    """Module-level names bound once, to a Python number, bool or string."""
    out: list[str] = []
    for name, values in bound.items():
        if len(values) == 1 and values[0] is not None and _ReturnReader({}, set(), set(out)).scalar(values[0]):
            out.append(name)
    return out


def _return_kind(fn: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str], scalars: set[str]) -> str | None:
    """"array", "scalar" or None: what every `return` of `fn`'s own body gives (ModuleSummary.returns)."""
    if fn.decorator_list or isinstance(fn, ast.AsyncFunctionDef):
        return None  # a decorator may return anything
    if _is_tracer_test(fn, imports):
        return "tracer-test"
    returns: list[ast.expr | None] = []
    assigned: dict[str, list[ast.AST | None]] = {}
    # Statements only (a tenth of the nodes): returns and bindings are statements; a `yield` is read
    # where it stands alone or is assigned, and a name bound inside an expression (`:=`) is unknown.
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        cls = node.__class__
        if cls is ast.Return:
            returns.append(node.value)
        elif cls is ast.Expr or cls is ast.Assign or cls is ast.AnnAssign or cls is ast.AugAssign:
            value = node.value
            if isinstance(value, (ast.Yield, ast.YieldFrom, ast.Await)):
                return None
            targets = node.targets if cls is ast.Assign else [node.target] if cls is not ast.Expr else []
            for t in targets:
                for n in walk((t,)):
                    if isinstance(n, ast.Name):
                        assigned.setdefault(n.id, []).append(value if t is n and cls is not ast.AugAssign else None)
        elif cls in _COMPOUND:
            if cls is ast.For or cls is ast.AsyncFor:
                items = node.iter.elts if isinstance(node.iter, (ast.List, ast.Tuple)) else ()
                if isinstance(node.target, ast.Name) and items and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in items):
                    # `for thresh in [64, 60, ...]`: the target holds one of those numbers
                    assigned.setdefault(node.target.id, []).extend(items)
                else:
                    for n in walk((node.target,)):
                        if isinstance(n, ast.Name):
                            assigned.setdefault(n.id, []).append(None)
            elif cls is ast.With or cls is ast.AsyncWith:
                for item in node.items:
                    for n in walk((item.optional_vars,)):  # (None: nothing)
                        if isinstance(n, ast.Name):
                            assigned.setdefault(n.id, []).append(None)
            for name in ("body", "orelse", "finalbody"):
                todo.extend(getattr(node, name, ()))
            for handler in getattr(node, "handlers", ()):
                todo.extend(handler.body)
                if handler.name:
                    assigned.setdefault(handler.name, []).append(None)
            for case in getattr(node, "cases", ()):
                todo.extend(case.body)
        elif cls is ast.FunctionDef or cls is ast.AsyncFunctionDef or cls is ast.ClassDef:
            assigned.setdefault(node.name, []).append(None)
        elif cls is ast.Import or cls is ast.ImportFrom:
            for alias in node.names:
                assigned.setdefault((alias.asname or alias.name).partition(".")[0], []).append(None)
    if not returns or any(r is None for r in returns):
        return None
    if all(_new_function(r, fn, imports) for r in returns):
        return "function"
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    reader = _ReturnReader(imports, params, scalars, assigned)
    if all(reader.array(r) for r in returns):
        return "array"
    if all(reader.scalar(r) for r in returns):
        return "scalar"
    ann = fn.returns.value if isinstance(fn.returns, ast.Subscript) else fn.returns
    name = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else None
    # `-> np.ndarray` is NumPy's: computed on the host, a constant even inside traced code (e3nn's
    # `clebsch_gordan`, fresh set G), so not "array"
    numpy = (_qualify(ann, imports) or "").startswith("numpy.") if ann is not None else False
    if name in jaxapi.ARRAY_ANNOTATIONS and not numpy and not any(isinstance(r, ast.Constant) for r in returns):
        return "array"
    return None


def _new_function(value: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str]) -> bool:
    """A `return` of a function made on this run: a lambda, a def nested in `fn`'s own body, or a jit
    wrapper (`return jax.jit(run)`): a factory, whose product a loop may keep per item."""
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Call):
        return _qualify(value.func, imports) in jaxapi.JIT_WRAPPERS
    return isinstance(value, ast.Name) and any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == value.id for s in fn.body)


def _is_tracer_test(fn: ast.FunctionDef, imports: dict[str, str]) -> bool:
    """A body that is `return isinstance(first_parameter, jax.core.Tracer)` (a docstring aside): the test
    itself, wherever it is imported (fdtdx's `is_jax_tracer`, fresh set M)."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not params:
        return False
    call = body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance" and
            len(call.args) == 2 and isinstance(call.args[0], ast.Name) and call.args[0].id == params[0]):
        return False
    types = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
    return bool(types) and all(_qualify(t, imports) in jaxapi.TRACER_TYPES for t in types)


class _ReturnReader:
    """Whether an expression of a function body is certainly an array, or a Python scalar when the
    function's parameters are (the body's own names followed through their assignments)."""

    _SCALAR_BUILTINS = {"int", "float", "round", "len", "abs", "min", "max", "bool", "str"}

    def __init__(self, imports: dict[str, str], params: set[str], scalars: set[str],
                 assigned: dict[str, list] | None = None) -> None:
        self.imports, self.params, self.scalars, self.assigned = imports, params, scalars, assigned or {}

    def _sources(self, name: str) -> list | None:
        values = self.assigned.get(name)
        return values if values and all(v is not None for v in values) else None

    def array(self, e: ast.expr, depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(e, ast.Call):
            q = _qualify(e.func, self.imports) or ""
            return q.startswith(jaxapi.ARRAY_MODULE_PREFIXES) and q not in jaxapi.STATIC_FUNCS and \
                q not in jaxapi.ARRAY_LISTS
        if isinstance(e, ast.BinOp):
            return self.array(e.left, depth + 1) or self.array(e.right, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.array(e.operand, depth + 1)
        if isinstance(e, ast.Name) and e.id not in self.params:
            sources = self._sources(e.id)
            return bool(sources) and all(self.array(v, depth + 1) for v in sources)
        return False

    def scalar(self, e: ast.expr, depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float, str)) and not isinstance(e.value, bytes)
        if isinstance(e, ast.Name):
            if e.id in self.params:
                return True
            sources = self._sources(e.id)
            if sources is not None:
                return all(self.scalar(v, depth + 1) for v in sources)
            return e.id in self.scalars and e.id not in self.assigned
        if isinstance(e, ast.BinOp):
            return self.scalar(e.left, depth + 1) and self.scalar(e.right, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.scalar(e.operand, depth + 1)
        if isinstance(e, ast.IfExp):
            return self.scalar(e.body, depth + 1) and self.scalar(e.orelse, depth + 1)
        if isinstance(e, ast.Attribute):
            return _qualify(e, self.imports) in jaxapi.MATH_CONSTANTS
        if isinstance(e, ast.Call) and not e.keywords:
            q = _qualify(e.func, self.imports)
            builtin = isinstance(e.func, ast.Name) and e.func.id in self._SCALAR_BUILTINS and \
                e.func.id not in self.imports
            if builtin and e.func.id == "len":
                return True
            if builtin or (q or "").startswith("math."):
                return bool(e.args) and all(self.scalar(a, depth + 1) for a in e.args)
        return False


def _uses_memoizer(fn: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str]) -> bool:
    """A decorator (or decorator factory) that memoizes: its body applies `functools.lru_cache` & co."""
    for node in walk((fn,)):
        if isinstance(node, (ast.Name, ast.Attribute)) and _qualify(node, imports) in jaxapi.MEMOIZERS:
            return True
    return False


# ---------------------------------------------------------------------------------------------- lookups


class ProjectIndex:
    """Summaries of every linted module, resolving qualified names (through re-exports) to jit signatures."""

    def __init__(self, summaries: list[ModuleSummary] | None = None):
        self.modules: dict[str, ModuleSummary] = {}
        self._subclasses: dict[str, list[tuple[ModuleSummary, str]]] | None = None  # (see `_subclasses_of`)
        self._aliases: dict[str, str] | None = None  # (see `_namespace_aliases`)
        self._contested: set[str] = set()  # module names two files have claimed (no aliases for them)
        for summary in summaries or ():
            self.add(summary)

    def add(self, summary: ModuleSummary) -> None:
        if summary.module:
            old = self.modules.get(summary.module)
            if old is not None and old.path != summary.path:
                self._contested.add(summary.module)
            self.modules[summary.module] = summary
            self._subclasses = None
            self._aliases = None

    def remove(self, module: str) -> None:
        self.modules.pop(module, None)
        self._subclasses = None
        self._aliases = None

    def module(self, name: str) -> ModuleSummary | None:
        """The project module `name` names: by its own name, or by the name it has under the folders
        above its package that hold no `__init__.py` (namespace packages: `core/envs/grid.py`, named
        `grid` from its folder, is what `from core.envs.grid import GridEnv` imports)."""
        summary = self.modules.get(name)
        if summary is None and self.modules:
            primary = self._namespace_aliases().get(name)
            summary = self.modules.get(primary) if primary is not None else None
        return summary

    def _namespace_aliases(self) -> dict[str, str]:
        """Alias -> module name, for every name a module has under up to four folders above its package;
        a name two modules could have, or one a module has as its own, is nobody's alias."""
        if self._aliases is None:
            claims: dict[str, set[str]] = {}
            for name, summary in self.modules.items():
                if name in self._contested:
                    continue  # (two `utils/benchmark.py` in one tree: which one an alias means is not known)
                for alias in _namespace_names(summary):
                    claims.setdefault(alias, set()).add(name)
            self._aliases = {alias: next(iter(names)) for alias, names in claims.items()
                             if len(names) == 1 and alias not in self.modules}
        return self._aliases

    def lookup(self, qualified: str, _depth: int = 0) -> JitSignature | None:
        """`pkg.model.train_step` -> its signature, following `from .model import train_step` re-exports."""
        if _depth > 8 or not qualified:
            return None
        module, _, name = qualified.rpartition(".")
        while module:
            summary = self.module(module)
            if summary is not None:
                head, _, rest = name.partition(".")
                if name in summary.jitted:  # a function, or a class's jitted method ("Model.__call__")
                    return summary.jitted[name]
                if head in summary.imports:
                    target = summary.imports[head] + ("." + rest if rest else "")
                    return self.lookup(target, _depth + 1)
                return None
            module, _, head = module.rpartition(".")
            name = f"{head}.{name}"
        return None

    def star_binding(self, module: str, name: str, _depth: int = 0) -> str | None:
        """What `name` is in a module that does `from module import *`, where `module` is a project module:
        the canonical name of what `module` imports under it (`jax` for `import jax`, `jax.tree_util.Partial`
        for `from jax.tree_util import Partial as partial`), or its own function or class; through its own
        star imports too. None for a name it does not export (a leading underscore, not in `__all__`) or
        does not bind in a way the index knows."""
        summary = self.module(module)
        if summary is None or _depth > 4 or (name not in summary.public if summary.public is not None
                                             else name.startswith("_")):
            return None
        if name in summary.imports:
            return canonical(summary.imports[name])
        if name in summary.functions or name in summary.classes:
            return f"{module}.{name}"
        if name in summary.scalars or name in summary.sweeps:
            return None  # a constant: no name to resolve (and nothing a star import may hide)
        for other in summary.stars:
            found = self.star_binding(other, name, _depth + 1)
            if found is not None:
                return found
        return None

    def _defined(self, qualified: str) -> tuple[ModuleSummary, str] | None:
        """The project module that defines `pkg.losses.name` (a function, class or constant), following
        re-exports, and the name there; None for anything else."""
        for _ in range(9):
            module, _, name = qualified.rpartition(".")
            summary = self.module(module)
            if summary is None or not name:
                return None
            if name in summary.functions or name in summary.classes or name in summary.scalars or \
                    name in summary.sweeps:
                return summary, name
            if name not in summary.imports:
                return None
            qualified = summary.imports[name]
        return None

    def _library_alias(self, qualified: str) -> str | None:
        """`pkg.compat.Tracer` where pkg/compat.py does `from jax.core import Tracer`: the library name a
        project module re-exports (followed through other project modules); None otherwise."""
        for _ in range(9):
            module, _, name = qualified.rpartition(".")
            summary = self.module(module)
            if summary is None or not name or name not in summary.imports:
                return None
            qualified = summary.imports[name]
            if self.module(qualified.rpartition(".")[0]) is None:
                return qualified
        return None

    def resolve_function(self, qualified: str) -> tuple[str, str] | None:
        """`pkg.losses.cross_entropy` -> ("pkg.losses", "cross_entropy"): a plain (not jitted) module-level
        function of a project module, following re-exports; None for anything else."""
        found = self._defined(qualified)
        if found is None or found[1] not in found[0].functions or found[1] in found[0].jitted:
            return None
        return found[0].module, found[1]

    def plain_method(self, qualified_class: str, method: str) -> bool:
        """Whether `pkg.env.Env` is a project class with a plain method `method` (following re-exports)."""
        found = self._defined(qualified_class)
        return found is not None and method in found[0].classes.get(found[1], ())

    def value_kind(self, qualified: str) -> str | None:
        """What a project module's name holds, following re-exports: "returns array" / "returns scalar" /
        "returns function" (a factory) for a function whose body says so (ModuleSummary.returns), "scalar" for a module constant, "sweep"
        for a module-level literal list of configurations (ModuleSummary.sweeps), "pytree decorator" /
        "static field" for a project's own pytree dataclass decorator and static field maker, "plain class"
        for a class whose objects are no JAX type (ModuleSummary.plain_classes), "bound-method class" for
        a class derived (across files) from a library base whose methods are bound at each access and hash
        as new functions (a Flax module: jaxapi.BOUND_METHOD_BASES)."""
        found = self._defined(qualified)
        if found is None:
            target = self._library_alias(qualified)
            return f"alias {target}" if target is not None else None
        summary, name = found
        if name in summary.plain_classes:
            return "plain class"
        if name in summary.classes and any(canonical(base) in jaxapi.BOUND_METHOD_BASES
                                           for chain, own in self._class_chain(qualified)
                                           for base in chain.class_bases.get(own, ())):
            return "bound-method class"
        if name in summary.pytree_makers:
            return "pytree decorator"
        if name in summary.static_fields:
            return "static field"
        if name in summary.functions:
            kind = summary.returns.get(name)
            return None if kind is None or name in summary.jitted else f"returns {kind}"
        return "scalar" if name in summary.scalars else "sweep" if name in summary.sweeps else None

    def makes_jit(self, qualified: str) -> bool:
        """Whether `qualified` is a plain project function that builds a jit wrapper when it runs."""
        target = self.resolve_function(qualified)
        return target is not None and target[1] in self.modules[target[0]].jit_makers

    def compiles_per_run(self, qualified: str) -> bool:
        """Whether `qualified` is a plain project function whose every run may compile again: it builds a
        jit wrapper, or computes a data-dependent size eagerly (ModuleSummary.size_feeders)."""
        target = self.resolve_function(qualified)
        return target is not None and _compiles_per_run(self.modules[target[0]], target[1])

    def _class_chain(self, qualified: str):
        """(summary, class name) for the project class `qualified` and then its bases, depth first, followed
        across files and re-exports (a few dozen at most: a cycle or a deep hierarchy stops there)."""
        todo, seen = [qualified], set()
        while todo and len(seen) < 32:
            current = todo.pop(0)
            if current in seen:
                continue
            seen.add(current)
            found = self._defined(current)
            if found is None or found[1] not in found[0].classes:
                continue
            yield found
            todo[:0] = found[0].class_bases.get(found[1], [])

    def _subclasses_of(self, qualified: str) -> list[tuple[ModuleSummary, str]]:
        """The project classes derived (directly or not) from the project class `qualified`, as (summary,
        class name); worked out for every class at the first question after the index changes."""
        found = self._defined(qualified)
        if found is None:
            return []
        if self._subclasses is None:
            table: dict[str, list[tuple[ModuleSummary, str]]] = {}
            for summary in self.modules.values():
                for name in summary.class_bases:  # (a class without a base derives from none)
                    own = f"{summary.module}.{name}"
                    for base, base_name in self._class_chain(own):
                        key = f"{base.module}.{base_name}"
                        if key != own:
                            table.setdefault(key, []).append((summary, name))
            self._subclasses = table
        return self._subclasses.get(f"{found[0].module}.{found[1]}", [])

    def class_compiles_per_run(self, qualified: str) -> bool:
        """Whether an object of the project class `qualified` may run a method whose every run may compile
        again (`compiles_per_run`): its own, one it inherits, or a project subclass's (an object declared of
        the class may be of any subclass): a loop calling it on such an object may compile again and again."""
        return bool(self.methods_compiling_per_run(qualified, None))

    def overrides_compiling_per_run(self, module: str) -> bool:
        """Whether a class of `module` has a project subclass in another module whose override of one of its
        methods may compile again on every run: a loop of `module` calling that method on `self` (or on an
        object of the class) runs the override (jax-spectral-dns's `Equation.solve`, fresh set BT)."""
        summary = self.module(module)
        if summary is None:
            return False
        return any(target != module and key.rpartition(".")[2] in methods
                   for name, methods in summary.classes.items()
                   for target, key in self.methods_compiling_per_run(f"{module}.{name}", None))

    def methods_compiling_per_run(self, qualified_class: str, method: str | None) -> tuple[tuple[str, str], ...]:
        """(module, "Class.method") of each plain method `method` (None: any) an object of the project class
        `qualified_class` may run, when that method's every run may compile again: the one it defines or
        inherits (depth first, bases followed across files), and each project subclass's own (an object
        declared of the class may be of any subclass: evojax's trainer calls `self.solver.tell(...)` on an
        `NEAlgorithm`, and `MAPElites.tell` is what runs)."""
        out: list[tuple[str, str]] = []
        names: set[str] = set()
        for summary, name in self._class_chain(qualified_class):
            for m in summary.classes[name]:
                if (method is None or m == method) and m not in names:
                    names.add(m)  # (the first class defining it is the one an object runs)
                    if _compiles_per_run(summary, f"{name}.{m}"):
                        out.append((summary.module, f"{name}.{m}"))
        for summary, name in self._subclasses_of(qualified_class):
            for m in summary.classes[name]:
                key = f"{name}.{m}"
                if (method is None or m == method) and _compiles_per_run(summary, key) and \
                        (summary.module, key) not in out:
                    out.append((summary.module, key))
        return tuple(out)

    def base_modules(self, module: str) -> set[str]:
        """The project modules defining a base (direct or not) of a class of `module`: a caller holding an
        object declared of such a base may run that class's methods (dynamic dispatch)."""
        summary = self.module(module)
        if summary is None:
            return set()
        return {base.module for name in summary.class_bases for base, _ in self._class_chain(f"{module}.{name}")
                if base.module and base.module != module}

    def importers(self, modules: set[str]) -> set[str]:
        """The modules whose top-level imports name one of `modules` (or something in one), by its name or
        a namespace-package name (`module`)."""
        wanted = set(modules) | {alias for alias, name in self._namespace_aliases().items() if name in modules}
        return {name for name, summary in self.modules.items() if summary.imports_any(wanted)}

    def is_memoizer(self, qualified: str, _depth: int = 0) -> bool:
        """Whether `qualified` names a project function that memoizes what it decorates."""
        if _depth > 8 or not qualified:
            return False
        module, _, name = qualified.rpartition(".")
        summary = self.module(module)
        if summary is None:
            return False
        if name in summary.memoizers:
            return True
        if name in summary.imports:
            return self.is_memoizer(summary.imports[name], _depth + 1)
        return False

    def dependencies(self, qualified_names) -> list[tuple[str, JitSignature | None]]:
        """What a file's findings depend on: each name it resolves through the index, and the result."""
        return [(q, self.lookup(q)) for q in sorted(set(qualified_names))]


def _namespace_names(summary: ModuleSummary) -> list[str]:
    """The names a module has under the folders above its package (or above it, outside any package),
    which hold no `__init__.py` (the package would reach them otherwise), nearest first: Python imports
    it so from a folder up that tree (namespace packages). A folder whose name is no identifier ends the
    names; at most four. (No file system access: the index asks this for every module.)"""
    if not summary.module or not summary.path:
        return []
    parts = summary.module.split(".")
    folder = os.path.dirname(os.path.abspath(summary.path))
    is_package = os.path.basename(summary.path) == "__init__.py"
    for _ in range(len(parts) if is_package else len(parts) - 1):
        folder = os.path.dirname(folder)  # the folder holding the top package (or the module)
    names, name = [], summary.module
    for _ in range(4):
        parent, here = os.path.split(folder)
        if not here.isidentifier() or parent == folder:
            break
        name = f"{here}.{name}"
        names.append(name)
        folder = parent
    return names
