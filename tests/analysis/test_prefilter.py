"""The pre-filter: files no rule can report in are not parsed with libcst, and no finding is ever lost.

* Every fixture, every rule's invalid example and every file of the project fixtures that carries a
  finding passes the pre-filter (with the project's index where the finding needs it).
* With the pre-filter forced open, every fixture and project gives exactly the same findings.
* A file that cannot have findings is not parsed with libcst (seen from a real `jitlint check`), yet its
  syntax errors are still reported as JIT000.
* Positions computed on single statements equal libcst's whole-module positions.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import expected_findings, fixture_files, project_fixtures
from jitlint.lint import positions
from jitlint.analysis import jaxapi
from jitlint.analysis import prefilter
from jitlint.source import python as python_source
from jitlint.core.config import Config
from jitlint.lint.pipeline import check_source, lint_source
from jitlint.project.discovery import module_name_for
from jitlint.project.runner import index_files, lint_paths
from jitlint.rules.registry import all_rules

ALL = Config(select=("ALL",))
PROJECTS = project_fixtures()


def facts_of(path: Path):
    return prefilter.file_facts(path.read_text(encoding="utf-8"), str(path), *module_name_for(path))


def test_tokens_come_from_the_jax_tables():
    for table in (jaxapi.TRANSFORMS, jaxapi.LAX_BODIES, jaxapi.LAX_SWITCH, jaxapi.JIT_WRAPPERS):
        assert set(table) <= prefilter.TRACE_NAMES
        assert {name.rsplit(".", 1)[-1] for name in table} <= prefilter.TOKENS
    assert {"jit", "pjit", "pmap", "vmap", "grad", "checkpoint", "remat", "eval_shape", "make_jaxpr", "scan",
            "fori_loop", "while_loop", "cond", "switch", "map", "associative_scan", "filter_jit"} <= prefilter.TOKENS


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_every_fixture_with_findings_passes(path):
    text = path.read_text(encoding="utf-8")
    assert expected_findings(text)
    assert prefilter.mentions_trace_token(text)
    assert prefilter.is_relevant(facts_of(path), None)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_invalid_rule_example_passes(rule):
    for source in rule.invalid:
        facts = prefilter.file_facts(textwrap.dedent(source), "example.py", None, False)
        assert prefilter.is_relevant(facts, None), f"{rule.code}: an invalid example would be skipped"


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_project_files_with_findings_pass_with_the_index(project):
    """... or are called from other files' traced code: a run lints those whatever the pre-filter says
    (jitlint.analysis.foreign), which the run below shows."""
    files = sorted(project.rglob("*.py"))
    index, _ = index_files(files)
    run = lint_paths([str(project)])
    called = {Path(f.path).resolve() for f in run.findings if any(Path(s.path).resolve() != Path(f.path).resolve()
                                                                   for s in f.witness)}
    for path in files:
        if expected_findings(path.read_text(encoding="utf-8")):
            assert path.resolve() in called or prefilter.is_relevant(facts_of(path), index), path


@pytest.fixture
def prefilter_open(monkeypatch):
    """Lint every file fully, as if the pre-filter kept them all."""
    monkeypatch.setattr(prefilter, "is_relevant", lambda facts, index=None: True)


def _keys(findings):
    return sorted((f.path, f.line, f.col, f.end_line, f.end_col, f.code, f.message) for f in findings)


def test_forcing_the_filter_open_changes_no_fixture_finding(monkeypatch):
    paths = fixture_files()
    filtered = {p: _keys(lint_source(p.read_text(encoding="utf-8"), str(p), ALL)) for p in paths}
    with monkeypatch.context() as m:
        m.setattr(prefilter, "is_relevant", lambda facts, index=None: True)
        full = {p: _keys(lint_source(p.read_text(encoding="utf-8"), str(p), ALL)) for p in paths}
    assert filtered == full


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_forcing_the_filter_open_changes_no_project_finding(project, monkeypatch):
    filtered = lint_paths([str(project)], ALL)
    with monkeypatch.context() as m:
        m.setattr(prefilter, "is_relevant", lambda facts, index=None: True)
        full = lint_paths([str(project)], ALL)
    assert _keys(filtered.findings) == _keys(full.findings)
    assert full.stats.skipped == 0 and filtered.stats.analysed < full.stats.analysed


PLAIN = "import numpy as np\n\n\ndef clip(x):\n    if x.max() > 1:\n        return np.clip(x, 0, 1)\n    return x\n"
WORDS_ONLY = textwrap.dedent('''\
    """Mentions jit, vmap and scan in prose, and has its own `map`, `cond` and `grad`."""
    import numpy as np

    def cond(x):
        return x > 0

    def grad(x):
        return [cond(v) for v in map(float, np.ravel(x))]
    ''')


def test_words_alone_do_not_make_a_file_relevant():
    assert prefilter.mentions_trace_token(WORDS_ONLY)
    facts = prefilter.file_facts(WORDS_ONLY, "words.py", "words", False)
    assert not facts.trace and not prefilter.is_relevant(facts, None)
    assert not prefilter.is_relevant(prefilter.file_facts(PLAIN, "plain.py", "plain", False), None)


def test_aliases_and_relative_imports_resolve():
    text = textwrap.dedent("""\
        from jax import lax as L
        from .. import nn

        def body(i, c):
            return c

        def run(x):
            return L.fori_loop(0, 3, body, x), nn.layers.train_step
        """)
    facts = prefilter.file_facts(text, "pkg/sub/mod.py", "pkg.sub.mod", False)
    assert facts.trace
    assert {"jax.lax.fori_loop", "pkg.nn", "pkg.nn.layers", "pkg.nn.layers.train_step"} <= set(facts.refs)


def test_a_caller_without_any_jax_word_is_linted_through_the_index(tmp_path):
    """Stage 1 (words) would drop the caller; the index lookup of its resolved names keeps it."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(textwrap.dedent("""\
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("depth",))
        def forward(x, depth):
            return x * depth
        """))
    caller = pkg / "train.py"
    caller.write_text("from pkg.model import forward\n\n\ndef run(x):\n    for i in range(10):\n"
                      "        x = forward(x, depth=i)\n    return x\n")
    assert not prefilter.mentions_trace_token(caller.read_text())
    result = lint_paths([str(tmp_path)], ALL)
    assert [(Path(f.path).name, f.line, f.code) for f in result.findings] == [("train.py", 6, "JIT301")]
    assert result.stats.analysed == 2  # model.py (jit) and train.py (index); __init__.py skipped
    assert result.stats.skipped == 1


def _run_in_subprocess(args, cwd):
    """`jitlint check` in a fresh interpreter, reporting whether libcst was imported."""
    code = ("import sys\nfrom jitlint.frontends.cli import main\nrc = main(sys.argv[1:])\n"
            "sys.stderr.write('LIBCST=%s\\n' % ('libcst' in sys.modules))\nsys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
def test_files_without_jax_are_never_parsed_with_libcst_but_syntax_errors_are_reported(tmp_path):
    (tmp_path / "plain.py").write_text(PLAIN)
    (tmp_path / "words.py").write_text(WORDS_ONLY)
    (tmp_path / "broken.py").write_text("def f(x)\n    return x\n")
    result = _run_in_subprocess(["check", "--no-cache", "-j", "1", "."], tmp_path)
    assert "LIBCST=False" in result.stderr, result.stderr
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith("broken.py:1:9: JIT000 syntax error")
    assert "Found 1 finding" in result.stdout


@pytest.mark.slow
def test_a_file_with_jit_is_parsed_with_libcst(tmp_path):
    (tmp_path / "bad.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n")
    result = _run_in_subprocess(["check", "--no-cache", "-j", "1", "."], tmp_path)
    assert "LIBCST=True" in result.stderr and "bad.py:5:5: JIT501" in result.stdout


TRICKY = (
    "# header comment\r\n"
    "import jax\r\n"
    "a = 1; b = 2\r\n"
    "\x0c\r\n"
    "@jax.jit  # decorated\r\n"
    "def f(x):\r\n"
    "\tif x > 0:\r\n"
    "\t\tprint(x)\r\n"
    "\treturn x\r\n"
    "\r\n"
    "class C:\r\n"
    "    @jax.jit(static_argnums=0)\r\n"  # (a plain `self` traced would raise before the body runs)
    "    def g(self, y):\r\n"
    "        assert y > 0; print(y)\r\n"
    "        return y"  # no final newline
)


@pytest.mark.parametrize("path", [*fixture_files(), None], ids=lambda p: p.name if p else "tricky")
def test_statement_positions_equal_whole_module_positions(path):
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from jitlint.analysis.facade import analyze
    from jitlint.rules.registry import enabled_rules
    from jitlint.rules.base import RuleContext

    source = path.read_text(encoding="utf-8") if path else TRICKY
    module = cst.parse_module(source)
    ctx = RuleContext(analyze(module), "x.py")
    nodes = [report.node for rule in enabled_rules(ALL) for report in rule.check(ctx)]
    assert nodes
    fast = positions._statement_positions(module, source, nodes)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert fast is not None and {n: fast[n] for n in nodes} == {n: full[n] for n in nodes}


def test_tricky_layout_findings():
    codes = [(f.line, f.col, f.code) for f in lint_source(TRICKY, "tricky.py", ALL)]
    # Columns count code points (a tab is one), lines count CRLF once and a form feed not at all.
    assert codes == [(7, 5, "JIT401"), (8, 3, "JIT501"), (14, 16, "JIT402"), (14, 23, "JIT501")]


MEMBERS = {
    "class": (
        "import jax\n\n\nclass Model:\n    '''doc'''\n    size = 3; depth = 2\n\n# an unindented comment\n"
        "    # an indented one\n    @jax.jit  # decorated\n    def f(self, x):\n        y = (x +\n  1)\n"
        "        s = '''a\nstring''' + f'''{\nx}'''\n        return y\n        # deeper, the def's footer\n"
        "    # the class's\n\n    class Inner:\n        def g(self, z): return z\n"),
    "tabs, two spaces": "def f(x):\n\tif x:\n\t\treturn x\n\treturn [x,\n          x]\n\n\ndef g(y):\n  return y\n",
    "crlf, form feed": "class C:\r\n    \x0c\r\n    def g(self, y):\r\n        assert y > 0; print(y)\r\n        return y",
    "one-line members": "class C: x = 1\n\n\ndef f(x): return x\n",
}


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_member_positions_equal_whole_module_positions(name, monkeypatch):
    """Positions from a def's or class's body statements written alone: those of the whole module, for
    every node in them."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from jitlint.source.cstwalk import descendants

    source = MEMBERS[name]
    module = cst.parse_module(source)
    blocks = [stmt.body.body if isinstance(stmt, (cst.ClassDef, cst.FunctionDef))
              and isinstance(stmt.body, cst.IndentedBlock) else [stmt] for stmt in module.body]
    nodes = [n for members in blocks for member in members for n in descendants(member)]
    used = []
    members = positions._member_positions
    monkeypatch.setattr(positions, "_member_positions", lambda *args: used.append(members(*args)) or used[-1])
    fast = positions._statement_positions(module, source, nodes)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert fast is not None and {n: fast[n] for n in nodes} == {n: full[n] for n in nodes}
    assert bool(used and None not in used) == (name != "one-line members")


COMPILE_ERRORS = {  # (a text that compiles, the same text edited so that CPython's compiler refuses it)
    "return outside a function": ("import jax\n\n\ndef f(x):\n    return x\n\n\ny = 1\n", "y = 1\n", "return 1\n"),
    "a late __future__ import": ('"""doc"""\nfrom __future__ import annotations\nimport jax\n\n\nx = 1\n',
                                 "x = 1\n", "from __future__ import division\n"),
    "global after assignment": ("import jax\nx = 1\n\n\ndef f():\n    return x\n", "def f():\n",
                                "global x\n\n\ndef f():\n"),
    "nonlocal at module level": ("import jax\nx = 1\n", "x = 1\n", "nonlocal x\n"),
    "yield in an annotation, with the annotations future": (  # (valid without it)
        "from __future__ import annotations\nimport jax\n\n\ndef f():\n    y: int = 1\n", "y: int", "y: (yield)"),
    "an unknown __future__ feature": ("from __future__ import annotations\nimport jax\n", "annotations",
                                      "annotations, braces2"),
    "break outside a loop": ("import jax\n\n\ndef f(x):\n    return x\n", "return x", "break"),
    "duplicate argument": ("import jax\n\n\ndef f(x, y):\n    return x\n", "x, y", "x, x"),
}


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_the_language_servers_compile_check_by_parts_is_cpythons(name):
    """The server compiles only the top-level statements an edit changed: the JIT000 after the edit is a
    full lint's, CPython's own first error."""
    from jitlint.project.incremental import Document

    clean, old, new = COMPILE_ERRORS[name]
    doc = Document()
    assert check_source(clean, "m.py", ALL, state=doc).findings == lint_source(clean, "m.py", ALL)
    broken = clean.replace(old, new, 1)
    got = check_source(broken, "m.py", ALL, state=doc).findings
    assert [f.code for f in got] == ["JIT000"] and got == lint_source(broken, "m.py", ALL)
    assert got[0].message == lint_source(broken, "m.py", ALL)[0].message
    assert check_source(clean, "m.py", ALL, state=doc).findings == lint_source(clean, "m.py", ALL)


def test_compiling_the_fixtures_by_parts_agrees_with_compiling_them_whole():
    from jitlint.lint import slicing

    for path in fixture_files():
        text = path.read_text(encoding="utf-8")
        tree, error = python_source.parse_python(text)
        chunked = slicing.chunk_file(text, tree, None, False) if error is None else None
        if chunked is None:
            continue
        body = list(tree.body)
        parts = []
        for chunk, chunk_text in zip(chunked[0], slicing.chunk_texts(text, *chunked)):
            stmts = [s for s in body if chunk.start < s.lineno <= chunk.end]
            parts.append((chunk_text, stmts, False))
        whole = python_source.compile_error(tree, text, str(path))
        by_parts = python_source.compile_error_in_parts(tree, text, str(path), parts, set())
        assert (whole is None) == (by_parts is None), path
        assert whole is None or str(whole) == str(by_parts)


def test_a_notebooks_top_level_await_compiles_in_a_statement_too_deep_for_the_tree():
    """A statement too deep to compile as a tree is compiled from the text, with the notebook's own
    flag: its cells may still `await` at the top level (as a .py file may not)."""
    import ast
    import json

    cells = ["r = await g()\n", "x = " + " + ".join(["1"] * 1000) + "\n"]
    tree, error = python_source.parse_python("".join(cells))
    assert error is None
    with pytest.raises(RecursionError):  # (the deep path, not the tree's compile)
        compile(tree, "a.ipynb", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    notebook = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells]})
    assert [f.code for f in check_source(notebook, "a.ipynb", ALL).findings] == []
    as_script = check_source("".join(cells), "a.py", ALL).findings
    assert [(f.code, f.message) for f in as_script] == [("JIT000", "syntax error: 'await' outside function")]


def test_a_folder_that_is_no_identifier_is_no_package(tmp_path):
    """`md-sim/__init__.py` (a stray file in an sdist's root) makes no package `md-sim`: Python cannot import
    one, so the modules below are named from the first importable package (jax-md's layout)."""
    inner = tmp_path / "md-sim" / "mdsim"
    inner.mkdir(parents=True)
    (tmp_path / "md-sim" / "__init__.py").write_text("", encoding="utf-8")
    (inner / "__init__.py").write_text("", encoding="utf-8")
    (inner / "grid.py").write_text("x = 1\n", encoding="utf-8")
    assert module_name_for(inner / "grid.py") == ("mdsim.grid", False)
    assert module_name_for(inner / "__init__.py") == ("mdsim", True)
