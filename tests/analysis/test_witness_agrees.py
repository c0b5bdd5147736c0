"""A finding's message and its witness name the same calling context: where the message says a helper is
"called from traced `f`", the witness's last step is `f` calling it (a helper reached from several traced
callers is reported with the chain of one of them, and its message must name that one, not the caller
the analysis happened to walk last: NEO_JAX, fresh set BI). Checked on every fixture and project fixture."""

import re

import pytest

from harness import fixture_files, project_fixtures
from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source
from jitlint.project.runner import lint_paths

ALL = Config(select=("ALL",))
_CALLED = re.compile(r"\(called from traced `([^`]+)`\)")


def _disagreements(findings) -> list[str]:
    out = []
    for f in findings:
        steps = [step.message for step in f.witness]
        called = _CALLED.search(f.message)
        if called and steps:
            name = called.group(1)
            # (a custom_vjp/jvp rule is "called" by the function it differentiates)
            if not (steps[-1].startswith(f"traced `{name}` calls ") or f"rule of traced `{name}`" in steps[-1]):
                out.append(f"{f.path}:{f.line} {f.code} names caller `{name}`, witness ends {steps[-1]!r}")
    return out


def test_fixtures_name_their_witness_caller():
    problems = []
    named = 0
    for path in fixture_files():
        findings = lint_source(path.read_text(encoding="utf-8"), path.name, ALL)
        named += sum(1 for f in findings if _CALLED.search(f.message) and f.witness)
        problems += _disagreements(findings)
    assert named > 20  # (the check has findings to check)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("project", project_fixtures(), ids=lambda p: p.name)
def test_project_fixtures_name_their_witness_caller(project, monkeypatch):
    monkeypatch.chdir(project)
    problems = _disagreements(lint_paths(["."], ALL).findings)
    assert not problems, "\n".join(problems)
