"""Import and alias tracking: which qualified name does a local name stand for?

libcst's QualifiedNameProvider costs several times the parse itself, so jitlint keeps its own small map
of import bindings per scope. Relative imports resolve against the module's dotted name when it is known
(the project index needs that); otherwise they keep their leading dots.
"""

from __future__ import annotations

import libcst as cst

from jitlint.qualnames import canonical, resolve_relative


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` as text, for Name/Attribute chains only."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


class Scope:
    """Import bindings of one scope (module, function or class), chained to the enclosing scope."""

    __slots__ = ("parent", "bindings", "shadowed", "module_name", "is_package")

    def __init__(self, parent: "Scope | None" = None, module_name: str | None = None,
                 is_package: bool = False):
        self.parent = parent
        self.bindings: dict[str, str] = {}
        # Names rebound locally to something that is not an import (they hide outer imports).
        self.shadowed: set[str] = set()
        self.module_name = module_name if parent is None else parent.module_name
        self.is_package = is_package if parent is None else parent.is_package

    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, full)
            else:
                # `import a.b.c` binds `a`, and `a.b.c` resolves through it.
                head = full.split(".")[0]
                self._bind(head, head)

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if level:
            module = resolve_relative(self.module_name, self.is_package, level, module or "")
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            name = alias.name.value
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._bind(local, f"{module}.{name}" if module else name)

    def _bind(self, local: str, qualified: str) -> None:
        self.bindings[local] = qualified
        self.shadowed.discard(local)

    def shadow(self, local: str) -> None:
        if local in self.bindings:
            del self.bindings[local]
        self.shadowed.add(local)

    def lookup(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            if name in scope.shadowed:
                return None
            scope = scope.parent
        return None

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        """The canonical qualified name of a Name/Attribute chain, or None when it is not imported."""
        if isinstance(expr, cst.Name):
            return canonical(self.lookup(expr.value))
        if isinstance(expr, cst.Attribute):
            base = self.qualify(expr.value)
            if base is None:
                return None
            return canonical(f"{base}.{expr.attr.value}")
        return None
