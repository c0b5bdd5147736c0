"""IPython's syntax in a text it runs: which lines are IPython's (magics, shell escapes, help, automagic)
and the text CPython reads with them as `pass` of the same length. Read by the notebook reader (each cell)
and by the Python reader (a script of `# %%` cells, which IPython runs cell by cell)."""

from __future__ import annotations

import ast
import re
import warnings

from jitlint.core.finding import LINE_BREAK

# Cell magics whose body is still Python run in the kernel.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

_HELP = re.compile(r"^\s*(\?\??[\w.*%]*|[\w.*%]+\?\??)\s*$")  # obj?  obj??  ?obj  np.*load*?
_ASSIGN_MAGIC = re.compile(r"^\s*[\w.]+(\s*,\s*[\w.]+)*\s*=\s*[!%]")  # x = !ls   files = %sx ls
PERCENT_CELL = re.compile(r"#[ \t]*%%")  # a cell marker of the percent format (`# %%`, `# %% [markdown]`)
# IPython's automagic, on by default: a line that starts with the name of a line magic (IPython's own and
# its shell aliases) and is not Python runs that magic (`cd ..`, `run train.py`, `pip install jax`, `time
# f(x)`); one that reads on as Python (`run = 3`, `time.sleep(1)`, `ls[0]`) is Python, as IPython reads
# it too (its PythonOpsChecker), and so is any line Python compiles as it stands.
_LINE_MAGICS = frozenset("""
    alias alias_magic autoawait autocall automagic bookmark cat cd clear colors conda config cp cpaste debug
    dhist dirs doctest_mode ed edit env gui hist history killbgscripts ldir less lf lk ll load load_ext loadpy
    logoff logon logstart logstate logstop ls lsmagic lx macro magic mamba man matplotlib micromamba mkdir
    more mv notebook page pastebin pdb pdef pdoc pfile pinfo pinfo2 pip popd pprint precision prun psearch
    psource pushd pwd pycat pylab qtconsole quickref recall rehashx reload_ext rep rerun reset
    reset_selective rm rmdir run save sc set_env store sx system tb time timeit unalias unload_ext uv who
    who_ls whos xdel xmode""".split())
_AUTOMAGIC = re.compile(r"^\s*(\w+)[ \t]+(\S.*)$")
_READS_ON = re.compile(r"[!=()<>,+*/%^&|]")  # (IPython's PythonOpsChecker: the rest is Python)


def lines_of(text: str) -> list[str]:
    """The lines with their line breaks (no empty last one)."""
    out, start = [], 0
    for m in LINE_BREAK.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


def line_break(line: str) -> str:
    m = LINE_BREAK.search(line)
    return m.group() if m else ""


def first_line(lines: list[str]) -> int:
    """The index of the first line with more than whitespace (the one IPython's cleanup makes first)."""
    return next((k for k, line in enumerate(lines) if not line.isspace()), 0)


class _Lexer:
    """Just enough of Python's lexing to know whether a line starts a logical line: open brackets,
    strings (a triple-quoted one spans lines) and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None
        self.continued = False

    @property
    def at_statement(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        body = line.rstrip("\r\n")
        i, n = 0, len(body)
        while i < n:
            c = body[i]
            if self.quote is not None:
                if c == "\\":
                    i += 2
                elif body.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                else:
                    i += 1
                continue
            if c == "#":
                n = i
                break
            if c in "'\"":
                self.quote = c * 3 if body.startswith(c * 3, i) else c
                i += len(self.quote)
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        ends_with_backslash = body[:n].endswith("\\")
        if self.quote in ("'", '"') and not ends_with_backslash:
            self.quote = None  # an unterminated one-line string: Python's error, not ours to follow
        self.continued = ends_with_backslash and self.quote is None


def _is_magic(code: str) -> bool:
    stripped = code.strip()
    if stripped.strip("%") == "" and stripped:
        return False  # a bare `%` or `%%` names no magic: IPython refuses it too
    return stripped.startswith(("%", "!")) or _HELP.match(stripped) is not None or \
        _ASSIGN_MAGIC.match(code) is not None or _is_automagic(stripped)


def _is_automagic(stripped: str) -> bool:
    """`cd ..`: a line magic's name and its arguments, which IPython runs as the magic (not Python)."""
    m = _AUTOMAGIC.match(stripped)
    if m is None or m.group(1) not in _LINE_MAGICS or _READS_ON.match(m.group(2)):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(stripped, "<line>", "exec", ast.PyCF_ONLY_AST)
        return False  # Python as it stands
    except (SyntaxError, ValueError):
        return True


def neutralise(text: str) -> tuple[str, list[int], str | None]:
    """The cell's text with IPython lines replaced (same line count), those lines, and why the whole
    cell is not Python (a cell magic other than PYTHON_CELL_MAGICS), if it is not."""
    lines = lines_of(text)
    head = lines[first_line(lines)] if lines else ""  # IPython drops the blank lines above a cell magic
    if head.lstrip().startswith("%%"):
        name = head.strip()[2:].split(None, 1)
        if name and name[0] not in PYTHON_CELL_MAGICS:  # (a bare `%%` names none: not a cell magic)
            return "".join(line_break(line) or "\n" for line in lines), [], f"cell magic {head.strip().split()[0]}"
    out, magic = [], []
    lexer = _Lexer()
    in_magic = False  # a magic line ended with `\`: its next line belongs to it
    for k, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if in_magic or (lexer.at_statement and _is_magic(body)):
            indent = body[:len(body) - len(body.lstrip())]
            placeholder = " " * len(body) if in_magic else (indent + "pass").ljust(len(body))
            out.append(placeholder + line_break(line))
            magic.append(k)
            in_magic = body.endswith("\\")
            continue
        out.append(line)
        lexer.feed(line)
    return "".join(out), magic, None


def neutralise_script(text: str) -> str:
    """A script in the percent format (`# %%` cells: jupytext, VS Code's and Spyder's interactive cells),
    which they run cell by cell in IPython, with each cell's IPython lines (`!pip install mujoco`, `%env
    X=1`, `cd ..`) read as a `pass` of the same length, and a cell of another cell magic (`%%bash`) blank:
    the text CPython reads of it, every other line and column where it was."""
    out: list[str] = []
    cell: list[str] = []
    for line in lines_of(text) + [None]:
        if line is None or PERCENT_CELL.match(line):
            out.append(neutralise("".join(cell))[0])
            cell = []
        if line is not None:
            (out if PERCENT_CELL.match(line) else cell).append(line)
    return "".join(out)
