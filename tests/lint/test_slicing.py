"""Sliced parsing (jitlint.lint.slicing) gives exactly the findings of parsing the whole file.

* Every fixture, example, rule example and project fixture: the same findings (positions, messages,
  fixes) with and without slicing.
* Files where slicing really drops statements: fixtures with unrelated code around them, and generated
  modules that shuffle the top-level statements of several fixtures together (so names are bound, read
  and rebound in many orders), each checked both ways; slicing is seen to drop lines there.
* Where slicing cannot be shown to be exact (a star import, `\\r` line breaks), the whole file is parsed.
"""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import FIXTURES, fixture_files, project_fixtures
from jitlint.lint import analyse, slicing
from jitlint.core.config import Config
from jitlint.lint.pipeline import check_source
from jitlint.project.runner import lint_paths
from jitlint.source.python import parse_python
from jitlint.rules.registry import all_rules

ALL = Config(select=("ALL",))
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
PROJECTS = project_fixtures()

UNRELATED = '''
import os
import collections

LIMIT = 10
_registry = {}


def unrelated_helper(a, b=LIMIT):
    """Nothing here refers to jax."""
    total = 0
    for i in range(a):
        total += i * b
    return total


class Plain:
    size: int = 3

    def grow(self, n):
        self.size += n
        return collections.Counter(range(n))


_registry["plain"] = Plain()
print(unrelated_helper(3), os.sep)
'''


@pytest.fixture(autouse=True)
def sliced_parse(monkeypatch):
    """`jitlint check` parses whole files by default (analyse.SLICED_PARSE): here it slices."""
    monkeypatch.setattr(analyse, "SLICED_PARSE", True)


def whole(monkeypatch):
    monkeypatch.setattr(analyse, "_parse_sliced", lambda *args, **kwargs: None)


def both(source: str, path: str, monkeypatch, **kwargs):
    sliced = check_source(source, path, ALL, **kwargs)
    with monkeypatch.context() as m:
        whole(m)
        full = check_source(source, path, ALL, **kwargs)
    return sliced, full


def kept_fraction(source: str) -> float:
    tree, error = parse_python(source)
    assert error is None
    found = slicing.plan(source, tree, None, False)
    return 1.0 if found is None else found.kept_lines / (source.count("\n") + 1)


def inputs() -> list[tuple[str, str]]:
    out = [(p.name, p.read_text(encoding="utf-8")) for p in fixture_files() + EXAMPLES]
    for rule in all_rules():
        out += [(f"{rule.code}-invalid-{i}", textwrap.dedent(s)) for i, s in enumerate(rule.invalid)]
        out += [(f"{rule.code}-valid-{i}", textwrap.dedent(s)) for i, s in enumerate(rule.valid)]
    return out


@pytest.mark.parametrize("name,source", inputs(), ids=[name for name, _ in inputs()])
def test_same_findings_as_the_whole_file(name, source, monkeypatch):
    sliced, full = both(source, name, monkeypatch)
    assert sliced.findings == full.findings
    # and with unrelated code before and after it, which slicing drops
    padded = UNRELATED + "\n\n" + source + "\n\n" + UNRELATED.replace("unrelated_helper", "other_helper")
    sliced, full = both(padded, name, monkeypatch)
    assert sliced.findings == full.findings


def test_unrelated_code_is_not_parsed():
    source = (FIXTURES / "JIT501.py").read_text(encoding="utf-8")
    body = UNRELATED.replace("import os\nimport collections\n", "")
    padded = UNRELATED + "\n\n" + source + "\n\n" + body * 15  # (unrelated code outweighing the fixture)
    assert kept_fraction(padded) < 0.6


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_project_fixtures_against_the_index(project, monkeypatch):
    monkeypatch.chdir(project)
    sliced = lint_paths(["."], ALL).findings
    whole(monkeypatch)
    assert lint_paths(["."], ALL).findings == sliced


def _top_level_statements() -> list[str]:
    """The top-level statements of every fixture and example, each with its comments and decorators."""
    out = []
    for path in fixture_files() + EXAMPLES:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        tree = ast.parse(text)
        for stmt in tree.body:
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
            out.append("\n".join(lines[first - 1:stmt.end_lineno]))
    return out


STATEMENTS = _top_level_statements()


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, len(STATEMENTS) - 1), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_shuffled_statements_of_the_fixtures(picks, rnd: random.Random):
    """Top-level statements of different fixtures mixed: names bound in one, read or rebound in another,
    imports missing or repeated. Whatever the mix, sliced and whole give the same findings."""
    body = [STATEMENTS[i] for i in picks]
    if rnd.random() < 0.5:
        body.insert(0, "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom functools import partial")
    source = "\n\n\n".join(body) + "\n"
    try:
        compile(source, "<mix>", "exec", dont_inherit=True)
    except SyntaxError:
        return  # `return` outside a function and the like: JIT000 either way, nothing to compare
    saved_flag, analyse.SLICED_PARSE = analyse.SLICED_PARSE, True
    try:
        sliced = check_source(source, "mix.py", ALL)
    finally:
        analyse.SLICED_PARSE = saved_flag
    saved = analyse._parse_sliced
    analyse._parse_sliced = lambda *args, **kwargs: None
    try:
        full = check_source(source, "mix.py", ALL)
    finally:
        analyse._parse_sliced = saved
    assert sliced.findings == full.findings


def test_star_imports_and_carriage_returns_parse_the_whole_file():
    source = "from jax import *\n\n@jit\ndef f(x):\n    print(x)\n    return x\n\nLIMIT = 3\n"
    tree, _ = parse_python(source)
    assert slicing.plan(source, tree, None, False) is None
    crlf = "import jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    print(x)\r\n    return x\r\n"
    tree, _ = parse_python(crlf)
    assert slicing.plan(crlf, tree, None, False) is None
    assert [f.code for f in check_source(crlf, "crlf.py", ALL).findings] == ["JIT501"]


def test_positions_and_fixes_are_those_of_the_file(monkeypatch):
    source = UNRELATED + textwrap.dedent('''

        import jax


        # a comment before the decorator
        @jax.jit
        def step(x, y):
            z = x + y  # ß→ non-ASCII before the finding
            print("z is", z)
            return z
        ''') + UNRELATED.replace("unrelated_helper", "later_helper")
    assert kept_fraction(source) < 0.5
    used = []
    real = slicing.parse_sliced
    monkeypatch.setattr(slicing, "parse_sliced", lambda *args, **kwargs: used.append(1) or real(*args, **kwargs))
    sliced, full = both(source, "pos.py", monkeypatch)
    assert used  # the sliced side was parsed sliced
    assert sliced.findings == full.findings
    (finding,) = [f for f in sliced.findings if f.code == "JIT501"]
    line = source.split("\n")[finding.line - 1]
    assert line[finding.col - 1:finding.end_col - 1] == 'print("z is", z)'
    assert finding.fix is not None and "jax.debug.print" in finding.fix.edits[0].new_text


def test_fixes_see_the_whole_file(monkeypatch):
    """The print fix names `jax` as the file imports it, adds `import jax` before the first statement after
    the docstring and `from __future__`, and is unsafe where the file stages code anywhere: all read
    from the whole file, though the statements around the print are not parsed."""
    source = textwrap.dedent('''\
        """A module."""
        from __future__ import annotations

        import os
        from jax import jit


        def unrelated():
            return os.sep


        @jit
        def f(x):
            print(x)
            return x
        ''')
    sliced, full = both(source, "fix.py", monkeypatch)
    assert sliced.findings == full.findings
    (edit_print, edit_import) = sliced.findings[0].fix.edits
    assert (edit_import.line, edit_import.new_text) == (4, "import jax\n")
    staged = source + "\n\nlowered = jax.jit(unrelated).lower()\n"
    sliced, full = both(staged, "fix.py", monkeypatch)
    assert sliced.findings == full.findings


INDENTED = {
    "none": "import jax\nx = 1\n",
    "first block": "import jax\n\n\ndef f(x):\n  return x\n\n\ndef g(x):\n    return x\n",
    "tabs": "def f(x):\n\tif x:\n\t\treturn x\n",
    "same-line suite first": "if x: y = 1\nelse:\n   z = 2\n",
    "elif": "if a: b\nelif c: d\nelif e:\n      f\n",
    "else if": "if a: b\nelse:\n   if c:\n      d\n",
    "try": "try: x\nexcept E: y\nexcept F:\n  z\nfinally:\n    w\n",
    "match": "match x:\n case 1:\n   pass\n",
    "match in a def": "def f():\n  match x:\n      case 1: pass\n",
    "a pattern on a later line": "match x:\n    case (\n            1):\n        pass\n",
    "multi-line header": "def f(a,\n      b): return a\nclass C(\n    object):\n\n   # a comment\n   x = 1\n",
    "decorated, docstring": "@jax.jit\ndef f(x):\n        '''doc\n  string'''\n        return x\n",
    "one-line def then loop": "def f(): return 1\nfor i in range(3):\n  \n   print(i)\n",
    "with, while": "with a as b: pass\nwhile x:\n x -= 1\n",
    "async": "async def f():\n   async with a: pass\n   async for i in b:\n      pass\n",
    # a backslash after the colon continues the header's line: a one-line suite, not a block
    "suite after a backslash": "if x: \\\n  y = 1\nif z:\n    w = 2\n",
    "backslashes in a row": "for i in r: \\\n \\\n\tpass\nfor j in r:\n  pass\n",
    "backslash, then else": "while x: \\\n pass\nelse:\n      pass\n",
    "a comment's backslash": "if x:  # note \\\n   y\nif z:\n  w\n",
}


@pytest.mark.parametrize("name", sorted(INDENTED))
def test_the_default_indent_is_libcsts(name):
    """A module of some of a file's statements gets libcst's default indent for the whole file (it
    renders their blocks' code): the first indented block's, found with CPython's ast."""
    import libcst as cst

    text = INDENTED[name]
    found = slicing.plan(text, ast.parse(text), None, False)
    assert slicing.default_indent(found.chunks) == cst.parse_module(text).default_indent


def test_every_fixtures_default_indent_is_libcsts():
    import libcst as cst

    for path in fixture_files() + EXAMPLES:
        text = path.read_text(encoding="utf-8")
        tree, error = parse_python(text)
        found = slicing.plan(text, tree, None, False) if error is None else None
        if found is not None:
            assert slicing.default_indent(found.chunks) == cst.parse_module(text).default_indent, path


REFERRING = {
    "stores and reads": "import jax\nfrom jax import jit as J\njit = J\njax = 1\nprint(jax.numpy.sum)\n",
    "nested imports": "def f():\n    import jax.numpy as jnp\n    return jnp.sum\n\n\nclass C:\n    from jax import lax\n",
    "star": "from jax import *\nfrom jax.lax import scan\nscan(f, 0, xs)\n",
    "relative": "from . import models\nfrom ..util import jit\nmodels.step(jit)\n",
    "no imports": "x = 1\nprint(x.y.z)\n",
}


@pytest.mark.parametrize("name", sorted(REFERRING))
def test_references_from_the_chunks_are_pass_ones(name):
    """The language server finds pass 1's references from its chunks' facts (remembered by chunk text):
    the same set as the walk of the whole tree."""
    from jitlint.analysis.prefilter import references

    text = REFERRING[name]
    tree = ast.parse(text)
    chunks, _ = slicing.chunk_file(text, tree, "pkg.sub.mod", False)
    assert slicing.references(chunks) == references(tree, "pkg.sub.mod", False)


def test_every_fixtures_references_from_the_chunks_are_pass_ones():
    from jitlint.analysis.prefilter import references

    for path in fixture_files() + EXAMPLES:
        text = path.read_text(encoding="utf-8")
        tree, error = parse_python(text)
        chunked = slicing.chunk_file(text, tree, "pkg.mod", False) if error is None else None
        if chunked is not None:
            assert slicing.references(chunked[0]) == references(tree, "pkg.mod", False), path


def test_an_edit_walks_only_the_chunks_it_changed(monkeypatch):
    from jitlint.analysis import prefilter
    from jitlint.project.incremental import Document

    text = "import jax\n\n\n" + "".join(f"def f{i}(x):\n    return jax.jit(x)\n\n\n" for i in range(50))
    doc = Document()
    index = __import__("jitlint.analysis.index", fromlist=["ProjectIndex"]).ProjectIndex()
    first = check_source(text, "m.py", ALL, index=index, state=doc)
    walked = []
    scan = slicing._scan
    monkeypatch.setattr(slicing, "_scan", lambda stmts, found: walked.append(stmts) or scan(stmts, found))
    monkeypatch.setattr(prefilter, "references", lambda *args: pytest.fail("walked the whole tree"))
    edited = text.replace("def f7(x):\n    return jax.jit(x)", "def f7(x):\n    return jax.jit(x + 1)")
    again = check_source(edited, "m.py", ALL, index=index, state=doc)
    assert len(walked) == 1 and again.findings == first.findings == []
