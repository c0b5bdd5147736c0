"""The one record every part of jitlint exchanges: a finding at a source range."""

from __future__ import annotations

import enum
import io
import re
from dataclasses import dataclass, field

# Lines as CPython and libcst count them: a lone \r ends a line too (not \f, \x85 or \u2028).
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def python_readline(text: str):
    """A `readline` for `tokenize` that ends lines where LINE_BREAK does: `io.StringIO` alone ends them
    only at \n, so a file with lone-\r endings would be one line to the tokenizer."""
    return io.StringIO(text, newline=None).readline


class Severity(str, enum.Enum):
    """How bad a finding is.

    error: raises at trace or call time. warning: recompiles or wastes work. info: overhead only.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, col) positions; columns count code points."""

    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str


class Applicability(str, enum.Enum):
    """How far a fix can be trusted (as ruff names it).

    safe: keeps the program's meaning except for the pitfall; applied by --fix.
    unsafe: may change what the program does (what it prints, when code runs); applied only with
    --unsafe-fixes, offered in the editor as such.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE


@dataclass(frozen=True)
class WitnessStep:
    """One step of the path that makes a finding true (where the code is traced or repeated, each call
    on the way); lines and columns as a finding's, `cell` in a notebook."""

    path: str
    line: int
    col: int
    message: str
    cell: int | None = None

    def to_dict(self) -> dict:
        data = {"path": self.path, "line": self.line, "col": self.col, "message": self.message}
        if self.cell is not None:
            data["cell"] = self.cell
        return data


@dataclass(frozen=True)
class Finding:
    """One finding. Lines and columns are 1-based; columns count code points (like libcst).
    Findings sort by path, cell, line, column, end, code and message."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    code: str
    message: str
    severity: Severity = field(default=Severity.WARNING, compare=False)
    fix: Fix | None = field(default=None, compare=False)
    # In a notebook: the 1-based cell the finding is in; line and end_line then count within that cell.
    cell: int | None = field(default=None)
    # The path that makes it true, entry first: what traces the code (or the loop that repeats it) and
    # each call on the way to this line. Empty where the line alone says it.
    witness: tuple[WitnessStep, ...] = field(default=(), compare=False)

    def _key(self) -> tuple:
        # the cell before the line: `cell 1:9` comes before `cell 2:1` (a notebook-wide finding first)
        return (self.path, -1 if self.cell is None else self.cell, self.line, self.col, self.end_line,
                self.end_col, self.code, self.message)

    def __lt__(self, other: "Finding") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Finding") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Finding") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Finding") -> bool:
        return self._key() >= other._key()

    def to_dict(self) -> dict:
        data = {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "code": self.code,
            "message": self.message,
            "severity": self.severity.value,
            "fix": None,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        data["witness"] = [step.to_dict() for step in self.witness]
        if self.fix is not None:
            data["fix"] = {
                "title": self.fix.title,
                "applicability": self.fix.applicability.value,
                "edits": [
                    {"line": e.line, "col": e.col, "end_line": e.end_line, "end_col": e.end_col,
                     "new_text": e.new_text}
                    for e in self.fix.edits
                ],
            }
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Finding":
        fix = None
        if data.get("fix"):
            fix = Fix(data["fix"]["title"], tuple(Edit(**e) for e in data["fix"]["edits"]),
                      Applicability(data["fix"].get("applicability", "safe")))
        witness = tuple(WitnessStep(w["path"], w["line"], w["col"], w["message"], w.get("cell"))
                        for w in data.get("witness") or ())
        return cls(data["path"], data["line"], data["col"], data["end_line"], data["end_col"],
                   data["code"], data["message"], Severity(data["severity"]), fix, data.get("cell"), witness)
