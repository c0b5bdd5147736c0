"""A read-only walk over a libcst tree, for visitors that only look.

`CSTNode.visit` rebuilds every node it passes (`_visit_and_replace_children` constructs and validates a
copy, even for a `CSTVisitor` that changes nothing), which made one walk of a module cost about twice its
parse. `walk` calls the same `visit_<Node>` / `leave_<Node>` methods in the same nesting (pre-order, a
`visit_` returning False skips the children, `leave_` always runs), reading the children straight from the
dataclass fields. Fields that hold only whitespace, commas and brackets are not entered: no statement,
function or lambda lives there. Attribute hooks (`visit_<Node>_<field>`) are not supported.
"""

from __future__ import annotations

import dataclasses

from libcst import CSTNode

# Fields that hold only layout tokens (whitespace, comments, brackets, separators).
_TRIVIA = {"lpar", "rpar", "comma", "leading_lines", "lines_after_decorators", "header", "footer", "semicolon",
           "newline", "trailing_whitespace", "dot", "colon", "equal", "star", "asynchronous", "lbracket",
           "rbracket", "lbrace", "rbrace", "operator", "assign", "arrow", "whitespace"}

_child_fields: dict[type, tuple[str, ...]] = {}
_is_node: dict[type, bool] = {}
_hooks: dict[tuple[type, type], tuple] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _child_fields.get(cls)
    if names is None:
        names = _child_fields[cls] = tuple(
            f.name for f in dataclasses.fields(cls)
            if f.name not in _TRIVIA and not f.name.startswith("whitespace"))
    return names


def _node_class(cls: type) -> bool:
    known = _is_node.get(cls)
    if known is None:
        known = _is_node[cls] = issubclass(cls, CSTNode)
    return known


def walk(node: CSTNode, visitor) -> None:
    """Visit `node` and everything under it with `visitor`'s `visit_X`/`leave_X` methods."""
    cls = node.__class__
    key = (visitor.__class__, cls)
    hooks = _hooks.get(key)
    if hooks is None:
        hooks = _hooks[key] = (getattr(visitor.__class__, "visit_" + cls.__name__, None),
                               getattr(visitor.__class__, "leave_" + cls.__name__, None))
    visit, leave = hooks
    if visit is None or visit(visitor, node) is not False:
        for name in _fields(cls):
            value = getattr(node, name)
            vcls = value.__class__
            if vcls is tuple or vcls is list:
                for item in value:
                    if _node_class(item.__class__):
                        walk(item, visitor)
            elif _node_class(vcls):
                walk(value, visitor)
    if leave is not None:
        leave(visitor, node)


def descendants(node: CSTNode) -> list[CSTNode]:
    """`node` and every node under it (trivia fields excepted), in no particular order."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(children(current))
    return out


def children(node: CSTNode) -> list[CSTNode]:
    """The child nodes of `node` (trivia fields excepted), read from its fields: `CSTNode.children` builds
    them through a visit, which is many times slower."""
    out = []
    for name in _fields(node.__class__):
        value = getattr(node, name)
        vcls = value.__class__
        if vcls is tuple or vcls is list:
            out.extend(item for item in value if _node_class(item.__class__))
        elif _node_class(vcls):
            out.append(value)
    return out
