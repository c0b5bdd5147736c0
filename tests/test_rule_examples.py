"""Each rule's own examples: every invalid one triggers the rule, no valid one does."""

import textwrap

import pytest

from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.registry import all_rules

CASES = [(rule, kind, i, src) for rule in all_rules() for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid))
         for i, src in enumerate(examples)]


@pytest.mark.parametrize("rule,kind,index,source", CASES, ids=lambda v: getattr(v, "code", str(v))[:12])
def test_rule_example(rule, kind, index, source):
    codes = [f.code for f in lint_source(textwrap.dedent(source), "example.py", Config(select=("ALL",)))]
    assert "JIT000" not in codes, f"{rule.code} {kind}[{index}] does not parse"
    if kind == "invalid":
        assert rule.code in codes, f"{rule.code} invalid[{index}] is not reported: {codes}"
    else:
        assert rule.code not in codes, f"{rule.code} valid[{index}] is reported"


def test_every_rule_is_documented():
    for rule in all_rules():
        assert rule.code.startswith("JIT") and len(rule.code) == 6 and rule.code[3:].isdigit()
        assert rule.invalid and rule.valid, rule.code
        for text in (rule.name, rule.summary, rule.what, rule.why):
            assert text.strip(), rule.code
        doc = rule.docs()
        for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
            assert heading in doc


def test_codes_are_unique_and_families_match():
    codes = [r.code for r in all_rules()]
    assert len(codes) == len(set(codes))
    for rule in all_rules():
        family = rule.__module__.rsplit(".", 1)[-1]
        assert rule.__module__.startswith("jitlint.rules."), rule
        assert family != "_helpers"
