"""Jupyter notebooks through the real `jitlint check` command: discovery, cell locations, IPython magics,
`# noqa`, broken notebooks, the cache, and `--fix` writing back only the fixed cells' source lines."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test runs the jitlint command

JITLINT = str(Path(sys.executable).with_name("jitlint"))


def code(*lines: str, as_string: bool = False) -> dict:
    text = "".join(lines)
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": text if as_string else text.splitlines(keepends=True)}


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def notebook_json(cells: list[dict], *, newline: str = "\n", **dump) -> str:
    """As Jupyter writes a notebook (nbformat: indent 1, sorted keys, UTF-8, a final newline), unless
    `dump` says otherwise."""
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                       "language_info": {"name": "python", "version": "3.11.7"}}}
    options = {"indent": 1, "sort_keys": True, "ensure_ascii": False, **dump}
    return json.dumps(nb, **options).replace("\n", newline) + newline


def check(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([JITLINT, "check", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120)


# A jitted function in cell 2, called wrongly in cells 3 and 8; magics of every kind in between.
EXPLORE = [
    markdown("# Exploring\n\nSome prose; `print(x)` here is not code.\n"),
    code("%matplotlib inline\n",
         "import jax\n",
         "import jax.numpy as jnp\n",
         "from functools import partial\n",
         "\n",
         "@partial(jax.jit, static_argnums=1)\n",
         "def scale(x, n):\n",
         "    print(x)\n",
         "    return x * n\n"),
    code("!pip install --quiet jax\n",
         "files = !ls\n",
         "for i in range(10):\n",
         "    %time scale(jnp.ones(3), i)\n",
         "    scale(jnp.ones(3), i)\n",
         "scale?\n",
         "?scale\n",
         "%timeit -n 1 \\\n",
         "    scale(jnp.ones(3), 2)\n",
         's = "%not a magic: inside a string"\n'),
    code("%%time\n",
         "y = scale(jnp.ones(3), 2)  # a %%time cell is Python\n",
         "print(y)\n"),
    code("%%bash\n",
         "echo 'not python (' \n"),
    code("def broken(:\n",
         "    pass\n"),
    code("@jax.jit\n",
         "def g(x):\n",
         "    print(x)  # noqa: JIT501\n",
         "    print(x, 'é')\n",
         "    return x\n", as_string=True),
    code("scale(jnp.ones(3), [1, 2])"),
]

EXPLORE_FINDINGS = [
    "explore.ipynb:cell 2:8:5: JIT501",
    "explore.ipynb:cell 3:5:24: JIT301",
    "explore.ipynb:cell 6:1:12: JIT000 syntax error: invalid syntax",
    "explore.ipynb:cell 7:4:5: JIT501",
    "explore.ipynb:cell 8:1:20: JIT304",
]


def finding_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": JIT" in line]


def starts(lines: list[str], prefixes: list[str]) -> bool:
    return len(lines) == len(prefixes) and all(line.startswith(p) for line, p in zip(lines, prefixes))


def test_check_reports_notebook_findings_at_their_cells(tmp_path):
    (tmp_path / "explore.ipynb").write_text(notebook_json(EXPLORE), encoding="utf-8")
    (tmp_path / "plain.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n")
    # Jupyter's autosave copies are not linted.
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "explore-checkpoint.ipynb").write_text(notebook_json(EXPLORE))
    # Broken notebooks: each a JIT000 with the reason, never a traceback.
    broken = {
        "bad_json.ipynb": b'{"cells": [}',
        "v3.ipynb": json.dumps({"nbformat": 3, "worksheets": []}).encode(),
        "array.ipynb": b"[1, 2]",
        "bad_source.ipynb": json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}]}).encode(),
        "latin1.ipynb": json.dumps({"nbformat": 4, "cells": [code("# é\n")]}, ensure_ascii=False).encode("latin-1"),
    }
    for name, data in broken.items():
        (tmp_path / name).write_bytes(data)
    # An empty file (`touch`, an editor's new file) is a notebook of no cells, as ruff and Jupyter's
    # servers read one (jax-dna's oxDNA.ipynb, fresh set BL): nothing to report.
    (tmp_path / "empty.ipynb").write_bytes(b"")
    (tmp_path / "blank.ipynb").write_bytes(b"\n  \n")
    # An R notebook is not Python: nothing to report.
    r_nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "R"}},
            "cells": [code("if (x) print(x)\n")]}
    (tmp_path / "analysis_r.ipynb").write_text(json.dumps(r_nb))
    # A malformed `# noqa` is reported at its cell's line.
    (tmp_path / "warn.ipynb").write_text(notebook_json([markdown("x"), code(
        "import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)  # noqa: JIT\n", "    return x\n")]))

    result = check("--no-cache", ".", cwd=tmp_path)
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == 1 and "Traceback" not in out + err, out + err
    assert "warn.ipynb:cell 2:4: warning: `# noqa: JIT` is not a valid code list" in err, err
    lines = finding_lines(out)
    assert lines == sorted(lines)
    explore = [line for line in lines if line.startswith("explore.ipynb")]
    assert starts(explore, EXPLORE_FINDINGS), "\n".join(explore)
    assert "`print` of traced value `x` in `scale`" in explore[0]
    assert "static parameter `n` of jitted `scale` gets `i`" in explore[1]  # called in another cell
    assert "a list is passed to static parameter `n` of jitted `scale`" in explore[4]
    others = [line for line in lines if not line.startswith("explore.ipynb")]
    assert others.pop().startswith("warn.ipynb:cell 2:4:5: JIT501")
    assert others == [
        "array.ipynb:1:1: JIT000 cannot read notebook: not a Jupyter notebook: the JSON is not an object",
        "bad_json.ipynb:1:1: JIT000 cannot read notebook: invalid JSON: Expecting value: line 1 column 12 (char 11)",
        "bad_source.ipynb:1:1: JIT000 cannot read notebook: cell 1: `source` is neither a string nor a list of strings",
        "latin1.ipynb:1:1: JIT000 cannot read notebook: a notebook must be UTF-8 ('utf-8' codec can't decode "
        f"byte 0xe9 in position {broken['latin1.ipynb'].index(0xe9)}: invalid continuation byte)",
        "plain.py:5:5: JIT501 `print` of traced value `x` in `f` (traced by `@jax.jit`): it runs once, at trace "
        "time, and shows a tracer instead of the values (and nothing on later calls); use `jax.debug.print`",
        "v3.ipynb:1:1: JIT000 cannot read notebook: nbformat 3 notebooks are not supported, only nbformat 4 "
        "(`jupyter nbconvert --to notebook` converts one)",
    ]

    # JSON carries the cell; lines count within it; the fix's edits too.
    result = check("--no-cache", "--format", "json", "explore.ipynb", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [(d["cell"], d["line"], d["col"], d["code"]) for d in data] == [
        (2, 8, 5, "JIT501"), (3, 5, 24, "JIT301"), (6, 1, 12, "JIT000"), (7, 4, 5, "JIT501"), (8, 1, 20, "JIT304")]
    edit = data[0]["fix"]["edits"][0]
    assert (edit["line"], edit["col"], edit["end_line"], edit["end_col"]) == (8, 5, 8, 13)

    # Standard input named as a notebook is read as one; --show-source shows the cell's line.
    result = check("--no-cache", "--show-source", "-", "--stdin-filename", "explore.ipynb", cwd=tmp_path,
                   stdin=notebook_json(EXPLORE).encode())
    out = result.stdout.decode().splitlines()
    assert starts(finding_lines(result.stdout.decode()), EXPLORE_FINDINGS)
    assert out[1:3] == ["        print(x)", "        ^^^^^^^^"]
    assert out[4:6] == ["        scale(jnp.ones(3), i)", "    " + " " * 23 + "^"]


def test_cache_keeps_cell_locations(tmp_path):
    (tmp_path / "explore.ipynb").write_text(notebook_json(EXPLORE), encoding="utf-8")
    first = check("--cache-dir", str(tmp_path / "cache"), "explore.ipynb", cwd=tmp_path)
    assert any((tmp_path / "cache").rglob("*.json"))
    second = check("--cache-dir", str(tmp_path / "cache"), "explore.ipynb", cwd=tmp_path)
    assert starts(finding_lines(first.stdout.decode()), EXPLORE_FINDINGS)
    assert second.stdout == first.stdout


def changed_lines(old: str, new: str) -> list[tuple[str, str]]:
    """(old line, new line) of each line the rewrite changed (it must keep the line count)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b) if x != y]


def test_fix_rewrites_only_the_fixed_source_lines(tmp_path):
    nbformat_style = notebook_json(EXPLORE)
    crlf = notebook_json([code("import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)\n", "    return x\n")],
                         newline="\r\n", indent=2, sort_keys=False)
    ascii_one_line = notebook_json([code("import jax\n@jax.jit\ndef f(x):\n    print(x, 'é')\n    return x",
                                         as_string=True)], indent=None, ensure_ascii=True, sort_keys=False)
    files = {"explore.ipynb": nbformat_style, "crlf.ipynb": crlf, "ascii.ipynb": ascii_one_line.rstrip("\n")}
    for name, text in files.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))

    result = check("--no-cache", "--fix", *files, cwd=tmp_path)
    out, err = result.stdout.decode(), result.stderr.decode()
    assert "explore.ipynb: applied 2 fixes" in err and "crlf.ipynb: applied 1 fix" in err, err
    # What is left: the findings without a fix, at the same places.
    assert starts(finding_lines(out), [EXPLORE_FINDINGS[1], EXPLORE_FINDINGS[2], EXPLORE_FINDINGS[4]]), out

    new = (tmp_path / "explore.ipynb").read_text(encoding="utf-8")
    assert changed_lines(nbformat_style, new) == [
        ('    "    print(x)\\n",\n', '    "    jax.debug.print(\\"{!s}\\", x)\\n",\n'),
        ('   "source": "@jax.jit\\ndef g(x):\\n    print(x)  # noqa: JIT501\\n    print(x, \'é\')\\n'
         '    return x\\n"\n',
         '   "source": "@jax.jit\\ndef g(x):\\n    print(x)  # noqa: JIT501\\n    jax.debug.print(\\"{!s} é\\", x, ordered=True)\\n'
         '    return x\\n"\n'),
    ]
    cells = json.loads(new)["cells"]
    assert cells[1]["source"][0] == "%matplotlib inline\n"  # the magic is back in the fixed cell
    assert isinstance(cells[6]["source"], str)  # a string stays a string
    for k in (1, 6):
        text = "".join(cells[k]["source"]).replace("%matplotlib inline", "pass")
        compile(text, f"cell {k + 1}", "exec")

    new = (tmp_path / "crlf.ipynb").read_bytes().decode("utf-8")
    assert [(a.rstrip("\r\n"), b.rstrip("\r\n")) for a, b in changed_lines(crlf, new)] == [
        ('        "    print(x)\\n",', '        "    jax.debug.print(\\"{!s}\\", x)\\n",')]
    assert new.count("\r\n") == crlf.count("\r\n") and new.count("\n") == crlf.count("\n")

    new = (tmp_path / "ascii.ipynb").read_text(encoding="ascii")  # still ASCII: é stays escaped
    assert new == files["ascii.ipynb"].replace(
        "print(x, '\\u00e9')", 'jax.debug.print(\\"{!s} \\u00e9\\", x)')

    # A second --fix changes nothing.
    before = {name: (tmp_path / name).read_bytes() for name in files}
    again = check("--no-cache", "--fix", *files, cwd=tmp_path)
    assert "applied" not in again.stderr.decode()
    assert {name: (tmp_path / name).read_bytes() for name in files} == before


def test_a_notebook_awaiting_at_the_top_level_is_fixed_too(tmp_path):
    """IPython runs a cell's `await` at its top level: a fixed notebook is compiled as such."""
    cells = [code("import asyncio\nimport jax\n\nawait asyncio.sleep(0)\n"),
             code("@jax.jit\ndef f(x):\n    print(x)\n    return x\n")]
    (tmp_path / "awaits.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    result = check("--no-cache", "--fix", "awaits.ipynb", cwd=tmp_path)
    assert "awaits.ipynb: applied 1 fix" in result.stderr.decode(), result.stderr.decode()
    fixed = json.loads((tmp_path / "awaits.ipynb").read_text(encoding="utf-8"))["cells"]
    assert "".join(fixed[1]["source"]) == '@jax.jit\ndef f(x):\n    jax.debug.print("{!s}", x)\n    return x\n'


def test_a_fix_next_to_a_moved_magic_line_is_not_written_wrong(tmp_path):
    """Magic lines go back where their placeholders went, also after a fix that adds lines above them."""
    from jitlint.source.notebook import NotebookError, read_notebook

    nb = notebook_json([code("import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)\n", "    return x\n",
                             "%timeit f(1)\n")])
    notebook = read_notebook(nb.encode())
    assert notebook.source.splitlines()[5] == "pass        "  # same length as `%timeit f(1)`
    fixed = notebook.source.replace("    print(x)\n", "    y = x\n    jax.debug.print('{}', y)\n")
    cells = json.loads(notebook.rewrite(fixed))["cells"]
    assert cells[0]["source"][-1] == "%timeit f(1)\n" and "    y = x\n" in cells[0]["source"]
    diff = list(difflib.unified_diff(nb.splitlines(), notebook.rewrite(fixed).decode().splitlines(), lineterm="", n=0))
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        '-    "    print(x)\\n",', '+    "    y = x\\n",', '+    "    jax.debug.print(\'{}\', y)\\n",']

    # A fix that would remove the placeholder of a magic line is refused, not written without it.
    with pytest.raises(NotebookError, match="IPython magic line of cell 1"):
        notebook.rewrite(notebook.source.replace("pass        \n", "x = 1\n"))


def _notebook(cells: list[str], language: str | None = "python") -> bytes:
    import json

    meta = {"language_info": {"name": language}} if language is not None else {}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": meta,
                       "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": text.splitlines(keepends=True)} for text in cells]}).encode()


def test_an_import_a_fix_adds_goes_after_the_cells_magic():
    import json

    from jitlint.source.notebook import read_notebook

    nb = read_notebook(_notebook(["%%time\nfrom jax import jit\ny = jit(abs)(-1)\n", "z = 2\n"]))
    fixed = nb.rewrite("import jax\n" + nb.source)  # what a fix adding `import jax` at the top does
    first = "".join(json.loads(fixed)["cells"][0]["source"])
    assert first == "%%time\nimport jax\nfrom jax import jit\ny = jit(abs)(-1)\n"


@pytest.mark.parametrize("language", ["Python", "python", None])
def test_a_python_notebook_is_linted_whatever_the_case_of_its_language(language):
    from jitlint.source.notebook import read_notebook

    nb = read_notebook(_notebook(["x = 1\n"], language))
    assert nb.is_python and [c.number for c in nb.cells] == [1]
    assert not read_notebook(_notebook(["x <- 1\n"], "R")).is_python


# ---- cells as Jupyter compiles them: each on its own, after IPython's cleanup of its indentation


def ipython_cleanup(text: str) -> str:
    """IPython.core.inputtransformer2's `leading_empty_lines` and `leading_indent`, as IPython applies
    them to a cell before compiling it (the tests' own copy, to check what jitlint expects)."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].isspace():
        lines.pop(0)
    indent = lines[0][:len(lines[0]) - len(lines[0].lstrip(" \t"))] if lines else ""
    return "".join(line[len(indent):] if indent and line.startswith(indent) else line for line in lines)


def compiles(text: str) -> bool:
    try:
        compile(text, "<cell>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


FUTURE = [
    markdown("# Annotations"),
    code("import jax\n"),
    code("from __future__ import annotations\n", "\n", "import jax.numpy as jnp\n"),
    code('"""Typed."""\n', "from __future__ import (annotations,\n", "    division); x: jnp.ndarray = jnp.ones(3)\n"),
    code("@jax.jit\n", "def f(x: jnp.ndarray) -> jnp.ndarray:\n", "    y = x * 2\n", "    print(y)\n",
         "    return y\n"),
]


def test_a_future_import_at_the_top_of_a_later_cell_is_valid(tmp_path):
    """Jupyter compiles each cell on its own: a `from __future__` import starting a later cell runs."""
    sources = ["".join(cell["source"]) for cell in FUTURE[1:]]
    assert all(compiles(text) for text in sources)  # each cell alone, as Jupyter compiles it
    assert not compiles("".join(sources))  # joined, CPython refuses the module

    (tmp_path / "future.ipynb").write_text(notebook_json(FUTURE), encoding="utf-8")
    result = check("--no-cache", "--format", "json", "future.ipynb", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [(d["cell"], d["line"], d["col"], d["end_line"], d["end_col"], d["code"]) for d in data] == [
        (5, 4, 5, 4, 13, "JIT501")], result.stdout

    # --fix writes the fixed line; the cells holding `__future__` imports stay as they were.
    before = notebook_json(FUTURE)
    result = check("--no-cache", "--fix", "future.ipynb", cwd=tmp_path)
    assert "future.ipynb: applied 1 fix" in result.stderr.decode(), result.stderr.decode()
    after = (tmp_path / "future.ipynb").read_text(encoding="utf-8")
    assert changed_lines(before, after) == [
        ('    "    print(y)\\n",\n', '    "    jax.debug.print(\\"{!s}\\", y)\\n",\n')]
    assert json.loads(after)["cells"][2:4] == json.loads(before)["cells"][2:4]


def test_a_cell_in_newer_syntax_is_analysed_or_says_which_python_it_needs(tmp_path):
    """A notebook written for Python 3.12 runs there: a cell with 3.12 f-strings (quotes reused inside) is
    analysed as written, at its own positions, as a file is; a cell in syntax this Python cannot analyse
    (a 3.14 template string) is not, said at info, never as a syntax error; the other cells are linted."""
    cells = [code("row = {'name': 'x'}\n", "print(f\"{row['name']}\")\n".replace("'", '"')),
             code("import jax\n", "@jax.jit\n", "def f(x):\n",
                  "    print(f\"{x} {row['name']}\")\n".replace("'", '"'), "    return x\n"),
             code("greeting = t\"{row}\"\n")]
    (tmp_path / "new.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    data = json.loads(check("--no-cache", "--format", "json", "new.ipynb", cwd=tmp_path).stdout)
    found = [(d["cell"], d["line"], d["col"], d["code"], d["severity"]) for d in data]
    if sys.version_info < (3, 14):
        assert found[-1][:4] == (3, 1, 12, "JIT000") and found[-1][4] == "info"
        assert "needs Python 3.14 or newer" in data[-1]["message"] and "syntax error" not in data[-1]["message"]
        found = found[:-1]
    assert found == [(2, 4, 5, "JIT501", "warning")], data


def test_a_future_import_after_a_statement_of_its_cell_runs(tmp_path):
    """IPython parses a cell, then compiles and runs its statements one by one (IPython 8.12's `run_cell`
    runs this cell, and the import takes effect: measured), so a `from __future__` import after a magic
    line or another statement is no syntax error there, though it is in one module (slimpletic-jax's
    `%matplotlib inline` first, fresh set BH)."""
    cells = [code("x = 1\n", "from __future__ import annotations\n"),
             code("%matplotlib inline\n", "from __future__ import annotations\n", "import jax\n", "@jax.jit\n",
                  "def f(x):\n", "    print(x)\n", "    return x\n")]
    with pytest.raises(SyntaxError, match="from __future__ imports must occur at the beginning of the file"):
        compile("".join(cells[0]["source"]), "<cell>", "exec", dont_inherit=True)
    (tmp_path / "late.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    result = check("--no-cache", "late.ipynb", cwd=tmp_path)
    assert finding_lines(result.stdout.decode()) == [
        "late.ipynb:cell 2:6:5: JIT501 `print` of traced value `x` in `f` (traced by `@jax.jit`): it runs once, at "
        "trace time, and shows a tracer instead of the values (and nothing on later calls); use `jax.debug.print`",
    ]


INDENTED = [
    code("import jax\n"),
    code(" @jax.jit\n", " def f(x):\n", "     y = x + 1\n", "\n", "     print(y, 'é')\n", "     return y\n"),
    code("\t\n", "\tz = f(1)  # a tab, after a blank line\n", "\tprint(z)\n"),
]


def test_an_indented_cell_is_read_as_ipython_strips_it(tmp_path):
    """IPython removes the indentation of a cell's first line from each line starting with it."""
    for cell in INDENTED[1:]:
        text = "".join(cell["source"])
        assert not compiles(text) and compiles(ipython_cleanup(text))

    (tmp_path / "indented.ipynb").write_text(notebook_json(INDENTED), encoding="utf-8")
    result = check("--no-cache", "--format", "json", "indented.ipynb", cwd=tmp_path)
    data = json.loads(result.stdout)
    # at the columns of the cell as written: `print` is the 6th character of its line
    assert [(d["cell"], d["line"], d["col"], d["end_line"], d["end_col"], d["code"]) for d in data] == [
        (2, 5, 6, 5, 19, "JIT501")], result.stdout
    edit = data[0]["fix"]["edits"][0]
    line = INDENTED[1]["source"][4]
    assert (edit["line"], edit["end_line"]) == (5, 5) and line[edit["col"] - 1:edit["end_col"] - 1] == "print(y, 'é')"
    expected_line = line[:edit["col"] - 1] + edit["new_text"] + line[edit["end_col"] - 1:]

    result = check("--no-cache", "--show-source", "indented.ipynb", cwd=tmp_path)
    assert result.stdout.decode().splitlines()[1:3] == ["         print(y, 'é')", "         ^^^^^^^^^^^^^"]

    # --fix writes the fixed line with the cell's indentation, and only it.
    before = notebook_json(INDENTED)
    result = check("--no-cache", "--fix", "indented.ipynb", cwd=tmp_path)
    assert "indented.ipynb: applied 1 fix" in result.stderr.decode(), result.stderr.decode()
    after = (tmp_path / "indented.ipynb").read_text(encoding="utf-8")
    assert changed_lines(before, after) == [
        ('    "     print(y, \'é\')\\n",\n', '    "     jax.debug.print(\\"{!s} é\\", y)\\n",\n')]
    assert json.loads(after)["cells"][1]["source"][4] == expected_line  # as the JSON fix's edit says
    assert compiles(ipython_cleanup("".join(json.loads(after)["cells"][1]["source"])))
    assert finding_lines(check("--no-cache", "indented.ipynb", cwd=tmp_path).stdout.decode()) == []

    # --add-noqa too: the comment goes on the cell's line, its indentation kept.
    (tmp_path / "indented.ipynb").write_text(before, encoding="utf-8")
    result = check("--no-cache", "--add-noqa", "indented.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    after = (tmp_path / "indented.ipynb").read_text(encoding="utf-8")
    assert changed_lines(before, after) == [
        ('    "     print(y, \'é\')\\n",\n', '    "     print(y, \'é\')  # noqa: JIT501\\n",\n')]
    assert finding_lines(check("--no-cache", "indented.ipynb", cwd=tmp_path).stdout.decode()) == []


def test_a_line_a_fix_adds_to_an_indented_cell_is_indented_as_the_cell():
    from jitlint.source.notebook import NotebookError, read_notebook

    nb = notebook_json([code("  from jax import jit\n", "\n", "  @jit\n", "  def f(x):\n", "      return x\n")])
    notebook = read_notebook(nb.encode())
    assert notebook.source == "from jax import jit\n\n@jit\ndef f(x):\n    return x\n"
    cell = json.loads(notebook.rewrite("import jax\n" + notebook.source))["cells"][0]
    assert cell["source"] == ["  import jax\n", "  from jax import jit\n", "\n", "  @jit\n", "  def f(x):\n",
                              "      return x\n"]
    # A fix that would have IPython strip the cell otherwise than the fixed text reads is refused (an
    # indented first line: IPython would strip more from it than from the others).
    with pytest.raises(NotebookError, match="indentation of cell 1"):
        notebook.rewrite("  # a comment\n" + notebook.source)


def test_an_indentation_ipython_does_not_strip_is_a_syntax_error(tmp_path):
    cells = [code("x = 1\n", " y = 2\n"),  # the first line is not indented: IPython strips nothing
             code(" a = 1\n", "   b = 2\n"),  # IPython strips one space: `b` is still indented
             code("import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)\n", "    return x\n")]
    for cell in cells[:2]:
        text = "".join(cell["source"])
        assert ipython_cleanup(text) != text or cell is cells[0]
        with pytest.raises(IndentationError, match="unexpected indent"):
            compile(ipython_cleanup(text), "<cell>", "exec", dont_inherit=True)
    (tmp_path / "bad_indent.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    result = check("--no-cache", "bad_indent.ipynb", cwd=tmp_path)
    lines = finding_lines(result.stdout.decode())
    assert starts(lines, ["bad_indent.ipynb:cell 1:2:", "bad_indent.ipynb:cell 2:2:",
                          "bad_indent.ipynb:cell 3:4:5: JIT501"])
    assert all("JIT000 syntax error: unexpected indent" in line for line in lines[:2]), lines


def test_a_line_magic_without_its_percent_sign_is_a_magic(tmp_path):
    """IPython's automagic (on by default) runs `cd ..`, `run script.py`, `pip install jax`, `time y = f(x)`
    as their line magics (IPython 9.19 runs each: fresh set BR's qdpy notebooks, whose saved outputs show
    they ran); a line that reads on as Python (`run = 3`, `ls[0]`) is Python, and one that is neither
    (`cd(..`) is a syntax error."""
    cells = [code("cd ..\n"), code("cd ~/repo\n", "run rotation_kernels.py\n", "pip install jax\n"),
             code("run = 3\n", "ls = [run]\n", "ls[0]\n", "time y = run + 1\n"),
             code("cd(..\n"),
             code("import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)\n", "    return x\n")]
    (tmp_path / "magics.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    lines = finding_lines(check("--no-cache", "magics.ipynb", cwd=tmp_path).stdout.decode())
    assert starts(lines, ["magics.ipynb:cell 4:1:", "magics.ipynb:cell 5:4:5: JIT501"]), lines
    assert "JIT000 syntax error" in lines[0]


def test_a_module_imported_under_a_name_another_cell_imports_again_is_not_believed(tmp_path):
    """`import numpy as np` in cell 1, `import jax.numpy as np` in cell 4: the function cell 3 calls reads
    NumPy's `minimum` (static ints in, a Python int out: `jnp.arange` of it runs, checked under JAX), one
    called after cell 4 JAX's (a tracer: ConcretizationTypeError). Which one is not known statically, so
    no error rests on either (qdpy's notebook, fresh set BR); imported once as JAX's, the error stands."""
    jitted = code("@partial(jax.jit, static_argnums=(0, 1))\n", "def f_test(ell1, ell2):\n",
                  "    ell = np.minimum(ell1, ell2)\n", "    return jnp.arange(ell)\n")
    rebound = [code("import numpy as np\n", "import jax\n", "import jax.numpy as jnp\n",
                    "from functools import partial\n"), jitted, code("f_test(3, 4)\n"),
               code("import jax.numpy as np\n")]
    once = [code("import jax.numpy as np\n", "import jax\n", "import jax.numpy as jnp\n",
                 "from functools import partial\n"), jitted, code("f_test(3, 4)\n")]
    for name, cells in (("rebound", rebound), ("once", once)):
        (tmp_path / f"{name}.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    assert finding_lines(check("--no-cache", "rebound.ipynb", cwd=tmp_path).stdout.decode()) == []
    (line,) = finding_lines(check("--no-cache", "once.ipynb", cwd=tmp_path).stdout.decode())
    assert line.startswith("once.ipynb:cell 2:4:") and " JIT604 " in line, line


def test_cells_that_run_only_on_their_own_are_not_syntax_errors():
    """What compiles as a cell but not in the joined module: no JIT000, and the other cells are linted."""
    from jitlint.source.notebook import NotebookError, read_notebook

    cells = ["x = 1\n",
             "from __future__ import annotations\ny: int = 2\n",
             "global x\nx = 3\n",  # a module-level `global` after `x = 1`: CPython refuses the module
             "\n%%bash\necho 'not python ('\n",  # IPython drops the blank line: a cell magic
             "import jax\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"]
    assert all(compiles(text) for text in cells[:3]) and not compiles("".join(cells[:3]))
    notebook = read_notebook(_notebook(cells))
    assert notebook.cell_errors("nb.ipynb", "JIT000") == []
    assert compiles(notebook.source) and len(notebook.source.splitlines()) == sum(c.count("\n") for c in cells) + 4
    assert [c.skipped for c in notebook.cells] == [None, None, "it compiles only as a cell of its own",
                                                   "cell magic %%bash", None]
    assert notebook.source.splitlines()[2:4] == ["pass                              ", "y: int = 2"]

    # The hidden import goes back as it was; a fix that breaks the cell is refused, and so is one touching it.
    fixed = notebook.source.replace("y: int = 2", "y: int = 4")
    assert "".join(json.loads(notebook.rewrite(fixed))["cells"][1]["source"]) == \
        "from __future__ import annotations\ny: int = 4\n"
    with pytest.raises(NotebookError, match="cell 2 would not compile"):
        notebook.rewrite(notebook.source.replace("pass      ", "import (\npass      ", 1))
    with pytest.raises(NotebookError, match="`from __future__` import of cell 2"):
        notebook.rewrite(notebook.source.replace("pass      ", "z = 1     ", 1))


def test_the_size_limit_holds_a_notebooks_code_not_its_outputs(tmp_path):
    """A notebook is mostly outputs (plots as base64): its file may exceed max-file-size while its code
    cells stay within it, and then it is linted; code cells over the limit are a JIT000."""
    plot = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo" * 40}}
    printing = code("import jax\n", "@jax.jit\n", "def f(x):\n", "    print(x)\n", "    return x\n")
    (tmp_path / "plots.ipynb").write_text(notebook_json([{**printing, "outputs": [plot]}]))
    long_cell = code("import jax\n", "# " + "x" * 400 + "\n", "@jax.jit\n", "def g(x):\n", "    print(x)\n",
                     "    return x\n")
    (tmp_path / "long.ipynb").write_text(notebook_json([long_cell]))
    assert (tmp_path / "plots.ipynb").stat().st_size > 400 and len(printing["source"]) < 10
    result = check("--no-cache", "--max-file-size", "400", ".", cwd=tmp_path)
    out = result.stdout.decode()
    assert "plots.ipynb:cell 1:4:5: JIT501" in out, out
    assert "long.ipynb:1:1: JIT000 cannot read file: the notebook's code is larger than the 400-byte limit" in out, out


def test_an_error_demonstrated_inside_a_try_that_catches_it_is_not_reported(tmp_path):
    """A teaching notebook calls its jitted function only inside `try: ... except
    TracerBoolConversionError:` (jax-course's solutions, fresh set BW): the error is shown, not raised
    (checked under JAX: the cell prints the message). Called outside one too, the error escapes."""
    cells = [code("import jax\n", "from jax.errors import TracerBoolConversionError\n"),
             code("@jax.jit\n", "def f(x):\n", "    if x < 3:\n", "        return 3.0 * x\n", "    return x\n"),
             code("try:\n", "    f(2.0)\n", "except TracerBoolConversionError as e:\n", "    print('as expected:', e)\n")]
    (tmp_path / "demo.ipynb").write_text(notebook_json(cells), encoding="utf-8")
    assert finding_lines(check("--no-cache", "demo.ipynb", cwd=tmp_path).stdout.decode()) == []
    (tmp_path / "demo.ipynb").write_text(notebook_json(cells + [code("f(1.0)\n")]), encoding="utf-8")
    lines = finding_lines(check("--no-cache", "demo.ipynb", cwd=tmp_path).stdout.decode())
    assert starts(lines, ["demo.ipynb:cell 2:3:8: JIT401"]), lines
    source = "".join("".join(c["source"]) + "\n" for c in cells)
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "as expected:" in done.stdout, done.stderr


def test_a_bound_wrapper_called_only_inside_a_try_is_a_demonstration(tmp_path):
    """A quickstart binds `bad = jit(example_fun)`, calls it only inside `try: ... except Exception:`, then
    shows the fix with `jit(example_fun, static_argnums=(0,))` (fresh set BY): the traced shape is shown,
    not raised, and the witness is the wrapper that traces `length`, not the static one (checked under JAX:
    the cell prints the error and then the static wrapper's result). Called outside the `try` too, the
    error escapes, and is reported with that wrapper as its witness."""
    demo = ("import jax.numpy as jnp\n", "from jax import jit\n", "def example_fun(length, val):\n",
            "    return jnp.ones((length,)) * val\n", "bad_example_jit = jit(example_fun)\n", "try:\n",
            "    print(bad_example_jit(10, 4))\n", "except Exception as e:\n", "    print('Exception', e)\n",
            "good_example_jit = jit(example_fun, static_argnums=(0,))\n", "print(good_example_jit(10, 4))\n")
    (tmp_path / "demo.ipynb").write_text(notebook_json([code(*demo)]), encoding="utf-8")
    assert finding_lines(check("--no-cache", "demo.ipynb", cwd=tmp_path).stdout.decode()) == []
    (tmp_path / "demo.ipynb").write_text(notebook_json([code(*demo), code("bad_example_jit(3, 1)\n")]),
                                         encoding="utf-8")
    done = check("--no-cache", "--format", "json", "demo.ipynb", cwd=tmp_path)
    found = json.loads(done.stdout)
    assert [(f["cell"], f["line"], f["code"]) for f in found] == [(1, 4, "JIT604")], found
    assert [(w["line"], w["message"]) for w in found[0]["witness"]] == [(5, "`jax.jit(...)` traces `example_fun`")]
    ran = subprocess.run([sys.executable, "-c", "".join(demo)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and "Exception" in ran.stdout and "[4. 4." in ran.stdout, ran.stderr
