"""Applying fixes to text: edits in code-point (line, col) positions, applied back to front."""

from __future__ import annotations

import ast
import difflib
import re
import tokenize
import warnings
from typing import Iterable

from jitlint.core.finding import LINE_BREAK, Applicability, Edit, Finding, python_readline


def _offsets(text: str) -> list[int]:
    return [0, *(m.end() for m in LINE_BREAK.finditer(text))]


def _spans(text: str, edits: Iterable[Edit]) -> list[tuple[int, int, str]]:
    """Edits as (start, end, new text) offsets into `text`; ValueError for a position outside it."""
    starts = _offsets(text)

    def offset(line: int, col: int) -> int:
        if not (1 <= line <= len(starts) and col >= 1):
            raise ValueError(f"edit position {line}:{col} is outside the text")
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(text)
        if start + col - 1 > end:
            raise ValueError(f"edit position {line}:{col} is past the end of its line")
        return start + col - 1

    return [(offset(e.line, e.col), offset(e.end_line, e.end_col), e.new_text) for e in edits]


def _apply_spans(text: str, spans) -> str:
    out, pos = [], 0
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1])):
        if start < pos:
            continue  # overlaps a previous edit: leave it for the next round
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; an edit overlapping an earlier-applied one is skipped."""
    return _apply_spans(text, _spans(text, edits))


def compiles(text: str, top_level_await: bool = False) -> bool:
    """Does the running interpreter compile this text? (libcst also accepts grammar of newer Pythons,
    e.g. f"{f("x")}", which 3.11 refuses: only what this Python compiles may be written.)
    `top_level_await`: a notebook's code, which IPython runs with `await` allowed at the top level."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if top_level_await else 0,
                    dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def comments(text: str) -> list[str] | None:
    """Every comment of the text, in order (None if it does not tokenize)."""
    try:
        return [t.string for t in tokenize.generate_tokens(python_readline(text)) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None


def safe_to_write(old: str, new: str, top_level_await: bool = False) -> bool:
    """A fixed text may replace the old one only if this Python compiles it and no comment was lost."""
    return compiles(new, top_level_await) and comments(new) == comments(old)


def fix_applies(text: str, finding: Finding, top_level_await: bool = False) -> bool:
    """Would this one finding's fix be written? (what the LSP offers as a code action)"""
    try:
        return finding.fix is not None and safe_to_write(text, apply_edits(text, finding.fix.edits),
                                                         top_level_await)
    except ValueError:
        return False


def applies(finding: Finding, unsafe: bool = False) -> bool:
    """Is this finding's fix one to apply (a safe one; an unsafe one too with `unsafe`)?"""
    return finding.fix is not None and (unsafe or finding.fix.applicability is Applicability.SAFE)


def fixed_source(text: str, findings: Iterable[Finding], unsafe: bool = False,
                 top_level_await: bool = False) -> tuple[str, list[Finding]]:
    """The text with the fixes applied (safe ones; unsafe ones too with `unsafe`), and the findings whose
    fixes were. A fix is applied whole or not at all: one whose edits overlap an earlier fix's waits for
    the next round (an identical edit, such as the same `import jax`, is shared); one that would leave text
    this Python does not compile (`top_level_await`: as a notebook's code), or lose a comment, is dropped."""
    chosen: list[tuple[Finding, list]] = []
    taken: set[tuple[int, int, str]] = set()
    for f in findings:
        if not applies(f, unsafe):
            continue
        try:
            spans = _spans(text, f.fix.edits)
        except ValueError:
            continue
        new = [s for s in spans if s not in taken]
        if any(_overlap(s, t) for s in new for t in taken) or any(
                _overlap(s, t) for i, s in enumerate(new) for t in new[i + 1:]):
            continue
        chosen.append((f, new))
        taken.update(new)
    if not chosen:
        return text, []
    new_text = _apply_spans(text, [s for _, spans in chosen for s in spans])
    if new_text != text and safe_to_write(text, new_text, top_level_await):
        return new_text, [f for f, _ in chosen]
    # One of them breaks the text: keep those that do not, one by one.
    kept: list[tuple[Finding, list]] = []
    current = text
    for f, spans in chosen:
        trial = _apply_spans(text, [s for _, ss in kept for s in ss] + spans)
        if trial != current and safe_to_write(text, trial, top_level_await):
            kept.append((f, spans))
            current = trial
    return current, [f for f, _ in kept]


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Do two edits touch the same text? (Two insertions at one point do: their order would be a guess.)"""
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] == b[0]
    return a[0] < b[1] and b[0] < a[1]


def unified_diff(path: str, old: str, new: str) -> str:
    """What a fix changes, as a unified diff (`patch -p0` applies it; line endings are kept)."""
    def lines(text: str) -> list[str]:
        # patch's lines, each with its own ending: they end at \n only (a lone \r is part of the line, as
        # GNU diff and patch read it), so a file with lone-\r endings is one line to them
        return re.findall(r"[^\n]*\n|[^\n]+$", text)

    out = []
    for line in difflib.unified_diff(lines(old), lines(new), fromfile=path, tofile=path):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)
