"""Read-only walks over a libcst tree, for code that only looks.

`CSTNode.visit` rebuilds every node it passes (`_visit_and_replace_children` constructs and validates a
copy, even for a `CSTVisitor` that changes nothing), which made one walk of a module cost about twice its
parse. `walk_statements` calls the same `visit_<Node>` / `leave_<Node>` methods in the same nesting
(pre-order, a `visit_` returning False skips the children, `leave_` always runs) on the statements of a
tree, reading the children straight from the dataclass fields; `descendants` and `children` list nodes
the same way. Fields that hold only whitespace, commas and brackets are not entered: no statement,
function or lambda lives there. Attribute hooks (`visit_<Node>_<field>`) are not supported.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
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


# What holds statements: a def, a class or an import is only ever found through these (never inside an
# expression), so a walk looking for them need not enter the expressions, most of a module's nodes.
_STATEMENT_PARTS = (cst.Module, cst.BaseStatement, cst.BaseSmallStatement, cst.BaseSuite, cst.Else, cst.Finally,
                    cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)
_is_statement_part: dict[type, bool] = {}


def walk_statements(node: CSTNode, visitor) -> None:
    """Visit the statements of `node` (the suites and clauses that hold them included) with `visitor`'s
    `visit_X`/`leave_X` methods: the hooks of small statements run, no expression is visited."""
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
                    if statement_part(item.__class__):
                        walk_statements(item, visitor)
            elif statement_part(vcls):
                walk_statements(value, visitor)
    if leave is not None:
        leave(visitor, node)


def statement_part(cls: type) -> bool:
    """Whether nodes of this class hold statements or are one (a suite, a clause, a statement)."""
    known = _is_statement_part.get(cls)
    if known is None:
        known = _is_statement_part[cls] = issubclass(cls, _STATEMENT_PARTS)
    return known


def descendants(node: CSTNode) -> list[CSTNode]:
    """`node` and every node under it (trivia fields excepted), in no particular order."""
    # `children` inlined: this runs over whole statements for positions and fixes.
    out = []
    stack = [node]
    pop, push = stack.pop, stack.append
    fields_of, is_node = _child_fields, _is_node
    while stack:
        current = pop()
        out.append(current)
        cls = current.__class__
        for name in fields_of.get(cls) or _fields(cls):
            value = getattr(current, name)
            vcls = value.__class__
            if vcls is tuple or vcls is list:
                for item in value:
                    icls = item.__class__
                    if is_node.get(icls) or (icls not in is_node and _node_class(icls)):
                        push(item)
            elif is_node.get(vcls) or (vcls not in is_node and _node_class(vcls)):
                push(value)
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


class TopLevel:
    """Which top-level statement of a module holds a node, and for a def or class which statement of its
    body (`member_of`). A statement's nodes are listed only when a node not found so far is asked for:
    first the statement `guess()(node)` names, if any (`guess`: a weak method; checked, so a wrong guess
    costs only time), then the others in order. The fixes and the positions of a file's findings ask
    about a few nodes and share one index."""

    def __init__(self, module: CSTNode, guess=None) -> None:
        self._body = module.body
        self._guess = guess
        self._where: dict[int, int] = {id(stmt): k for k, stmt in enumerate(module.body)}  # id(node) -> index
        self._member: dict[int, int] = {}  # id(node) -> index of the body statement holding it (defs, classes)
        self._listed: set[int] = set()
        self._next = 0  # statements before this one are listed

    def index_of(self, node: CSTNode) -> int | None:
        k = self._where.get(id(node))
        if k is not None:
            return k
        guess_of = self._guess() if self._guess is not None else None  # (a weak method)
        guess = guess_of(node) if guess_of is not None else None
        if guess is not None and 0 <= guess < len(self._body) and guess not in self._listed:
            self._list(guess)
            k = self._where.get(id(node))
        while k is None and self._next < len(self._body):
            if self._next not in self._listed:
                self._list(self._next)
                k = self._where.get(id(node))
            self._next += 1
        return k

    def member_of(self, node: CSTNode) -> int | None:
        """Where `node` lies in the body of the def or class `index_of(node)` names: the index of that body
        statement; None for a node of its header (decorators, parameters, bases) or of other statements."""
        if self.index_of(node) is None:
            return None
        return self._member.get(id(node))

    def _list(self, k: int) -> None:
        self._listed.add(k)
        stmt = self._body[k]
        block = stmt.body if stmt.__class__ is cst.FunctionDef or stmt.__class__ is cst.ClassDef else None
        if block.__class__ is not cst.IndentedBlock:
            for n in descendants(stmt):
                self._where.setdefault(id(n), k)
            return
        where, member = self._where, self._member
        for j, statement in enumerate(block.body):
            for n in descendants(statement):
                where.setdefault(id(n), k)
                member.setdefault(id(n), j)
        where.setdefault(id(block), k)
        for child in children(stmt):
            if child is not block:
                for n in descendants(child):
                    where.setdefault(id(n), k)


def names_spelt(node: CSTNode) -> frozenset[str]:
    """Every name `node` and the nodes under it spell, attribute names included (`x.shape`: `x` and
    `shape`): what code may read, where a few extra names do no harm (keys of tests seen, of contexts)."""
    return frozenset(n.value for n in descendants(node) if n.__class__ is cst.Name)


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment or loop target binds, through tuples, lists and starred parts."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def bound_names(node: cst.CSTNode) -> list[str]:
    """The names an assignment statement (`=`, `+=`, annotated) or a loop (`for`, a comprehension's `for`)
    binds; [] for any other node."""
    if isinstance(node, cst.Assign):
        return [n for t in node.targets for n in target_names(t.target)]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
        return target_names(node.target)
    return []
