"""Applying fixes to text: edits in code-point (line, col) positions, applied back to front."""

from __future__ import annotations

import io
import os
import re
import tempfile
import tokenize
import warnings
from pathlib import Path
from typing import Iterable

from jitlint.finding import Edit, Finding


# Lines as CPython and libcst count them: a lone \r ends a line too (not \f, \x85 or \u2028).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _offsets(text: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; an edit overlapping an earlier-applied one is skipped."""
    starts = _offsets(text)

    def offset(line: int, col: int) -> int:
        if not (1 <= line <= len(starts) and col >= 1):
            raise ValueError(f"edit position {line}:{col} is outside the text")
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(text)
        if start + col - 1 > end:
            raise ValueError(f"edit position {line}:{col} is past the end of its line")
        return start + col - 1

    spans = sorted(((offset(e.line, e.col), offset(e.end_line, e.end_col), e.new_text) for e in edits),
                   key=lambda s: (s[0], s[1]))
    out, pos = [], 0
    for start, end, new in spans:
        if start < pos:
            continue  # overlaps a previous edit: leave it for the next round
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def compiles(text: str) -> bool:
    """Does the running interpreter compile this text? (libcst also accepts grammar of newer Pythons,
    e.g. f"{f("x")}", which 3.11 refuses: only what this Python compiles may be written.)"""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def comments(text: str) -> list[str] | None:
    """Every comment of the text, in order (None if it does not tokenize)."""
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None


def safe_to_write(old: str, new: str) -> bool:
    """A fixed text may replace the old one only if this Python compiles it and no comment was lost."""
    return compiles(new) and comments(new) == comments(old)


def fix_applies(text: str, finding: Finding) -> bool:
    """Would this one finding's fix be written? (what the LSP offers as a code action)"""
    try:
        return finding.fix is not None and safe_to_write(text, apply_edits(text, finding.fix.edits))
    except ValueError:
        return False


def fixed_source(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """The text with every available fix applied, and how many were applied; unchanged if the result
    would not compile with this Python, would lose a comment, or an edit does not fit the text."""
    fixable = [f for f in findings if f.fix is not None]
    if not fixable:
        return text, 0
    try:
        new = apply_edits(text, [e for f in fixable for e in f.fix.edits])
    except ValueError:
        return text, 0
    if new == text or not safe_to_write(text, new):
        return text, 0
    return new, len(fixable)


def write_atomically(path: Path, text: str | bytes, encoding: str = "utf-8") -> None:
    """Write via a temporary file in the same folder and rename over the original (keeps its mode).
    OSError (a read-only folder, a full disk) leaves the original untouched and no temporary file."""
    folder = path.parent
    data = text if isinstance(text, bytes) else text.encode(encoding)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jitlint-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
