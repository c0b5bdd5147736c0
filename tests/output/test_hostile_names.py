"""Reports stay valid whatever the file names hold: bytes that are not UTF-8, control characters."""

from __future__ import annotations

import io
import json

import pytest

from jitlint.core.finding import Finding, Severity
from jitlint.output.ci_formats import write_gitlab, write_sarif
from jitlint.output.reporters import write_github, write_json

NOT_UTF8 = "bad\udcff\udcfe.py"  # os.fsdecode(b"bad\xff\xfe.py"): the name as Python holds it


def _finding(path: str) -> Finding:
    return Finding(path=path, line=2, col=5, end_line=2, end_col=9, code="JIT501",
                   message="`print` of a traced value", severity=Severity.WARNING)


@pytest.mark.parametrize("write", [write_json, lambda f, out: write_gitlab(f, out, {}),
                                   lambda f, out: write_sarif(f, out, {})], ids=["json", "gitlab", "sarif"])
def test_a_name_that_is_not_utf8_gives_valid_json_that_names_the_file(write):
    out = io.StringIO()
    write([_finding(NOT_UTF8)], out)
    data = out.getvalue().encode("utf-8")  # strict: a lone surrogate would not encode
    text = json.dumps(json.loads(data))
    assert "\\udcff\\udcfe" in text or "%FF%FE" in text


def test_a_control_character_in_a_name_never_reaches_a_github_annotation_raw():
    out = io.StringIO()
    write_github([_finding("evil\x1b[31m,x:y.py")], out)
    line = out.getvalue()
    assert "\x1b" not in line and line.count("\n") == 1
    assert "file=evil\\x1b[31m%2Cx%3Ay.py" in line
