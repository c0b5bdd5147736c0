"""Incremental re-lint (jitlint.project.incremental): after every edit, the findings equal a full lint of the text.

* Random edit sequences on modules mixed from the fixtures' top-level statements: snippets typed
  anywhere (breaking and repairing the syntax), lines deleted, duplicated and moved, names renamed,
  statements inserted; after each edit the incremental lint, a full lint and a whole-file lint agree.
  `JITLINT_FUZZ_EXAMPLES` multiplies the number of sequences (as in tests/robustness/test_fuzz.py).
* Random edits inside the defs and classes of whole fixture files (statements, prints and comments
  typed, statements deleted), in four- and two-space indentation: a def or class whose text changed is
  put together from the pieces that did not, and the findings equal a full lint's. Its tree equals
  libcst's parse of it (every fixture's defs and classes, tricky layouts).
* An edit inside one function of a large module re-analyses only that function's group (also indented
  by two spaces, a tab or three spaces), and an edit in one method of a large class parses that method.
* Through the language server (a real client over stdio): pulled diagnostics after every edit are
  those of `check_source`.
"""

from __future__ import annotations

import ast
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import fixture_files
from jitlint.lint import analyse
from jitlint.core.config import Config
from jitlint.lint.pipeline import check_source
from jitlint.project.incremental import Document

SCALE = max(1, int(os.environ.get("JITLINT_FUZZ_EXAMPLES", "1")))
ALL = Config(select=("ALL",))
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom functools import partial\n\n\n"


def _statements() -> list[str]:
    out = []
    for path in fixture_files() + EXAMPLES:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        for stmt in ast.parse(text).body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
            if stmt.end_lineno - first < 40:
                out.append("\n".join(lines[first - 1:stmt.end_lineno]))
    return out


STATEMENTS = _statements()
SNIPPETS = ["print(x)\n", "    print(x)\n", "@jax.jit\n", "def g(x):\n", "if x > 0:\n", "    return x\n", "(", ")",
            "\n", "    ", "jax.debug.print('{}', x)\n", "for i in range(x):\n", "# noqa\n", "import jax\n",
            "x = jnp.ones(3)\n", '"""', "step = jax.jit(step)\n", "@partial(jax.jit, static_argnums=0)\n",
            "jax.lax.scan(body, 0, xs)\n", "helper = None\n", "global x\n", "from jax import *\n", "é"]


def data(findings) -> list[dict]:
    """Findings as a user sees them, fixes included (Finding's == leaves the fix out)."""
    return [f.to_dict() for f in findings]


def full_lint(text: str):
    return data(check_source(text, "doc.py", ALL).findings)


def whole_lint(text: str):
    saved = analyse._parse_sliced
    analyse._parse_sliced = lambda *args, **kwargs: None
    try:
        return data(check_source(text, "doc.py", ALL).findings)
    finally:
        analyse._parse_sliced = saved


def edit(text: str, rnd: random.Random) -> str:
    lines = text.split("\n")
    kind = rnd.choice(["type", "type", "delete", "duplicate", "move", "rename", "insert", "undo-indent"])
    at = rnd.randrange(len(lines) + 1)
    if kind == "type":
        pos = rnd.randrange(len(text) + 1)
        cut = rnd.choice([0, 0, 1, 3, 10])
        return text[:pos] + rnd.choice(SNIPPETS) + text[pos + cut:]
    if kind == "delete" and lines:
        del lines[min(at, len(lines) - 1):at + rnd.randint(1, 4)]
    elif kind == "duplicate" and lines:
        k = min(at, len(lines) - 1)
        lines.insert(k, lines[k])
    elif kind == "move" and len(lines) > 1:
        line = lines.pop(min(at, len(lines) - 1))
        lines.insert(rnd.randrange(len(lines) + 1), line)
    elif kind == "rename":
        words = sorted({w for w in text.replace("(", " ").replace(")", " ").split() if w.isidentifier()})
        if len(words) > 1:
            old, new = rnd.sample(words, 2)
            return text.replace(old, new, rnd.choice([1, 2, -1]))
    elif kind == "insert":
        lines[at:at] = ["", rnd.choice(STATEMENTS), ""]
    elif kind == "undo-indent" and lines:
        k = min(at, len(lines) - 1)
        lines[k] = lines[k].lstrip()
    return "\n".join(lines)


@pytest.mark.slow
@settings(max_examples=60 * SCALE, deadline=None, derandomize=SCALE == 1, suppress_health_check=list(HealthCheck),
          database=None if SCALE == 1 else settings().database)
@given(st.lists(st.integers(0, len(STATEMENTS) - 1), min_size=2, max_size=7),
       st.integers(2, 8), st.sampled_from(["    ", "    ", "  ", "\t"]), st.randoms(use_true_random=False))
def test_random_edit_sequences_match_a_full_lint(picks, edits, indent, rnd: random.Random):
    text = reindent(HEADER + "\n\n\n".join(STATEMENTS[i] for i in picks) + "\n", indent)
    doc = Document()
    doc.reset_unless("settings")
    for step in range(edits + 1):
        incremental = data(check_source(text, "doc.py", ALL, state=doc).findings)
        expected = full_lint(text)
        assert incremental == expected, f"after edit {step}:\n{text}"
        if step % 3 == 0:  # and now and then against the whole file's parse
            assert expected == whole_lint(text), text
        text = edit(text, rnd)


def reindent(text: str, indent: str) -> str:
    """The text with each four spaces of its lines' indentation written as `indent` (Google style uses two)."""
    out = []
    for line in text.split("\n"):
        spaces = len(line) - len(line.lstrip(" "))
        out.append(indent * (spaces // 4) + " " * (spaces % 4) + line[spaces:])
    return "\n".join(out)


def big_module(functions: int) -> str:
    parts = [HEADER]
    for i in range(functions):
        parts.append(f"@jax.jit\ndef step_{i}(x, y):\n    z = x * {i} + y\n    w = float(z)\n"
                     f"    return jnp.sin(z)\n\n\n")
    parts.append("def helper(x):\n    return x + 1\n\n\n@jax.jit\ndef uses_helper(x):\n    float(x)\n"
                 "    return helper(x)\n")
    return "".join(parts)


def test_an_edit_in_one_function_reanalyses_only_its_group():
    text = big_module(60)
    doc = Document()
    first = data(check_source(text, "doc.py", ALL, state=doc).findings)
    assert first == full_lint(text) and doc.analysed > 50 and doc.reused == 0
    edited = text.replace("z = x * 7 + y", "z = x * 7 + y\n    print(z)")
    again = data(check_source(edited, "doc.py", ALL, state=doc).findings)
    assert again == full_lint(edited)
    assert doc.analysed == 1 and doc.reused > 50
    assert len(again) == len(first) + 1
    # an edit above moves every later finding: reused, on the new lines (but the print's: its fix reads
    # the file's first statements, where `import jax` is or would go, and those changed)
    moved = "# a comment\n\n" + edited
    assert data(check_source(moved, "doc.py", ALL, state=doc).findings) == full_lint(moved)
    assert doc.analysed == 1
    # the helper's group: the helper and the jitted function reading it; the print's group is reused, as
    # what its fix read of the rest of the file (names bound, staging, imports) is the same
    changed = moved.replace("return x + 1", "w = float(x)\n    return x + 1")
    assert data(check_source(changed, "doc.py", ALL, state=doc).findings) == full_lint(changed)
    assert doc.analysed == 1
    unchanged = data(check_source(changed, "doc.py", ALL, state=doc).findings)
    assert unchanged == full_lint(changed)
    assert doc.analysed == 0
    # what the print's fix reads changes elsewhere: its group is analysed again (staging makes it unsafe;
    # a binding of `jax` leaves it without a fix)
    for far_away in ("\n\nshapes = jax.eval_shape(step_3, 1.0, 2.0)\n", "\n\ndef later(jax):\n    return jax\n"):
        text2 = changed + far_away
        assert data(check_source(text2, "doc.py", ALL, state=doc).findings) == full_lint(text2)
        assert doc.analysed == 2  # the new statement's group and the print's


@pytest.mark.parametrize("indent", ["  ", "\t", "   "])
def test_modules_indented_otherwise_are_linted_incrementally_too(indent):
    """libcst takes a module's default indent from its first indented block; statements parsed apart are
    put together in a module of the whole text's (else their code is not theirs, and the server lints
    the whole text again on every edit)."""
    text = reindent(big_module(20), indent)
    doc = Document()
    assert data(check_source(text, "doc.py", ALL, state=doc).findings) == full_lint(text)
    edited = text.replace("z = x * 7 + y", f"z = x * 7 + y\n{indent}print(z)")
    again = check_source(edited, "doc.py", ALL, state=doc)
    assert data(again.findings) == full_lint(edited)
    assert not doc.whole and doc.analysed == 1 and doc.reused > 15
    assert [f.fix.edits[0].new_text for f in again.findings if f.code == "JIT501"] == ['jax.debug.print("{!s}", z)']
    # one function indented otherwise: its statements are in a module of the first block's indent
    mixed = edited.replace(f"def helper(x):\n{indent}return x + 1", "def helper(x):\n        return x + 1")
    assert data(check_source(mixed, "doc.py", ALL, state=doc).findings) == full_lint(mixed)


def test_the_hoist_fix_is_reused_while_its_fresh_name_stays_fresh():
    # JIT102's fix names the hoisted wrapper with a name the file never mentions: it asks the file for
    # it (RuleContext.file_fact), so its group is reused until an edit elsewhere takes that name
    text = (HEADER + "def step(x):\n    return x * 2\n\n\ndef run(x):\n    for _ in range(100):\n"
            "        x = jax.jit(step)(x)\n    return x\n\n\n@jax.jit\ndef other(y):\n    return y + 1\n")
    doc = Document()
    first = data(check_source(text, "doc.py", ALL, state=doc).findings)
    assert first == full_lint(text)
    [hoisted] = [f for f in first if f["code"] == "JIT102"]
    assert "step_jit = jax.jit(step)" in hoisted["fix"]["edits"][0]["new_text"]
    edited = text.replace("return y + 1", "return y + 2")
    assert data(check_source(edited, "doc.py", ALL, state=doc).findings) == full_lint(edited)
    assert doc.analysed == 1 and doc.reused >= 1  # only `other`'s group
    taken = edited + "\n\nstep_jit = None\n"
    again = data(check_source(taken, "doc.py", ALL, state=doc).findings)
    assert again == full_lint(taken)
    [hoisted] = [f for f in again if f["code"] == "JIT102"]
    assert "step_jit2 = jax.jit(step)" in hoisted["fix"]["edits"][0]["new_text"]


def test_changed_settings_or_index_forget_the_findings():
    text = big_module(5)
    doc = Document()
    doc.reset_unless(1)
    check_source(text, "doc.py", ALL, state=doc)
    doc.reset_unless(1)
    check_source(text, "doc.py", ALL, state=doc)
    assert doc.analysed == 0
    doc.reset_unless(2)
    only = Config(select=("JIT501",))
    assert data(check_source(text, "doc.py", only, state=doc).findings) == data(check_source(text, "doc.py", only).findings)
    assert doc.analysed > 0


# ------------------------------------------------------------------------------------------ the server


@pytest.mark.slow
@settings(max_examples=8 * SCALE, deadline=None, derandomize=SCALE == 1, suppress_health_check=list(HealthCheck),
          database=None)
@given(st.lists(st.integers(0, len(STATEMENTS) - 1), min_size=2, max_size=5), st.randoms(use_true_random=False))
def test_server_diagnostics_after_every_edit(wire_lsp, picks, rnd: random.Random):
    path = wire_lsp.root / f"doc{rnd.randrange(10**9)}.py"
    uri = path.as_uri()
    text = HEADER + "\n\n\n".join(STATEMENTS[i] for i in picks) + "\n"
    wire_lsp.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 0,
                                                         "text": text}})
    for version in range(1, 5):
        report = wire_lsp.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
        expected = check_source(text, str(path), Config(root=wire_lsp.root)).findings
        got = [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"], d["message"])
               for d in report["items"]]
        assert got == [(f.code, f.line - 1, f.col - 1, f.message) for f in expected], text
        text = edit(text, rnd)
        wire_lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                              "contentChanges": [{"text": text}]})
    wire_lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


MODEL = "from functools import partial\nimport jax\n\n\n@partial(jax.jit, static_argnames=\"n\")\ndef train_step(x, n):\n    return x * n\n"
TRAIN = ("from pkg.model import train_step\n\n\ndef train(x):\n    for i in range(100):\n"
         "        x = train_step(x, n=i)\n    return x\n\n\ndef other(y):\n    return y\n")


def test_findings_that_depend_on_the_index_follow_it():
    """A group's findings are reused only while the project index answers its questions as before."""
    from jitlint.analysis.index import ProjectIndex, summarize

    index = ProjectIndex([summarize(MODEL, "/p/pkg/model.py", "pkg.model")])
    doc = Document()
    lint = lambda text, idx: data(check_source(text, "/p/pkg/train.py", ALL, module_name="pkg.train", index=idx,  # noqa: E731
                                          state=doc).findings)
    full = lambda text, idx: data(check_source(text, "/p/pkg/train.py", ALL, module_name="pkg.train",  # noqa: E731
                                          index=idx).findings)
    assert [f["code"] for f in lint(TRAIN, index)] == ["JIT301"] == [f["code"] for f in full(TRAIN, index)]
    traced = ProjectIndex([summarize(MODEL.replace('@partial(jax.jit, static_argnames="n")', "@jax.jit"),
                                     "/p/pkg/model.py", "pkg.model")])
    assert lint(TRAIN, traced) == full(TRAIN, traced) == []
    index.add(summarize(MODEL, "/p/pkg/model.py", "pkg.model"))
    assert lint(TRAIN, index) == full(TRAIN, index)
    assert [f["code"] for f in lint(TRAIN, index)] == ["JIT301"] and doc.reused >= 0


def test_a_fix_editing_outside_its_statement_is_not_moved_with_it():
    """The print fix of a file without `import jax` adds it at the top: when an edit moves the print's
    function, that edit must stay at the top (the group is analysed again, not shifted)."""
    text = "from jax import jit\n\nSCALE = 2\n\n\n@jit\ndef step(x):\n    print(x * SCALE)\n    return x\n"
    doc = Document()
    first = data(check_source(text, "doc.py", ALL, state=doc).findings)
    assert first == full_lint(text)
    assert any(e["line"] == 1 for f in first if f["fix"] for e in f["fix"]["edits"])  # `import jax` at the top
    moved = text.replace("SCALE = 2\n", "SCALE = 2\nLIMIT = 3\n")
    assert data(check_source(moved, "doc.py", ALL, state=doc).findings) == full_lint(moved)


GAPS = {
    "comments": "class Model:\n    '''doc'''\n    size = 3; depth = 2\n\n# at column 0\n    # indented\n"
                "    @jax.jit  # decorated\n    def f(self, x):\n        return (x +\n  1)\n\n    \n"
                "    async def g(self):\n        s = '''a\nb'''\n        return s\n",
    "a deeper comment: whole": "def f(x):\n    y = x\n    if y:\n        y = 2\n        # the if's\n    z = y\n"
                               "    return z\n",
    "a deeper blank line: whole": "def f(x):\n    y = x\n    if y:\n        y = 2\n        \n    z = y\n    return z\n",
    "two spaces": "class C:\n  def a(self):\n    return 1\n\n  def b(self):\n    return 2\n\n  c = 3\n",
    "tabs": "def f(x):\n\tif x:\n\t\treturn x\n\ty = 2\n\treturn y\n",
    "nested class": "class A:\n    x = 1\n    class B:\n        y = 2\n\n        def m(self): pass\n    z = 3\n",
    "one line body: whole": "def f(a,\n      b): return a\n",
}


def _chunk_statements(text: str):
    """(the chunk's statement built from its pieces, or None; its own parse) for every def or class chunk."""
    import libcst as cst

    from jitlint.project import incremental

    from jitlint.lint import slicing

    tree = ast.parse(text)
    found = slicing.plan(text, tree, None, False)
    indent = slicing.default_indent(found.chunks)
    for k, chunk in enumerate(found.chunks):
        pieces = incremental._pieces(text, found, k, indent)
        alone = cst.parse_module(found.chunk_text(text, k))
        if pieces is not None and alone.default_indent == indent:
            yield Document()._by_pieces(pieces, {}, set()), alone.body[0]
        elif pieces is None:
            yield None, alone.body[0]


@pytest.mark.parametrize("name", sorted(GAPS))
def test_a_def_or_class_from_its_pieces_is_its_own_parse(name):
    """A def or class whose text changed is put together from the pieces of it that did not (its body's
    statements, parsed alone): the very tree of parsing it whole, or (where libcst could give a line
    between two statements to the first one's block) parsed whole."""
    built, whole = next(_chunk_statements(GAPS[name]))
    assert (built is None) == name.endswith(": whole")
    assert built is None or built.deep_equals(whole)


def test_every_fixtures_defs_and_classes_from_their_pieces_are_their_own_parse():
    count = 0
    for path in fixture_files() + EXAMPLES:
        for built, whole in _chunk_statements(path.read_text(encoding="utf-8")):
            assert built is None or built.deep_equals(whole), path
            count += built is not None
    assert count > 100


def test_an_edit_in_one_method_reparses_only_that_method(monkeypatch):
    from jitlint.source import cstparse

    methods = "".join(f"    def method_{i}(self, x):\n        y = x * {i}\n        return jnp.sin(y)\n\n"
                      for i in range(60))
    text = HEADER + "class Model:\n    size = 3\n\n" + methods + "    @partial(jax.jit, static_argnums=0)\n    def step(self, x):\n" \
        "        return self.method_1(x)\n"
    doc = Document()
    check_source(text, "doc.py", ALL, state=doc)
    parsed: list[str] = []
    parse = cstparse.parse_module
    monkeypatch.setattr(cstparse, "parse_module", lambda source: parsed.append(source) or parse(source))
    edited = text.replace("y = x * 1\n", "y = x * 1\n        print(y)\n")
    again = check_source(edited, "doc.py", ALL, state=doc)
    assert sum(map(len, parsed)) < 200  # the changed method (in a wrapper), not the class (5,000 characters)
    assert data(again.findings) == full_lint(edited) and not doc.whole
    assert [f.code for f in again.findings] == ["JIT501"]


def test_a_body_statement_two_defs_share_is_in_the_module_once():
    """`f`, edited, is built from its pieces: its `return float(y)` is the statement remembered for `g`'s
    (same text), `g` not being analysed then. When both are analysed again, each must have its own
    (the analysis keys by node identity: `g`'s float() was not reported)."""
    f = "@jax.jit\ndef f(x):\n    y = x * 2\n    return float(y)\n\n\n"
    text = HEADER + f + f.replace("def f", "def g").replace("x * 2", "x * 3")
    doc = Document()
    for text in (text, text.replace("x * 2", "x * 4"), text.replace("x * 2", "x * 4") + "h = f(g(1))\n"):
        assert data(check_source(text, "doc.py", ALL, state=doc).findings) == full_lint(text)
    assert not doc.whole and [f.code for f in check_source(text, "doc.py", ALL).findings] == ["JIT404"] * 2


def body_edit(text: str, rnd: random.Random) -> str:
    """An edit inside a def's or class's body that keeps the syntax: a statement or a comment (at column
    0, at the body's indentation or deeper) typed before a body statement, or a body statement deleted."""
    tree = ast.parse(text)
    bodies = [node.body for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))
              and node.body[0].lineno > node.lineno]
    if not bodies:
        return text
    body = rnd.choice(bodies)
    stmt = rnd.choice(body)
    lines = text.split("\n")
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
    indent = lines[stmt.lineno - 1][:stmt.col_offset]
    if indent.strip() or len(indent) != stmt.col_offset:
        return text
    kind = rnd.choice(["statement", "print", "comment", "delete"])
    if kind == "delete" and len(body) > 1:
        del lines[first - 1:stmt.end_lineno]
    elif kind == "comment":
        lines.insert(first - 1, rnd.choice(["", indent, indent + "    "]) + "# note")
    else:
        new = "print(x)" if kind == "print" else f"_marker = {rnd.randrange(100)}"
        lines.insert(first - 1, indent + new)
    return "\n".join(lines)


MODULES = [path.read_text(encoding="utf-8") for path in fixture_files() + EXAMPLES
           if path.read_text(encoding="utf-8").count("\n") > 30]


@pytest.mark.slow
@settings(max_examples=25 * SCALE, deadline=None, derandomize=SCALE == 1, suppress_health_check=list(HealthCheck),
          database=None if SCALE == 1 else settings().database)
@given(st.integers(0, len(MODULES) - 1), st.integers(3, 10), st.sampled_from(["    ", "  "]),
       st.randoms(use_true_random=False))
def test_edits_in_bodies_match_a_full_lint(pick, edits, indent, rnd: random.Random):
    """Edits inside defs and classes of whole fixture files, linted from the pieces that did not change."""
    text = reindent(MODULES[pick], indent)
    doc = Document()
    doc.reset_unless("settings")
    check_source(text, "doc.py", ALL, state=doc)
    for step in range(edits):
        text = body_edit(text, rnd)
        incremental = data(check_source(text, "doc.py", ALL, state=doc).findings)
        assert incremental == full_lint(text), f"after edit {step}:\n{text}"


def test_a_statement_written_twice_keeps_both_findings():
    """Two identical top-level statements are two groups of one text: each keeps its own findings, also
    after an edit elsewhere and after one of them goes."""
    twice = "lax.fori_loop(0, 3, lambda i, c: print(c), 0)\n"
    text = "import jax\nfrom jax import lax\n\n" + twice + twice
    doc = Document()
    assert data(check_source(text, "doc.py", ALL, state=doc).findings) == full_lint(text)
    assert [f["line"] for f in full_lint(text)] == [4, 5]
    edited = text + "\nx = 1\n"
    assert data(check_source(edited, "doc.py", ALL, state=doc).findings) == full_lint(edited)
    once = "import jax\nfrom jax import lax\n\n" + twice
    assert data(check_source(once, "doc.py", ALL, state=doc).findings) == full_lint(once)
