"""What fixes need to know of a whole file beyond the statements they edit: the names it binds, whether
it imports everything from somewhere, whether it stages functions without running them.

Fixes ask their questions through `RuleContext.file_fact`, which records them: the language server reuses
a finding whose fix asked while the same questions get the same answers on the edited text
(jitlint.incremental), instead of re-analysing it on every edit.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# Calls that trace a function without running it: a jax.debug.print there prints nothing.
STAGING_WORDS = ("eval_shape", "make_jaxpr", ".lower(", ".trace(")


@dataclass(frozen=True)
class WholeFileFacts:
    bound: frozenset[str] | None  # names bound by anything but an import of the jax package (None: no ast)
    star: bool  # a `from ... import *`
    stages: bool  # the text mentions a staging call (STAGING_WORDS)

    def answer(self, question):
        """A question a fix asks of the file: "parsed" (does CPython parse it?), "star", "stages", or
        ("binds", name): does anything but an import of the jax package bind `name`?"""
        if question == "parsed":
            return self.bound is not None
        if question == "star":
            return self.star
        if question == "stages":
            return self.stages
        kind, name = question
        assert kind == "binds", question
        return self.bound is not None and name in self.bound


def whole_file_facts(source: str, tree: ast.Module | None = None) -> "WholeFileFacts":
    """The facts of `source` (its CPython ast, if the caller has it). Bindings are read from the ast, whose
    Store/Del contexts mark them all."""
    stages = any(word in source for word in STAGING_WORDS)
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return WholeFileFacts(None, False, stages)
    bound: set[str] = set()
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname is not None and a.name != "jax":
                    bound.add(a.asname)
                elif a.asname is None and a.name.split(".")[0] != "jax":
                    bound.add(a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    star = True
                bound.add(a.asname or a.name)
    return WholeFileFacts(frozenset(bound), star, stages)
