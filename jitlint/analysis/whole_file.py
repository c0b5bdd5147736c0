"""What fixes need to know of a whole file beyond the statements they edit: the names it binds, whether
it imports everything from somewhere, whether it stages functions without running them.

Fixes ask their questions through `RuleContext.file_fact`, which records them: the language server reuses
a finding whose fix asked while the same questions get the same answers on the edited text
(jitlint.project.incremental), instead of re-analysing it on every edit.
"""

from __future__ import annotations

import ast

from jitlint.source.astwalk import walk
from jitlint.source.python import parse_python

# Calls that trace a function without running it: a jax.debug.print there prints nothing.
STAGING_WORDS = ("eval_shape", "make_jaxpr", ".lower(", ".trace(")


class WholeFile:
    """The answers about one text, each worked out when first asked: the staging words from the text, the
    bindings from its CPython ast (the caller's, or jitlint.source.python.parse_python's, which pass 1 has usually
    just parsed), whose Store/Del contexts mark them all."""

    def __init__(self, source: str, tree: ast.Module | None = None) -> None:
        self._source = source
        self._tree = tree
        self._stages: bool | None = None
        self._bindings: tuple[frozenset[str] | None, bool] | None = None  # (bound, star)

    def answer(self, question):
        """A question a fix asks of the file: "parsed" (does CPython parse it?), "star", "stages",
        ("binds", name): does anything but an import of the jax package bind `name`?, or ("fresh", base):
        the first of `base`, `base2`, `base3` ... that the text never mentions (which cannot collide with
        any name of the file)."""
        if isinstance(question, tuple) and question[0] == "fresh":
            base = question[1]
            name, k = base, 2
            while name in self._source:
                name, k = f"{base}{k}", k + 1
            return name
        if question == "stages":
            if self._stages is None:
                self._stages = any(word in self._source for word in STAGING_WORDS)
            return self._stages
        bound, star = self._bound()
        if question == "parsed":
            return bound is not None
        if question == "star":
            return star
        kind, name = question
        assert kind == "binds", question
        return bound is not None and name in bound

    def _bound(self) -> tuple[frozenset[str] | None, bool]:
        if self._bindings is None:
            tree = self._tree
            if tree is None:
                tree, _ = parse_python(self._source)
            self._bindings = _bindings(tree) if tree is not None else (None, False)
        return self._bindings


def _bindings(tree: ast.Module) -> tuple[frozenset[str], bool]:
    """(every name the tree binds other than by importing the jax package, whether it star-imports)."""
    bound: set[str] = set()
    star = False
    Name, Load, binders = ast.Name, ast.Load, _BINDERS.get
    for node in walk((tree,)):  # (dispatching on the class: several times faster than isinstance per kind)
        cls = node.__class__
        if cls is Name:
            if node.ctx.__class__ is not Load:
                bound.add(node.id)
            continue
        kind = binders(cls)
        if kind is None:
            continue
        if kind == "arg":
            bound.add(node.arg)
        elif kind == "name":
            if node.name:
                bound.add(node.name)
        elif kind == "rest":
            if node.rest:
                bound.add(node.rest)
        elif kind == "names":
            bound.update(node.names)
        elif kind == "import":
            for a in node.names:
                if a.asname is not None and a.name != "jax":
                    bound.add(a.asname)
                elif a.asname is None and a.name.split(".")[0] != "jax":
                    bound.add(a.name.split(".")[0])
        else:  # "from"
            for a in node.names:
                if a.name == "*":
                    star = True
                bound.add(a.asname or a.name)
    return frozenset(bound), star


# The nodes that bind names (besides ast.Name in a Store/Del context), by what they bind.
_BINDERS: dict[type, str] = {
    ast.arg: "arg",
    ast.FunctionDef: "name", ast.AsyncFunctionDef: "name", ast.ClassDef: "name",
    ast.ExceptHandler: "name", ast.MatchAs: "name", ast.MatchStar: "name",
    ast.MatchMapping: "rest",
    ast.Global: "names", ast.Nonlocal: "names",
    ast.Import: "import", ast.ImportFrom: "from",
}
