"""Applying fixes to text: edits in code-point (line, col) positions, applied back to front."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from jitlint.finding import Edit, Finding


def _offsets(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; an edit overlapping an earlier-applied one is skipped."""
    starts = _offsets(text)

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col - 1

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


def fixed_source(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """The text with every available fix applied, and how many were applied; unchanged if the result
    would not parse."""
    import libcst as cst

    edits = [e for f in findings if f.fix is not None for e in f.fix.edits]
    if not edits:
        return text, 0
    new = apply_edits(text, edits)
    try:
        cst.parse_module(new)
    except Exception:
        return text, 0
    return new, sum(1 for f in findings if f.fix is not None)


def write_atomically(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write via a temporary file in the same folder and rename over the original (keeps its mode)."""
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jitlint-tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
