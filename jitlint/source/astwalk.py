"""Walking CPython's `ast` quickly: pass 1 walks every file, and `ast.walk` (a generator per node, fields read
through `iter_fields`) is several times slower than one stack over the fields that can hold a node."""

from __future__ import annotations

import ast
from typing import Iterable, Iterator

_NOT_CHILDREN = {"ctx", "op", "ops", "type_comment"}  # contexts and operators: leaves without names
_fields_cache: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of an `ast` node class that may hold names: the one walk order of pass 1, which the
    whole-file facts and sliced parsing walk by too."""
    fields = _fields_cache.get(cls)
    if fields is None:
        fields = _fields_cache[cls] = tuple(f for f in cls._fields if f not in _NOT_CHILDREN)
    return fields


# Fields that hold no node (identifiers, numbers, flags), and classes none of whose fields does: what the
# walks skip, so that every field they read holds a node, a list of nodes, or None.
_SCALAR_FIELDS = {"id", "attr", "name", "asname", "arg", "module", "kind", "type_comment", "level", "conversion",
                  "is_async", "simple", "tag", "kwd_attrs", "rest"}
_LEAF_CLASSES = {ast.Constant, ast.Global, ast.Nonlocal, ast.MatchSingleton, ast.TypeIgnore}
node_fields_cache: dict[type, tuple[str, ...]] = {}


def node_fields(cls: type) -> tuple[str, ...]:
    """The fields of an `ast` node class that hold nodes (none for a leaf), remembered per class."""
    fields = node_fields_cache.get(cls)
    if fields is None:
        fields = node_fields_cache[cls] = () if cls in _LEAF_CLASSES else tuple(
            f for f in child_fields(cls) if f not in _SCALAR_FIELDS)
    return fields


def walk(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of `nodes` and every node under them, in no particular order: what `ast.walk` yields
    for each, but contexts and operators (`Load`, `Add`)."""
    stack: list = list(nodes)
    pop, push, push_all, fields_of = stack.pop, stack.append, stack.extend, node_fields_cache.get
    while stack:
        node = pop()
        if node is None:  # (a `Dict`'s key for `**rest`, an absent optional part)
            continue
        yield node
        cls = node.__class__
        for name in fields_of(cls) or node_fields(cls):
            value = getattr(node, name, None)
            if value.__class__ is list:
                push_all(value)
            else:
                push(value)
