"""A file written for a newer Python than the one running jitlint is valid Python, never a syntax error:
type parameters and `type` aliases (3.12) are analysed in place, at the positions of the file as written;
other newer syntax says which Python it needs. A fix is never offered where this Python would not
compile the fixed file."""

from __future__ import annotations

import sys

from jitlint.lint.pipeline import check_source
from jitlint.project.incremental import Document

GENERIC = (
    "import jax\n"
    "\n"
    "\n"
    "class Batch[*Ts]:\n"
    "    pass\n"
    "\n"
    "\n"
    "type Pair[T] = tuple[T, T]\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step[T: int](x: T) -> T:\n"
    "    print(x)\n"
    "    if x > 0:\n"
    "        return x\n"
    "    return -x\n"
)
# The same program without the newer syntax: what the findings must be (lines and columns unchanged).
PLAIN = (GENERIC.replace("class Batch[*Ts]:", "class Batch:     ").replace("type Pair[T] =", "Pair         =")
         .replace("def step[T: int](x: T)", "def step(x)        "))

# Type parameters written over several lines (a long generic class, an alias's parameters), as projects
# written for 3.12 lay them out, with the same program in the older syntax at the same positions.
GENERIC_LINES = (
    "import jax\n"
    "\n"
    "\n"
    "class Collector[\n"
    "    StateT = int,  # the state\n"
    "    BatchT: float = float,\n"
    "](object):\n"
    "    type Pair[T: int = int] = (\n"
    "        tuple[T, T]\n"
    "    )\n"
    "\n"
    "\n"
    "type Batch[\n"
    "    T,\n"
    "] = list[T]\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step[\n"
    "    T: int,\n"
    "](x: T) -> T:\n"
    "    print(x)\n"
    "    if x > 0:\n"
    "        return x\n"
    "    return -x\n"
)
PLAIN_LINES = (
    "import jax\n\n\nclass Collector(object):\n    pass\n\n\n\n\n\n\n\n\n\n\n\n\n"
    "@jax.jit\n"
    "def step(x):\n\n\n"
    "    print(x)\n"
    "    if x > 0:\n"
    "        return x\n"
    "    return -x\n"
)

NEW_FSTRINGS = (
    "import jax\n"
    "\n"
    "table = {\"a\": 1}\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step(x, width):\n"
    "    label = f\"{table[\"a\"]:>{width}} of {\n"
    "        x.shape[0]  # rows\n"
    "    }\" \"tail\"\n"
    "    print(f\"loss {x.sum()} at {table[\"a\"]}\")\n"
    "    if x > 0:\n"
    "        return label\n"
    "    return -x\n"
)
# The same program in Python 3.11's f-strings, at the same positions.
PLAIN_FSTRINGS = (NEW_FSTRINGS.replace('[\"a\"]', "['a']").replace('f\"{table', 'f\"\"\"{table')
                  .replace("  # rows", "").replace('}\" \"tail', '}\"\"\" \"tail'))
TSTRING = 'import jax\n\n\n@jax.jit\ndef f(x):\n    return t"{x}"\n'


def _seen(text: str, state=None):
    return [(f.line, f.col, f.code) for f in check_source(text, "f.py", state=state).findings]


def test_type_parameters_are_analysed_where_they_are_written():
    expected = _seen(PLAIN)
    assert [code for _, _, code in expected] == ["JIT501", "JIT401"]
    assert _seen(GENERIC) == expected
    doc = Document()  # the editor: opened on an older text, then edited into the newer syntax
    assert _seen("x = 1\n", doc) == []
    assert _seen(GENERIC, doc) == expected


def test_type_parameters_over_several_lines_are_analysed_where_they_are_written():
    assert _seen(GENERIC_LINES) == [(22, 5, "JIT501"), (23, 8, "JIT401")] == _seen(PLAIN_LINES)


def test_no_fix_is_offered_where_this_python_cannot_compile_the_result():
    findings = check_source(GENERIC, "f.py").findings
    if sys.version_info < (3, 12):
        assert all(f.fix is None for f in findings)
    else:  # the running Python compiles the file: its fixes are the usual ones
        assert any(f.fix is not None for f in findings)


def test_fstrings_of_python_3_12_are_analysed_where_they_are_written():
    """Quotes reused inside an f-string, an expression over several lines with a comment in it: the file is
    the same program as its 3.11 spelling, found at the same places, and the message quotes the code as
    written. No fix is offered where this Python could not compile the fixed file."""
    findings = check_source(NEW_FSTRINGS, "f.py").findings
    assert [(f.line, f.col, f.code) for f in findings] == [(11, 5, "JIT501"), (12, 8, "JIT401")]
    assert [(f.line, f.col, f.code) for f in check_source(PLAIN_FSTRINGS, "f.py").findings] == \
        [(11, 5, "JIT501"), (12, 8, "JIT401")]
    assert "`f\"loss {x.sum()} at {table[...`" in findings[0].message  # (as written, shortened)
    if sys.version_info < (3, 12):
        assert all(f.fix is None for f in findings)


def test_other_newer_syntax_names_the_python_it_needs():
    (finding,) = check_source(TSTRING, "f.py").findings if sys.version_info < (3, 14) else [None]
    if finding is None:  # 3.14 reads it: analysed as any file
        assert check_source(TSTRING, "f.py").findings == []
        return
    assert finding.code == "JIT000" and (finding.line, finding.col) == (6, 12)  # at the t-string
    assert "needs Python 3.14 or newer" in finding.message and "syntax error" not in finding.message
    assert finding.severity == "info"  # valid Python, only not analysed here: nothing to fix in the code


def test_invalid_python_is_still_a_syntax_error():
    (finding,) = check_source("def f(x)\n    return x\n", "f.py").findings
    assert finding.code == "JIT000" and finding.message == "syntax error: expected ':'"
    (finding,) = check_source("def f[T](x)\n    return x\n", "f.py").findings  # newer syntax, and invalid
    assert finding.code == "JIT000" and finding.message.startswith("syntax error")


def test_fix_leaves_a_newer_syntax_file_as_it_is(tmp_path, run_jitlint):
    path = tmp_path / "step.py"
    path.write_text(GENERIC, encoding="utf-8")
    result = run_jitlint("check", "--no-cache", "--fix", "step.py", cwd=tmp_path)
    assert "step.py:13:5: JIT501 " in result.stdout and "step.py:14:8: JIT401 " in result.stdout
    if sys.version_info < (3, 12):
        assert path.read_text(encoding="utf-8") == GENERIC


def test_deep_nesting_in_newer_syntax_is_analysed_without_crashing():
    deep = "import jax\n\n\n@jax.jit\ndef f[T](x):\n    print(x)\n    return " + "(" * 180 + "x" + ")" * 180 + "\n"
    assert [(f.line, f.code) for f in check_source(deep, "f.py").findings] == [(6, "JIT501")]
    too_deep = "def f[T](x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    assert [f.code for f in check_source(too_deep, "f.py").findings] == ["JIT000"]


def test_a_3_12_fstring_is_read_by_cpython_as_its_expressions_in_place():
    """What CPython reads of each 3.12 f-string (nested, with a format specification holding another
    f-string, joined to plain strings, over lines with a comment) is the tuple of its expressions, each at
    the place it is written, every line as long as before."""
    import ast

    from jitlint.source import newer_syntax

    cases = {
        'x = f"{f"{f"{d["k"]}"}"}"\n': 'x = (  (  (  d["k"],),),)\n',
        'x = f"{y:{f"{w}"}}" "a"\n': 'x = (  y,             )\n',
        'x = f"{y}" "a" f"{d["k"]}"\n': 'x = (  y,         d["k"],)\n',
        'x = (f"{y!r}"\n     f"{d["k"]=}")\n': 'x = ((  y,   \n        d["k"], ))\n',
        'print(f"{d["a"]} and {\n    d["a"] + 1  # rows\n}")\n': 'print((  d["a"],      \n    d["a"] + 1,       \n ))\n',
    }
    for text, expected in cases.items():
        if sys.version_info >= (3, 12):
            ast.parse(text)  # the running Python reads it as written: nothing to rewrite
            continue
        try:
            ast.parse(text)
            raise AssertionError(f"3.11 reads {text!r}")
        except SyntaxError as error:
            rewritten, newer = newer_syntax.downlevel(text, error)
        assert (rewritten, newer) == (expected, None)
        ast.parse(rewritten)
