"""Between the engine and LSP: positions, and findings as diagnostics.

The engine counts lines and columns from 1, columns in code points; clients count from 0, columns in the
negotiated encoding (utf-8 in Neovim 0.11, utf-16 in most others). Every position goes through pygls'
position codec.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from jitlint.catalog.links import rule_docs_url
from jitlint.core.finding import LINE_BREAK, Finding, Severity
from jitlint.lint.results import PARSE_ERROR_CODE

SOURCE = "jitlint"  # the diagnostics' source (and the server's name)


# ------------------------------------------------------------------------------------------ positions


def lsp_lines(source: str) -> list[str]:
    """The lines as LSP (and Python) count them: broken at \\n, \\r\\n and \\r only. (`str.splitlines`,
    which pygls' `TextDocument.lines` uses, also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029,
    which would shift every line number after such a character.)"""
    lines, start = [], 0
    for m in LINE_BREAK.finditer(source):
        lines.append(source[start:m.end()])
        start = m.end()
    lines.append(source[start:])  # the (possibly empty) last line, so the end of the text has a line
    return lines


class Positions:
    """Converts between the engine's 1-based code-point positions and the client's units."""

    def __init__(self, codec: PositionCodec, source: str):
        self.codec = codec
        self.lines = lsp_lines(source)

    def content(self, line0: int) -> str:
        return self.lines[line0].rstrip("\r\n")

    def to_client(self, line: int, col: int) -> types.Position:
        line0 = min(max(line - 1, 0), len(self.lines) - 1)
        col0 = min(max(col - 1, 0), len(self.content(line0)))
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(line0, col0))

    def range_to_client(self, line: int, col: int, end_line: int, end_col: int) -> types.Range:
        return types.Range(start=self.to_client(line, col), end=self.to_client(end_line, end_col))

    def from_client(self, position: types.Position) -> tuple[int, int]:
        """0-based (line, code-point column), clamped to the text."""
        if position.line >= len(self.lines):
            return len(self.lines) - 1, len(self.content(len(self.lines) - 1))
        line0 = position.line
        # a copy: pygls' codec overwrites `character` of positions past the end of the line
        pos = self.codec.position_from_client_units(self.lines, types.Position(line0, position.character))
        return line0, min(pos.character, len(self.content(line0)))


def finding_start(f: Finding) -> tuple[int, int]:
    """Where the finding starts, 0-based, as `Positions.from_client` answers."""
    return f.line - 1, f.col - 1


def finding_end(f: Finding) -> tuple[int, int]:
    return f.end_line - 1, f.end_col - 1


# ------------------------------------------------------------------------------------------ findings


def lsp_severity(severity: Severity) -> types.DiagnosticSeverity:
    return {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
            Severity.INFO: types.DiagnosticSeverity.Information}[severity]


def to_diagnostic(finding: Finding, positions: Positions, docs_url: str | None = None,
                  locate=None) -> types.Diagnostic:
    """`locate(step)`: where a witness step is in the editor (a Location; None to leave it out)."""
    href = rule_docs_url(finding.code, docs_url)
    related = [types.DiagnosticRelatedInformation(location=where, message=step.message)
               for step in finding.witness if locate is not None and (where := locate(step)) is not None]
    return types.Diagnostic(
        range=positions.range_to_client(finding.line, finding.col, finding.end_line, finding.end_col),
        severity=lsp_severity(finding.severity),
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        message=finding.message,
        related_information=related or None,
    )


def step_locator(uri: str, positions: Positions, path: str | None = None):
    """Witness steps of a document's findings: in that document (a notebook's, in their cells: see there);
    a step in another file (`path` is the document's), the caller's, at its file's URI. (Its column counts
    code points, not UTF-16 units: this document's text cannot convert it, and only astral characters
    before it would differ.)"""
    def locate(step) -> types.Location:
        if path is not None and step.path != path and os.path.isabs(step.path):
            start = types.Position(line=step.line - 1, character=step.col - 1)
            return types.Location(uri=Path(step.path).as_uri(), range=types.Range(start=start, end=start))
        return types.Location(uri=uri, range=positions.range_to_client(step.line, step.col, step.line, step.col))
    return locate


def internal_error(path: str, exc: BaseException) -> Finding:
    """The finding that reports a jitlint bug in the editor (the server keeps serving)."""
    return Finding(path, 1, 1, 1, 1, PARSE_ERROR_CODE,
                   f"internal error in jitlint's language server ({type(exc).__name__}: {exc}); please report it",
                   Severity.ERROR)
