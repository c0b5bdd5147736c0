"""examples/project, the README's multi-file example: its pitfalls sit in helpers across files.
`jitlint check` reports exactly its marked lines (each one needs another file of the project), and
`jitlint run` confirms every one of them on real JAX (the last raises, and ends the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import expected_findings
from jitlint.project.project import Project
from test_runtime import run_report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project"


def marked() -> set[tuple[str, int, str]]:
    return {(p.name, line, code) for p in EXAMPLE.glob("*.py")
            for line, code in expected_findings(p.read_text(encoding="utf-8"))}


def test_check_reports_exactly_the_marked_lines():
    run = Project.discover(EXAMPLE, cache=False).lint([str(EXAMPLE)])
    assert {(Path(f.path).name, f.line, f.code) for f in run.findings} == marked()
    assert {code for _, _, code in marked()} == {"JIT101", "JIT301", "JIT501", "JIT601", "JIT605"}
    # the helpers' findings hold because of train.py: their witnesses say where it traces or loops
    for f in run.findings:
        if Path(f.path).name != "train.py":
            assert "train.py" in {Path(s.path).name for s in f.witness}, f


@pytest.mark.slow
def test_run_confirms_every_finding():
    proc, report, _ = run_report("train.py", cwd=EXAMPLE)
    found = {(Path(f["path"]).name, f["line"], f["code"]): f["runtime"]["status"] for f in report["findings"]}
    assert found == {key: "confirmed" for key in marked()}, found
    assert proc.returncode != 0  # the JIT601 raises, as its finding says
