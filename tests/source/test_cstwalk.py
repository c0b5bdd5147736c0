"""The read-only tree walks the analysis is built on (jitlint.source.cstwalk), against libcst's own visit."""

from __future__ import annotations

import inspect

import libcst as cst

from jitlint.source.cstwalk import TopLevel, children, descendants, walk_statements

SOURCE = '''
"""doc"""
import jax
from jax import numpy as jnp, lax

def top(x, f=lambda y: y + 1):
    import functools
    def inner(a):
        class Local:
            def method(self):
                from os import path
        return [lambda q: q for _ in a]
    return inner

class Model:
    import math as m
    def __call__(self, x):
        def helper(): pass
        return x

if jax:
    def in_if(): pass
elif 1:
    def in_elif(): pass
else:
    def in_else(): pass
for i in range(3):
    def in_for(): pass
else:
    import sys
while False:
    def in_while(): pass
try:
    def in_try(): pass
except ValueError:
    def in_except(): pass
else:
    def in_try_else(): pass
finally:
    def in_finally(): pass
with open("f") as fh:
    def in_with(): pass
match 1:
    case 1:
        def in_case(): pass
x = 1; import re
@jax.jit
def decorated(y): return (lambda: y)()
'''


class _Recorder(cst.CSTVisitor):
    """Records, in order, the statements the analysis' collector looks for."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.seen.append("def " + node.name.value)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.seen.append("end " + node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.seen.append("class " + node.name.value)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.seen.append("end " + node.name.value)

    def visit_Import(self, node: cst.Import) -> bool:
        self.seen.append("import " + cst.Module([]).code_for_node(node))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.seen.append("from " + cst.Module([]).code_for_node(node))
        return False


def test_walk_statements_meets_every_def_class_and_import_as_libcst_visit_does():
    module = cst.parse_module(SOURCE)
    ours, theirs = _Recorder(), _Recorder()
    walk_statements(module, ours)
    module.visit(theirs)
    assert ours.seen == theirs.seen
    assert "def in_case" in ours.seen and "def method" in ours.seen and "from from os import path" in ours.seen


def test_descendants_lists_each_node_once_as_children_do():
    module = cst.parse_module(SOURCE)
    listed = descendants(module)
    assert len({id(n) for n in listed}) == len(listed)
    by_children = []
    stack = [module]
    while stack:
        node = stack.pop()
        by_children.append(node)
        stack.extend(children(node))
    assert [id(n) for n in listed] == [id(n) for n in by_children]
    assert any(isinstance(n, cst.Lambda) for n in listed)


def test_top_level_finds_the_statement_holding_any_node_in_any_order():
    module = cst.parse_module(SOURCE)
    expected = {id(n): k for k, stmt in enumerate(module.body) for n in descendants(stmt)}
    nodes = [n for stmt in module.body for n in descendants(stmt)]
    top = TopLevel(module)
    for node in reversed(nodes[::7]):  # late statements first: the index is built on the way
        assert top.index_of(node) == expected[id(node)]
    for node in nodes:
        assert top.index_of(node) == expected[id(node)]
    assert top.index_of(cst.Name("elsewhere")) is None
    assert top.index_of(module) is None
    # A guess only says where to look first: wrong or impossible guesses give the same answers.
    for guess in (lambda n: 0, lambda n: len(module.body) + 3, lambda n: expected.get(id(n))):
        top = TopLevel(module, lambda: guess)  # (a weak method in the analysis: called for the guesser)
        for node in nodes[::-5]:
            assert top.index_of(node) == expected[id(node)]


def test_libcst_concrete_node_classes_have_no_subclasses():
    # The evaluator's hot paths test `node.__class__ is cst.X` instead of isinstance (which goes through
    # ABCMeta): that is the same test only while no concrete libcst node class has a subclass.
    concrete = [c for c in vars(cst).values() if inspect.isclass(c) and issubclass(c, cst.CSTNode)
                and not inspect.isabstract(c) and not c.__name__.startswith("Base")]
    assert len(concrete) > 100
    assert [c.__name__ for c in concrete if c.__subclasses__()] == []


def test_an_analysis_is_freed_without_the_cyclic_collector():
    # Each file's analysis (its values, sites, calls) must go as soon as the file is done: a reference
    # cycle would keep it until the collector runs, which the linter's workers tune to run rarely.
    import gc
    import weakref

    from jitlint.analysis.facade import analyze

    gc.disable()
    try:
        analysis = analyze(cst.parse_module(SOURCE))
        analysis.top_level.index_of(analysis.module.body[-1])
        gone = weakref.ref(analysis)
        del analysis
        assert gone() is None
    finally:
        gc.enable()
