"""Valid Python is never a syntax error to the user: where libcst cannot parse a file, or reads a line
holding only `\\` otherwise than CPython, the findings come from CPython's parse and positions (without
fixes, which are written from libcst's tree), the same on every path: `check`, `check -`, the editor."""

from __future__ import annotations

from jitlint.lint.pipeline import check_source
from jitlint.project.incremental import Document

# `\` alone after the def's header: CPython joins it to the next line; libcst's parser stops there.
UNPARSED = "import jax\n\n\n@jax.jit\ndef f(x):\n\\\n    print(x)\n    return x\n"
# `\` alone at the top: libcst parses it, but its tree re-renders otherwise than the file.
MISREAD = "\\\nimport jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"


def _seen(text: str, state=None):
    return [(f.line, f.col, f.code, f.fix is None) for f in check_source(text, "f.py", state=state).findings]


def test_a_file_libcst_cannot_parse_is_linted_from_cpythons_tree():
    compile(UNPARSED, "f.py", "exec")  # valid Python
    assert _seen(UNPARSED) == [(7, 5, "JIT501", True)]
    doc = Document()
    assert _seen("x = 1\n", doc) == []
    assert _seen(UNPARSED, doc) == [(7, 5, "JIT501", True)]  # the editor, after an edit: the same


def test_a_line_libcst_misreads_places_findings_by_cpython():
    compile(MISREAD, "f.py", "exec")
    assert _seen(MISREAD) == [(7, 5, "JIT501", True)]
    doc = Document()
    assert _seen(MISREAD.replace("\\\n", "", 1), doc) == [(6, 5, "JIT501", False)]
    assert _seen(MISREAD, doc) == [(7, 5, "JIT501", True)]


def test_nothing_to_report_is_the_same_answer_everywhere():
    clean = "import jax\n\n\ndef f(x):\n\\\n    return x\n"
    assert _seen(clean) == [] == _seen(clean, Document())


def test_the_command_line_and_stdin_agree(tmp_path, run_jitlint):
    (tmp_path / "f.py").write_text(UNPARSED, encoding="utf-8")
    from_file = run_jitlint("check", "--no-cache", "f.py", cwd=tmp_path).stdout.splitlines()[0]
    from_stdin = run_jitlint("check", "-", "--stdin-filename", "f.py", cwd=tmp_path, input=UNPARSED).stdout
    assert from_file.startswith("f.py:7:5: JIT501 ")
    assert from_stdin.splitlines()[0] == from_file


def test_a_backslash_line_is_found_whatever_the_line_endings():
    """Lone-CR endings: the `\\` line libcst misreads is found there too, so the print is placed by CPython."""
    text = MISREAD.replace("\n", "\r")
    compile(text, "f.py", "exec")
    assert _seen(text) == [(7, 5, "JIT501", True)]
    assert _seen(MISREAD.replace("\n", "\r\n")) == [(7, 5, "JIT501", True)]
