"""Import bindings: which qualified name does a local name stand for? The one resolver, for CPython `ast`
nodes (the project index and the pre-filter, pass 1) and libcst nodes (the analysis, pass 2) alike.

`import_bindings` turns an import statement into (local name, qualified name) pairs and `qualify`
resolves a `Name`/`Attribute` chain through a lookup of local names; both accept either library's
nodes, so the passes cannot disagree about what `from .model import step` or `jnp.where` means.
libcst's QualifiedNameProvider costs several times the parse itself, hence this small map. Relative
imports resolve against the module's dotted name when it is known (the project index needs that);
otherwise they keep their leading dots. This module does not import libcst: pass 1 must not pay for it.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator

from jitlint.analysis.qualnames import canonical, resolve_relative


def dotted(expr) -> str | None:
    """`a.b.c` as text, for Name/Attribute chains only (ast or libcst)."""
    parts = _chain(expr)
    return ".".join(reversed(parts)) if parts else None


_CST: tuple[type, type] | None = None  # libcst's (Attribute, Name), once a libcst node is seen


def _chain(expr) -> list[str] | None:
    """The names of a Name/Attribute chain, last first; None for anything else."""
    global _CST
    parts: list[str] = []
    if isinstance(expr, ast.AST):
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        parts.append(expr.id)
        return parts
    if _CST is None:
        import libcst as cst  # already loaded whenever a libcst node exists

        _CST = (cst.Attribute, cst.Name)
    attribute, name = _CST
    # (class tests: libcst's concrete node classes have no subclasses, and isinstance goes through ABCMeta)
    while expr.__class__ is attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if expr.__class__ is not name:
        return None
    parts.append(expr.value)
    return parts


def extend(qualified: str, attrs) -> str:
    """`qualified` followed by attribute names, canonical at every step (`nnx` then `.jit`)."""
    for attr in attrs:
        qualified = canonical(f"{qualified}.{attr}")
    return qualified


def qualify(expr, lookup: Callable[[str], str | None]) -> str | None:
    """The canonical qualified name of a Name/Attribute chain whose first name `lookup` resolves."""
    parts = _chain(expr)
    if not parts:
        return None
    root = lookup(parts[-1])
    if root is None:
        return None
    return extend(canonical(root), reversed(parts[:-1]))


def import_bindings(node, module_name: str | None, is_package: bool) -> Iterator[tuple[str, str]]:
    """(local name, qualified name) for each name an `import` or `from ... import` binds (ast or libcst).

    `import a.b.c` binds `a` (and `a.b.c` resolves through it); `from m import *` binds nothing known."""
    if isinstance(node, ast.AST):
        if isinstance(node, ast.Import):
            aliases = [(alias.name, alias.asname) for alias in node.names]
            module, level = None, 0
        else:
            aliases = [(alias.name, alias.asname) for alias in node.names if alias.name != "*"]
            module, level = node.module or "", node.level
    else:
        import libcst as cst  # a libcst node: libcst is loaded (pass 1 reads `ast` without it)

        def name_of(asname) -> str | None:
            return asname.name.value if asname is not None and isinstance(asname.name, cst.Name) else None

        if isinstance(node, cst.Import):
            aliases = [(full, name_of(alias.asname)) for alias in node.names
                       if (full := dotted(alias.name)) is not None]
            module, level = None, 0
        else:
            if isinstance(node.names, cst.ImportStar):
                return
            aliases = [(alias.name.value, name_of(alias.asname)) for alias in node.names
                       if isinstance(alias.name, cst.Name)]
            module, level = (dotted(node.module) if node.module is not None else "") or "", len(node.relative)
    if module is None:  # import a.b [as c]
        for full, asname in aliases:
            if asname:
                yield asname, full
            else:
                head = full.split(".")[0]
                yield head, head
        return
    if level:
        module = resolve_relative(module_name, is_package, level, module)
    for name, asname in aliases:
        yield asname or name, f"{module}.{name}" if module else name


def star_module(node, module_name: str | None, is_package: bool) -> str | None:
    """The module `from m import *` imports everything public of, absolute (ast or libcst); None for any
    other import."""
    if isinstance(node, ast.AST):
        if not isinstance(node, ast.ImportFrom) or not any(alias.name == "*" for alias in node.names):
            return None
        module, level = node.module or "", node.level
    else:
        import libcst as cst  # a libcst node: libcst is loaded

        if not isinstance(node, cst.ImportFrom) or not isinstance(node.names, cst.ImportStar):
            return None
        module = (dotted(node.module) if node.module is not None else "") or ""
        level = len(node.relative)
    if level:
        module = resolve_relative(module_name, is_package, level, module)
    return module or None


class Scope:
    """Import bindings of one scope (module, function or class), chained to the enclosing scope. A module
    scope also knows the modules it star-imports and, where a project index can tell what those export,
    `star_lookup` (a name's binding through them, or None)."""

    __slots__ = ("parent", "bindings", "shadowed", "rebound", "module_name", "is_package", "stars", "star_lookup")

    def __init__(self, parent: "Scope | None" = None, module_name: str | None = None,
                 is_package: bool = False):
        self.parent = parent
        self.bindings: dict[str, str] = {}
        # Names rebound locally to something that is not an import (they hide outer imports).
        self.shadowed: set[str] = set()
        # Module-level names imported as one thing and again as another: which one a function reads
        # depends on when it runs (the cells of a notebook run in order), so neither is believed.
        self.rebound: set[str] = set()
        self.module_name = module_name if parent is None else parent.module_name
        self.is_package = is_package if parent is None else parent.is_package
        self.stars: list[str] = []
        self.star_lookup = None

    def add_import(self, node) -> None:
        for local, qualified in import_bindings(node, self.module_name, self.is_package):
            self._bind(local, qualified)
        if self.parent is None:
            star = star_module(node, self.module_name, self.is_package)
            if star is not None:
                self.stars.append(star)

    add_import_from = add_import

    def _bind(self, local: str, qualified: str) -> None:
        old = self.bindings.get(local)
        if old is not None and old.startswith("jax.") and old[len("jax."):] == qualified:
            # `import jax.numpy as jnp` and, in the branch for a machine without JAX, `import numpy as jnp`
            # (a `try`/`except ImportError`, `if not JAX_AVAILABLE:`): traced code only runs where JAX
            # imported, so there the name is JAX's (JAXTrace, fresh set BF)
            return
        if self.parent is None and (local in self.rebound or old is not None and old != qualified):
            # `import numpy as np` in one cell, `import jax.numpy as np` in a later one: a function the
            # cells between call reads NumPy's, one called later JAX's (qdpy's notebook, fresh set BR)
            self.rebound.add(local)
            self.shadow(local)
            return
        self.bindings[local] = qualified
        self.shadowed.discard(local)

    def shadow(self, local: str) -> None:
        if local in self.bindings:
            del self.bindings[local]
        self.shadowed.add(local)

    def lookup(self, name: str) -> str | None:
        scope: Scope = self
        while True:
            if name in scope.bindings:
                return scope.bindings[name]
            if name in scope.shadowed:
                return None
            if scope.parent is None:
                break
            scope = scope.parent
        # (the module scope: a name no import binds may come from a star import)
        return scope.star_lookup(name) if scope.star_lookup is not None else None

    def qualify(self, expr) -> str | None:
        """The canonical qualified name of a Name/Attribute chain, or None when it is not imported."""
        return qualify(expr, self.lookup)
