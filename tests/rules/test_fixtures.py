"""Every fixture's findings are exactly its `# expect:` markers (nothing missing, nothing extra), and
the whole of each finding - line and column range, code, severity, message, and what its fix does - is
its committed snapshot in tests/snapshots/ (`pytest tests/rules/test_fixtures.py --update-snapshots` rewrites
them; the diff is then reviewed), so a changed message, column or fix cannot pass unnoticed."""

import pytest

from harness import FIXTURES, check_snapshot, compare, expected_findings, fixture_files, project_fixtures, snapshot_text
from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source
from jitlint.project.runner import lint_paths

ALL = Config(select=("ALL",))
PROJECTS = project_fixtures()


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture(path):
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(source)
    actual = {(f.line, f.code) for f in lint_source(source, str(path), ALL)}
    problems = compare(expected, actual)
    assert not problems, f"{path.name}:\n{problems}"


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture_snapshot(path, update_snapshots):
    source = path.read_text(encoding="utf-8")
    findings = lint_source(source, path.name, ALL)
    text = snapshot_text(findings, {path.name: source}, f"The findings of tests/fixtures/{path.name}.")
    problems = check_snapshot(f"{path.stem}.txt", text, update_snapshots)
    assert not problems, problems


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_project_fixture_snapshot(project, update_snapshots, monkeypatch):
    monkeypatch.chdir(project)
    findings = lint_paths(["."], ALL).findings
    sources = {f.path: (project / f.path).read_text(encoding="utf-8") for f in findings}
    text = snapshot_text(findings, sources, f"The findings of tests/fixtures/projects/{project.name}/, linted as a whole.")
    problems = check_snapshot(f"project_{project.name}.txt", text, update_snapshots)
    assert not problems, problems


def test_snapshots_catch_a_changed_message_column_or_fix(tmp_path):
    """The comparison itself: each part of a finding shows in the snapshot text."""
    import dataclasses

    path = FIXTURES / "JIT501.py"
    source = path.read_text(encoding="utf-8")
    findings = lint_source(source, path.name, ALL)
    fixable = next(f for f in findings if f.fix is not None)
    base = snapshot_text([fixable], {path.name: source}, "t")
    edit = fixable.fix.edits[0]
    changed = [dataclasses.replace(fixable, message=fixable.message + "!"), dataclasses.replace(fixable, col=fixable.col + 1),
               dataclasses.replace(fixable, fix=dataclasses.replace(
                   fixable.fix, edits=(dataclasses.replace(edit, new_text=edit.new_text + " "),)))]
    for other in changed:
        assert snapshot_text([other], {path.name: source}, "t") != base


def test_fixtures_have_positives_and_negatives():
    for path in fixture_files():
        source = path.read_text(encoding="utf-8")
        assert expected_findings(source), f"{path.name} has no `# expect:` markers"


def test_every_snapshot_belongs_to_a_fixture():
    from harness import SNAPSHOTS

    names = {f"{p.stem}.txt" for p in fixture_files()} | {f"project_{p.name}.txt" for p in PROJECTS}
    assert {p.name for p in SNAPSHOTS.glob("*.txt")} == names
