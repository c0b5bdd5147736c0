"""Turning findings into text for people and machines."""

from __future__ import annotations

import os

import json
import re
from collections import Counter
from typing import Iterable, TextIO

from jitlint.core.finding import Finding


def printable(text: str) -> str:
    """Text for a terminal: control characters (a newline or an escape sequence in a file name, a
    message quoting one) written as Python escapes, so one finding is one line and nothing is run."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\t" else repr(ch)[1:-1] for ch in text)


def position(f: Finding) -> str:
    """`line:col`, or `cell N:line:col` in a notebook (ruff's form; the line counts within the cell)."""
    return f"{f.line}:{f.col}" if f.cell is None else f"cell {f.cell}:{f.line}:{f.col}"


def text_line(f: Finding) -> str:
    return printable(f"{f.path}:{position(f)}: {f.code} {f.message}{short_witness(f)}")


def short_witness(f: Finding) -> str:
    """The witness in a line's tail where it spans functions (one step the message says already): where
    the code is traced and each call on the way, by line (`--format json` has it whole)."""
    if len(f.witness) < 2:
        return ""
    steps = " > ".join(f"{'' if s.path == f.path else _short_path(s.path) + ':'}"
                       f"{'' if s.cell is None else f'cell {s.cell}:'}{s.line} {s.message}" for s in f.witness)
    return f" [via {steps}]"


def _short_path(path: str) -> str:
    """A step in another file (a caller's, jitlint.analysis.foreign), relative to here when below it."""
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        if not rel.startswith(".."):
            return rel
    return path


def write_text(findings: list[Finding], out: TextIO, show_source: bool = False,
               sources: dict[str, list[str]] | None = None) -> None:
    for f in findings:
        out.write(text_line(f) + "\n")
        if show_source and sources is not None:
            # a notebook's lines are its cells': sources[(path, cell)]
            lines = sources.get(f.path if f.cell is None else (f.path, f.cell))
            if lines and 0 < f.line <= len(lines):
                src = lines[f.line - 1].rstrip("\r\n")
                out.write(f"    {printable(src)}\n")
                width = max(1, (f.end_col - f.col) if f.end_line == f.line else len(src) - f.col + 1)
                out.write("    " + " " * (f.col - 1) + "^" * width + "\n")


def write_grouped(findings: list[Finding], out: TextIO) -> None:
    """Findings under their file's name (ruff's `grouped`), a blank line after each file."""
    path = None
    for f in findings:
        if f.path != path:
            if path is not None:
                out.write("\n")
            path = f.path
            out.write(printable(f"{path}:") + "\n")
        out.write("  " + printable(f"{position(f)} {f.code} {f.message}") + "\n")
    if path is not None:
        out.write("\n")


# A file name that is not UTF-8 holds its undecodable bytes as lone surrogates (surrogateescape), which
# no UTF-8 text can carry: in JSON they are written as `\udcXX` escapes (json.loads gives the name back).
_SURROGATE = re.compile("[\ud800-\udfff]")


def write_json_document(data, out: TextIO) -> None:
    """Every JSON report (json, sarif, gitlab): indented, UTF-8 as it is, valid whatever the file names."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    out.write(_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text))
    out.write("\n")


def write_json(findings: list[Finding], out: TextIO) -> None:
    write_json_document([f.to_dict() for f in findings], out)


def write_statistics(findings: Iterable[Finding], out: TextIO) -> None:
    # why: `jitlint --version` loads this module, not the catalogue (and never the registry: libcst)
    from jitlint.catalog import NAMES

    counts = Counter(f.code for f in findings)
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.write(f"{n:<6}{code}  {NAMES.get(code, '')}\n")


# GitHub Actions workflow commands: each finding becomes an annotation on the pull request's diff.
_GITHUB_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _github_data(text: str) -> str:
    # line breaks as the runner's escapes; other control characters (an ESC in a file name) as `printable`
    # writes them, so no raw escape sequence reaches the log or the annotation
    text = "".join(part if part in ("\r", "\n") else printable(part) for part in re.split(r"(\r|\n)", text))
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(findings: list[Finding], out: TextIO) -> None:
    for f in findings:
        if f.cell is None:
            where, text = (f.line, f.end_line, f.col, f.end_col), f"{f.code} {f.message}"
        else:  # the notebook's own lines are JSON: annotate its first line, the cell position in the text
            where, text = (1, 1, 1, 1), f"{f.code} {position(f)}: {f.message}"
        props = ",".join(f"{key}={_github_property(str(value))}" for key, value in (
            ("title", f"jitlint ({f.code})"), ("file", f.path),
            *zip(("line", "endLine", "col", "endColumn"), where)))
        level = _GITHUB_LEVELS.get(f.severity.value, "warning")
        out.write(f"::{level} {props}::{_github_data(text)}\n")
