"""A script of `# %%` cells (jupytext's percent format; VS Code's and Spyder's interactive cells) runs cell by
cell in IPython, so its IPython lines (`!pip install ...`, `%env X=1`, `cd ..`) are not syntax errors: the
file is analysed with them read as a `pass` of the same length, its findings where they are written and no
fix offered (the fixed file would not compile either). A real syntax error in it is still one, and the
same lines in a plain script are (mujoco-mjx-lab's Colab export, fresh set BR: a false JIT000 error)."""

from __future__ import annotations

from jitlint.lint.pipeline import check_source

CELLS = (
    "# %% [markdown]\n"
    "# A tutorial exported from Colab.\n"
    "\n"
    "# %%\n"
    "!pip install mujoco\n"
    "%env MUJOCO_GL=egl\n"
    "import jax\n"
    "\n"
    "# %%\n"
    "@jax.jit\n"
    "def step(x):\n"
    "    print(x)\n"
    "    return x\n"
    "\n"
    "# %%\n"
    "%%bash\n"
    "echo 'not python ('\n"
)


def _found(text: str):
    return [(f.line, f.col, f.code, f.fix is not None) for f in check_source(text, "tutorial.py").findings]


def test_a_script_of_ipython_cells_is_analysed_where_it_is_written():
    assert _found(CELLS) == [(12, 5, "JIT501", False)]


def test_the_same_lines_without_cells_are_a_syntax_error():
    plain = CELLS.replace("# %% [markdown]\n", "").replace("# %%\n", "")
    ((line, _, code, _),) = _found(plain)
    assert (line, code) == (3, "JIT000")  # at `!pip install mujoco`


def test_a_real_syntax_error_in_a_script_of_cells_is_still_one():
    (finding,) = check_source(CELLS.replace("def step(x):", "def step(x)"), "tutorial.py").findings
    assert (finding.line, finding.code) == (11, "JIT000") and finding.message == "syntax error: expected ':'"


def test_a_bare_percent_line_names_no_magic():
    """A stray `%%` line (rl_with_jax's scratch script, labelled set BK) is no magic: IPython refuses it."""
    ((line, _, code, _),) = _found(CELLS.replace("%env MUJOCO_GL=egl\n", "%%\n"))
    assert (line, code) == (6, "JIT000")
    ((line, _, code, _),) = _found(CELLS.replace("%%bash\necho 'not python ('\n", "\n%%\n"))
    assert (line, code) == (17, "JIT000")  # first in its cell: no cell magic either
