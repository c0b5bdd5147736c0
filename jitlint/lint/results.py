"""What linting gives back: one file's result, a run's results and how it got them, and JIT000, the finding
for a file that is not linted (it cannot be read, decoded, parsed or analysed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from jitlint.core.finding import Finding, Severity

PARSE_ERROR_CODE = "JIT000"


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fixes_applied: int = 0  # `lint_paths(fix=...)`: fixes written to the file (its findings are after them)
    fix_error: str | None = None  # ... or why the fixed text could not be written (findings before them)
    fixed: list[Finding] = field(default_factory=list)  # the findings those fixes removed
    diff: str | None = None  # `lint_paths(..., write=False)`: what the fixes would change, as a unified diff
    # The contexts its traced code gives other project files' functions (jitlint.analysis.foreign.ForeignCall)
    exports: list = field(default_factory=list)


@dataclass
class RunStats:
    """How a `jitlint.project.runner.lint_paths` run got its results (for benchmarks and tests)."""

    files: int = 0  # files and missing paths reported on
    indexed: int = 0  # pass 1 done in this run (the rest came from the cache)
    analysed: int = 0  # parsed and analysed with libcst
    cached: int = 0  # pass 2 results read from the cache
    skipped: int = 0  # no rule can report there: not parsed with libcst
    not_linted: int = 0  # reported as JIT000
    workers: int = 1  # processes that did the work (1: this one)


@dataclass
class RunResult:
    files: list[FileResult]
    stats: RunStats = field(default_factory=RunStats)
    messages: list[str] = field(default_factory=list)  # about the run, not a file (e.g. a cache not written)

    @property
    def findings(self) -> list[Finding]:
        return sorted(f for r in self.files for f in r.findings)

    @property
    def warnings(self) -> list[str]:
        return [w for r in self.files for w in r.warnings]


def file_error(path: str, message: str, line: int = 1, col: int = 1) -> Finding:
    """A JIT000 at one place of the file (its start, unless the reason has a place)."""
    return Finding(path, line, col, line, col, PARSE_ERROR_CODE, message, Severity.ERROR)


def error_finding(path: str, error: dict) -> Finding:
    """Pass 1's error (`Facts.error`, as `error_dict` writes it) as the JIT000 it is."""
    return Finding(path, error["line"], error["col"], error["end_line"], error["end_col"], PARSE_ERROR_CODE,
                   error["message"], Severity(error.get("severity", "error")))


def error_dict(finding: Finding) -> dict:
    """A JIT000 as pass 1 keeps it (`Facts.error`: cached, and sent back from the workers)."""
    return {"line": finding.line, "col": finding.col, "end_line": finding.end_line, "end_col": finding.end_col,
            "message": finding.message, "severity": finding.severity.value}
