"""Jupyter notebooks (`.ipynb`, nbformat 4) as one Python module, and back.

The engine lints a notebook as one text, so that a function jitted in one cell and called in another is
seen: the code cells in order, each on its own lines, with a comment line (`SEPARATOR`) between two cells.
Every line of a cell keeps its line number within the cell and its columns; the map back is a shift.

* IPython syntax (`%timeit f(x)`, `!pip install jax`, `x = !ls`, `obj?`, `?obj`, a `%%time` first
  line) at the start of a logical line becomes `pass` padded to the line's length (the lines after a
  `\\` of such a line: blanks). A cell starting with any other cell magic (`%%bash`, `%%writefile`) is
  not Python: its lines are blank.
* A cell is read as IPython compiles it (IPython.core.inputtransformer2's cleanup): when its first line
  with more than whitespace is indented, that indentation is removed from every line starting with it
  (`leading_indent`; the blank lines before it, which IPython drops, stay blank lines here). The map
  back adds those columns again; a fix written back puts the indentation back.
* Each cell is compiled on its own, as Jupyter runs it (with top-level `await`, which IPython runs): one
  that does not compile is reported as JIT000 at its own line and blanked, so the other cells are still
  linted. A `from __future__` import at the top of a later cell is valid there, and anywhere at a cell's
  top level (IPython parses a cell, then compiles and runs its statements one by one: after a magic line
  too), but not in the middle of the joined module: it becomes `pass` (a parenthesised one over several lines: `(None ... )`) of the
  same lines and lengths (the features it turns on do not change what jitlint reads). A cell that
  compiles alone but still not in the joined module (a module-level `global x` after an earlier cell
  assigned `x`) is blanked: the notebook runs, so it gets no JIT000.
* Findings are mapped to (cell, line in cell, column); `cell` counts every cell from 1, markdown and
  raw cells too, as ruff numbers them (and as Jupyter shows them).
* `rewrite` puts a fixed text back: only the `source` values of the cells whose text changed are
  replaced in the file's JSON text; every other byte (indentation, key order, escapes, line ends,
  outputs) stays. Magic lines and hidden `__future__` imports are restored; a fix that touched one is
  refused. A fixed cell is written only if it reads back (indentation stripped, magics neutralised) as
  exactly the fixed text, and compiles.

Notebooks are not in the project index: they are not imported (their cells see the index as any file).
"""

from __future__ import annotations

import ast
import bisect
import codecs
import difflib
import functools
import json
import re
import warnings
from dataclasses import dataclass, field, replace

from jitlint.core.finding import LINE_BREAK, Finding, Severity
from jitlint.source import newer_syntax
from jitlint.source.ipython import first_line, line_break, lines_of, neutralise
from jitlint.source.python import syntax_error

SUFFIX = ".ipynb"
SEPARATOR = "# jitlint: next notebook cell"

_INDENT = re.compile(r"[ \t]+")  # IPython's _indent_re


def is_notebook(path) -> bool:
    return str(path).endswith(SUFFIX)


class NotebookError(ValueError):
    """A notebook that cannot be read or written back, with the reason for the user."""


@dataclass
class Cell:
    number: int  # 1-based over all cells (markdown included)
    text: str  # its source, as in the file
    python: str  # the text linted: indentation stripped, magics neutralised, or blank lines
    start: int = 0  # the line of the joined text where it starts
    magic: list[int] = field(default_factory=list)  # 0-based lines replaced by a placeholder
    future: list[int] = field(default_factory=list)  # those of them that hold a hidden `__future__` import
    skipped: str | None = None  # why it is not linted (a cell magic, a syntax error)
    error: dict | None = None  # its JIT000 (lines and columns within the cell, as in the file)
    dedented: str = ""  # `text` as IPython compiles it: the indentation it strips removed
    indent: str = ""  # that indentation ("": none)

    @property
    def lines(self) -> int:
        return len(lines_of(self.python))

    @functools.cached_property
    def _text_lines(self) -> list[str]:
        return lines_of(self.text)

    def shift(self, line: int) -> int:
        """The columns IPython's indentation strip removed from a line (1-based within the cell)."""
        if not self.indent or not 1 <= line <= len(self._text_lines):
            return 0
        return len(self.indent) if self._text_lines[line - 1].startswith(self.indent) else 0

    @property
    def chunk(self) -> str:
        """Its part of the joined text: `python`, ending with a line break."""
        return self.python if not self.python or line_break(self.python[-1]) else self.python + "\n"


def compile_cell(text: str, name: str = "<cell>") -> Exception | None:
    """Why this text would not run as a cell (IPython allows top-level `await`), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except Exception as exc:  # SyntaxError; ValueError (NUL); RecursionError, MemoryError
        return exc
    return None


def _leading_indent(text: str) -> tuple[str, str]:
    """IPython's cleanup of a cell before it compiles it (IPython.core.inputtransformer2:
    `leading_empty_lines`, then `leading_indent`): when the first line with more than whitespace starts
    with spaces or tabs, that prefix is removed from each line that starts with it (the others stay as
    they are). The text so stripped, and the prefix ("" when there is none). IPython also drops the
    blank lines above that first line; they stay here, so that no line moves."""
    lines = lines_of(text)
    first = next((line for line in lines if not line.isspace()), "")
    m = _INDENT.match(first)
    if m is None:
        return text, ""
    prefix = m.group()
    return "".join(line[len(prefix):] if line.startswith(prefix) else line for line in lines), prefix


def _char_col(line: str, offset: int) -> int:
    """A column `ast` gives (UTF-8 bytes) as code points."""
    return len(line.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "ignore"))


def _hide_future(python: str) -> tuple[str, list[int]]:
    """A cell text (one that compiles) with its `from __future__` imports replaced by a placeholder of
    the same lines and lengths, and those lines (0-based). At the top of a cell they are valid, as
    Jupyter compiles each cell on its own; after the cells before it in the joined module, not."""
    if "__future__" not in python:
        return python, []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(python, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                           dont_inherit=True)
    except Exception:  # it compiled: only a parser's limit (RecursionError, MemoryError)
        return python, []
    lines = lines_of(python)
    hidden: list[int] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and not stmt.level):
            continue
        first, last = stmt.lineno - 1, stmt.end_lineno - 1
        if last >= len(lines):
            return python, []
        head, tail = lines[first], lines[last]
        start, end = _char_col(head, stmt.col_offset), _char_col(tail, stmt.end_col_offset)
        if not head.startswith("from", start):  # lines counted apart from `ast`'s (a lone `\r`?)
            return python, []
        if first == last:
            lines[first] = head[:start] + "pass".ljust(end - start) + head[end:]
        else:  # `(None` ... `)` over the same lines: brackets, so that what follows its last line stays valid
            width = len(head.rstrip("\r\n")) - start
            if width < len("(None") or end < 1:
                return python, []
            lines[first] = head[:start] + "(None".ljust(width) + line_break(head)
            for k in range(first + 1, last):
                lines[k] = " " * len(lines[k].rstrip("\r\n")) + line_break(lines[k])
            lines[last] = " " * (end - 1) + ")" + tail[end:]
        hidden += range(first, last + 1)
    new = "".join(lines)
    if not hidden or compile_cell(new) is not None:
        return python, []
    return new, hidden


def _blank(text: str) -> str:
    return "".join(line_break(line) or "\n" for line in lines_of(text))


def _read_cell(number: int, text: str, hide_future: bool) -> Cell:
    """A code cell as jitlint lints it: as IPython compiles it (indentation stripped, magics
    neutralised), compiled alone; `hide_future`: its `from __future__` imports hidden (a later cell)."""
    dedented, indent = _leading_indent(text)
    python, magic, skipped = neutralise(dedented)
    c = Cell(number, text, python, magic=magic, skipped=skipped, dedented=dedented, indent=indent)
    if skipped is None:
        exc = compile_cell(python, f"<cell {number}>")
        if isinstance(exc, SyntaxError) and "from __future__ imports must occur" in str(exc.msg):
            # IPython runs a cell's statements one by one: a `from __future__` import after a magic line
            # or another statement runs (slimpletic-jax's `%matplotlib inline` first, fresh set BH)
            hidden, future = _hide_future(python)
            if future and compile_cell(hidden, f"<cell {number}>") is None:
                python, exc, hide_future = hidden, None, False
                c.python, c.future = hidden, future
                c.magic = sorted({*magic, *future})
        if isinstance(exc, SyntaxError):
            # valid Python of a newer version (a notebook run on 3.12): where CPython reads the cell with
            # its newer syntax rewritten in place (type parameters, 3.12 f-strings), the cell is analysed as
            # written, as a file is (the notebook's module is rewritten the same way when it is parsed);
            # otherwise it is not analysed, and its JIT000 says why, at info (nothing in the code is wrong)
            rewritten, _, first = newer_syntax.described(python, exc)
            if rewritten is not None and compile_cell(rewritten, f"<cell {number}>") is None:
                exc = None
            elif first is not None:
                exc = first
        if exc is not None:
            e = syntax_error(exc)
            e["col"] += c.shift(e["line"])
            e["end_col"] += c.shift(e["end_line"])
            c.error = e
            c.skipped = "it does not compile"
            c.python = _blank(python)
        elif hide_future:
            c.python, c.future = _hide_future(python)
            c.magic = sorted({*magic, *c.future})
    return c


class Notebook:
    """A parsed notebook: its code cells joined into `source`, and the way back."""

    def __init__(self, raw: str, data: dict, bom: bool) -> None:
        self.raw, self.data, self.bom = raw, data, bom
        self.cells: list[Cell] = []
        meta = data.get("metadata")
        info = meta.get("language_info") if isinstance(meta, dict) else None
        self.language = info.get("name") if isinstance(info, dict) else None  # an R notebook is not linted
        for k, cell in enumerate(data["cells"]):
            if cell.get("cell_type") != "code" or not self.is_python:
                continue
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else source
            self.cells.append(_read_cell(k + 1, text, hide_future=bool(self.cells)))
        self.separator = SEPARATOR
        n = 1
        while any(self.separator in c.text for c in self.cells):  # never a line a cell holds
            self.separator, n = f"{SEPARATOR} {n}", n + 1
        self._join()
        # Every cell compiles alone, its `__future__` imports hidden; the joined module can then refuse
        # only a module-level `global x` after an earlier cell assigned `x` (jitlint.source.python:
        # `compile_error_in_parts`). Jupyter runs that cell: not a JIT000, the cell is not linted.
        for _ in range(len(self.cells) if "global" in self.source else 0):
            exc = compile_cell(self.source, "<notebook>")
            c = self.cell_at(exc.lineno) if isinstance(exc, SyntaxError) and exc.lineno else None
            if c is None or c.skipped is not None:
                break  # it compiles (or an error jitlint's pipeline reports as it is)
            c.skipped = "it compiles only as a cell of its own"
            c.python = _blank(c.python)
            self._join()

    def _join(self) -> None:
        parts, line = [], 1
        for i, c in enumerate(self.cells):
            if i:
                parts.append(self.separator + "\n")
                line += 1
            c.start = line
            parts.append(c.chunk)
            line += c.lines
        self.source = "".join(parts)
        self._starts = [c.start for c in self.cells]

    @property
    def is_python(self) -> bool:
        # kernels write "python"; some tools "Python" (nbformat does not fix the case)
        return self.language is None or isinstance(self.language, str) and self.language.lower() == "python"

    # ---- positions
    def cell_at(self, line: int) -> Cell | None:
        """The cell holding a line of `source` (a separator line: the cell before it)."""
        k = bisect.bisect_right(self._starts, line) - 1
        return self.cells[k] if k >= 0 else None

    def to_cell(self, f: Finding) -> Finding:
        """A finding on `source` as one on its cell (lines within the cell)."""
        c = self.cell_at(f.line)
        if c is None:
            return f
        shift = c.start - 1
        fix = f.fix
        if fix is not None:
            last = c.start + max(c.lines, 1)
            if not all(c.start <= e.line and e.end_line <= last for e in fix.edits):
                fix = None  # an edit outside the cell: not one a cell's editor can apply
            elif c.indent and any(LINE_BREAK.search(e.new_text) for e in fix.edits):
                fix = None  # its new lines would need the indentation IPython strips: only --fix adds it
            else:
                fix = replace(fix, edits=tuple(
                    replace(e, line=e.line - shift, end_line=e.end_line - shift,
                            col=e.col + c.shift(e.line - shift), end_col=e.end_col + c.shift(e.end_line - shift))
                    for e in fix.edits))
        line, end_line = f.line - shift, max(f.line, f.end_line) - shift
        return replace(f, line=line, end_line=end_line, col=f.col + c.shift(line),
                       end_col=f.end_col + c.shift(end_line) if f.end_col else f.end_col, cell=c.number, fix=fix,
                       witness=tuple(self._step_in_cell(step) for step in f.witness))

    def _step_in_cell(self, step):
        """A witness step on `source` as one on its cell (another cell than the finding's, maybe)."""
        c = self.cell_at(step.line)
        if c is None or step.cell is not None:
            return step
        line = step.line - (c.start - 1)
        return replace(step, line=line, col=step.col + c.shift(line), cell=c.number)

    def cell_errors(self, path: str, code: str) -> list[Finding]:
        """The JIT000 (`code`) of each cell that does not compile."""
        out = []
        for c in self.cells:
            if c.error is not None:
                e = c.error
                out.append(Finding(path, e["line"], e["col"], e["end_line"], e["end_col"], code,
                                   e["message"], Severity(e.get("severity", "error")), cell=c.number))
        return out

    def map_result(self, result, error_code: str):
        """The engine's FileResult on `source` as one on the notebook: findings (and `# noqa` warnings)
        at their cells, and the JIT000 (`error_code`) of the cells that do not compile."""
        path = result.path
        result.findings = [self.to_cell(f) for f in result.findings] + self.cell_errors(path, error_code)
        result.findings.sort()
        prefix = re.compile(re.escape(path) + r":(\d+):")

        def warning(text: str) -> str:
            m = prefix.match(text)
            c = self.cell_at(int(m.group(1))) if m else None
            if c is None:
                return text
            return f"{path}:cell {c.number}:{int(m.group(1)) - c.start + 1}:{text[m.end():]}"

        result.warnings = [warning(w) for w in result.warnings]
        return result

    # ---- writing back
    def rewrite(self, new_source: str) -> bytes:
        """The notebook file with `new_source` (a fixed `source`) put back into its cells."""
        chunks = _split_at(new_source, self.separator)
        if len(chunks) != len(self.cells):
            raise NotebookError("a fix moved a cell boundary")
        changed: dict[int, str] = {}
        for c, chunk in zip(self.cells, chunks):
            if chunk == c.chunk:
                continue
            if c.skipped:
                raise NotebookError(f"a fix changed cell {c.number}, which is not linted ({c.skipped})")
            if c.chunk != c.python and chunk.endswith("\n"):
                chunk = chunk[:-1]  # the line break added after the cell's last line
            if compile_cell(chunk, f"<cell {c.number}>") is not None:
                raise NotebookError(f"the fixed cell {c.number} would not compile")
            text, dedented = _restore(c, chunk)
            again = _read_cell(c.number, text, hide_future=False)
            if again.dedented != dedented:  # never a line IPython would read otherwise than the fix wrote it
                raise NotebookError(f"a fix would change the indentation of cell {c.number}")
            if again.error is not None or again.skipped is not None:
                raise NotebookError(f"the fixed cell {c.number} would not compile")
            changed[c.number] = text
        if not changed:
            return self.encoded(self.raw)
        return self.encoded(self._replace_sources(changed))

    def encoded(self, raw: str) -> bytes:
        return (codecs.BOM_UTF8 if self.bom else b"") + raw.encode("utf-8")

    def _replace_sources(self, changed: dict[int, str]) -> str:
        try:
            spans = _source_spans(self.raw)
        except (IndexError, ValueError) as exc:
            raise NotebookError(f"cannot find the cells in the notebook's JSON ({exc})") from None
        ascii_only = self.raw.isascii() and "\\u" in self.raw
        expected = json.loads(self.raw)
        out, pos = [], 0
        for number in sorted(changed):
            if number not in spans:
                raise NotebookError(f"cannot find the source of cell {number} in the file")
            (start, end), items = spans[number]
            old_value = self.data["cells"][number - 1]["source"]
            text = changed[number]
            if isinstance(old_value, list):
                lines = text.splitlines(keepends=True)  # as nbformat writes them
                value = _render_list(self.raw, start, end, items, lines, ascii_only)
                expected["cells"][number - 1]["source"] = lines
            else:
                value = json.dumps(text, ensure_ascii=ascii_only)
                expected["cells"][number - 1]["source"] = text
            out += [self.raw[pos:start], value]
            pos = end
        out.append(self.raw[pos:])
        new = "".join(out)
        if json.loads(new) != expected:  # only the sources changed, and into what they should be
            raise NotebookError("could not rewrite the notebook's JSON in place")
        return new


def _split_at(text: str, separator: str) -> list[str]:
    chunks, current = [], []
    for line in lines_of(text):
        if line.rstrip("\r\n") == separator:
            chunks.append("".join(current))
            current = []
        else:
            current.append(line)
    chunks.append("".join(current))
    return chunks


def _restore(cell: Cell, fixed: str) -> tuple[str, str]:
    """The fixed cell text (`fixed`: on the cell's `python`) as the cell's source, and the text IPython
    is to compile from it: its IPython lines and hidden `__future__` imports back where their
    placeholders went, and the indentation IPython strips back on the lines that had it (and on the
    lines a fix wrote there)."""
    if not cell.magic and not cell.indent:
        return fixed, fixed
    old, new, dedented, original = lines_of(cell.python), lines_of(fixed), lines_of(cell.dedented), lines_of(cell.text)
    where: dict[int, int] = {}  # a line of `python` -> its line in `fixed`, where the fix kept it
    near: dict[int, int] = {}  # a line the fix wrote -> the line of `python` it replaces or goes before
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            where.update((i, j1 + i - i1) for i in range(i1, i2))
        else:
            near.update((j, min(i1 + j - j1, i2 - 1) if i2 > i1 else min(i1, len(old) - 1)) for j in range(j1, j2))
    for k in cell.magic:
        if k not in where:
            what = "a `from __future__` import" if k in cell.future else "an IPython magic line"
            raise NotebookError(f"a fix would change {what} of cell {cell.number}")
        j = where[k]
        new[j] = dedented[k].rstrip("\r\n") + line_break(new[j])
    back = {j: i for i, j in where.items()}
    lines = [(line, j) for j, line in enumerate(new)]
    head = first_line(dedented)
    if cell.magic and cell.magic[0] == head and dedented[head].lstrip().startswith("%%"):
        first = where[head]
        if any(not line.isspace() for line, _ in lines[:first]):
            # lines a fix put above a cell magic (an import): IPython needs `%%time` first, so they follow it
            lines = [lines[first], *lines[:first], *lines[first + 1:]]
    if not cell.indent:
        text = "".join(line for line, _ in lines)
        return text, text
    out = []
    for line, j in lines:
        if j in back:
            line = original[back[j]].rstrip("\r\n") + line_break(line)  # as it was, indentation included
        elif not line.isspace():  # a line the fix wrote: indented as the line it replaces (or goes before)
            k = near.get(j, -1)
            if 0 <= k < len(original):  # that line, or the nearest one with more than whitespace
                k = next((i for i in [*range(k, len(original)), *range(k - 1, -1, -1)]
                          if not original[i].isspace()), k)
            if line.startswith(cell.indent) or 0 <= k < len(original) and original[k].startswith(cell.indent):
                line = cell.indent + line
        out.append(line)
    return "".join(out), "".join(line for line, _ in lines)


# ---- the JSON text: where each code cell's `source` value is


def _ws(raw: str, i: int) -> int:
    while i < len(raw) and raw[i] in " \t\r\n":
        i += 1
    return i


_DECODER = json.JSONDecoder()


def _value_end(raw: str, i: int) -> int:
    return _DECODER.raw_decode(raw, i)[1]


def _source_spans(raw: str) -> dict[int, tuple[tuple[int, int], list[tuple[int, int]]]]:
    """cell number -> ((start, end) of its `source` value, spans of the list's items)."""
    out = {}
    i = _ws(raw, 0)
    if raw[i] != "{":
        raise NotebookError("not a JSON object")
    for key, start in _members(raw, i):
        if key != "cells":
            continue
        for number, (cell_start, _) in enumerate(_items(raw, start), 1):
            if raw[cell_start] != "{":
                continue
            for ckey, vstart in _members(raw, cell_start):
                if ckey == "source":
                    vend = _value_end(raw, vstart)
                    items = list(_items(raw, vstart)) if raw[vstart] == "[" else []
                    out[number] = ((vstart, vend), items)
    return out


def _members(raw: str, i: int):
    """(key, start of its value) of the object at raw[i]."""
    i = _ws(raw, i + 1)
    while raw[i] != "}":
        key, i = json.decoder.scanstring(raw, i + 1)
        i = _ws(raw, _ws(raw, i) + 1)  # past ':'
        yield key, i
        i = _ws(raw, _value_end(raw, i))
        if raw[i] == ",":
            i = _ws(raw, i + 1)


def _items(raw: str, i: int):
    """(start, end) of each item of the array at raw[i]."""
    i = _ws(raw, i + 1)
    while raw[i] != "]":
        end = _value_end(raw, i)
        yield i, end
        i = _ws(raw, end)
        if raw[i] == ",":
            i = _ws(raw, i + 1)


def _render_list(raw: str, start: int, end: int, items: list[tuple[int, int]], lines: list[str],
                 ascii_only: bool) -> str:
    """A JSON list of `lines`, laid out as the one at raw[start:end] is (or as nbformat lays one out)."""
    if not lines:
        return "[]"
    if items:
        lead, trail = raw[start + 1:items[0][0]], raw[items[-1][1]:end - 1]
        sep = raw[items[0][1]:items[1][0]] if len(items) > 1 else "," + lead
    else:  # `[]`: one more space of indentation than the "source" key's line
        line_start = raw.rfind("\n", 0, start) + 1
        prefix = raw[line_start:start]
        indent = prefix[:len(prefix) - len(prefix.lstrip())]
        newline = "\r\n" if raw[line_start - 2:line_start] == "\r\n" else "\n"
        lead, trail = (newline + indent + " ", newline + indent) if line_start else ("", "")
        sep = "," + lead
    return "[" + lead + sep.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines) + trail + "]"


# ---- reading


def cell_lines(data: bytes) -> dict[int, list[str]]:
    """The lines of each code cell (by cell number) of a notebook file, as they are shown; {} if unreadable."""
    try:
        notebook = read_notebook(data)
    except NotebookError:
        return {}
    return {c.number: LINE_BREAK.split(c.text) for c in notebook.cells}


@functools.lru_cache(maxsize=16)
def read_notebook(data: bytes) -> Notebook:
    """Parse a notebook file's bytes (NotebookError with the reason when it is not one jitlint reads).
    Cached: the engine asks for the same bytes in pass 1, pass 2 and when mapping findings back."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        raw = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"a notebook must be UTF-8 ({exc})") from None
    if not raw.strip():
        # an empty file (as an editor or `touch` leaves one): a notebook of no cells, as ruff reads it
        return Notebook(raw, {"cells": [], "nbformat": 4}, bom)
    try:
        nb = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise NotebookError("invalid JSON: nested too deeply") from None
    if not isinstance(nb, dict):
        raise NotebookError("not a Jupyter notebook: the JSON is not an object")
    version = nb.get("nbformat")
    if version is None:
        raise NotebookError("not a Jupyter notebook: no `nbformat` field")
    if version != 4:
        raise NotebookError(f"nbformat {version!r} notebooks are not supported, only nbformat 4 "
                            "(`jupyter nbconvert --to notebook` converts one)")
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: `cells` is not a list")
    for k, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"cell {k} is not a cell (an object with a `cell_type`)")
        source = cell.get("source", "")
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookError(f"cell {k}: `source` is neither a string nor a list of strings")
    return Notebook(raw, nb, bom)
