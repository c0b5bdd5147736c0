"""Every fixture's findings are exactly its `# expect:` markers: nothing missing, nothing extra."""

import pytest

from harness import compare, expected_findings, fixture_files
from jitlint.config import Config
from jitlint.engine import lint_source


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture(path):
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(source)
    actual = {(f.line, f.code) for f in lint_source(source, str(path), Config(select=("ALL",)))}
    problems = compare(expected, actual)
    assert not problems, f"{path.name}:\n{problems}"


def test_fixtures_have_positives_and_negatives():
    for path in fixture_files():
        source = path.read_text(encoding="utf-8")
        assert expected_findings(source), f"{path.name} has no `# expect:` markers"
