"""Each rule's own examples: every invalid one triggers the rule, no valid one does."""

import textwrap

import pytest

from jitlint.core.config import Config
from jitlint.lint.pipeline import lint_source
from jitlint.rules.registry import all_rules

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


FIX_CASES = [(rule, i, before, after) for rule in all_rules() for i, (before, after) in enumerate(rule.fix_examples)]


def _fix_all(source: str) -> str:
    """The text `jitlint check --fix --unsafe-fixes` writes (rounds of fixes, as the engine applies them)."""
    from jitlint.core.fixes import fixed_source

    for _ in range(5):
        source, done = fixed_source(source, lint_source(source, "example.py", Config(select=("ALL",))), unsafe=True)
        if not done:
            break
    return source


@pytest.mark.parametrize("rule,index,before,after", FIX_CASES, ids=lambda v: getattr(v, "code", str(v))[:12])
def test_fix_example(rule, index, before, after):
    before, after = textwrap.dedent(before).lstrip("\n"), textwrap.dedent(after).lstrip("\n")
    findings = [f for f in lint_source(before, "example.py", Config(select=("ALL",))) if f.code == rule.code]
    assert findings and all(f.fix is not None for f in findings), f"{rule.code} fix[{index}] has no fix"
    fixed = _fix_all(before)
    assert fixed == after, f"{rule.code} fix[{index}]:\n{fixed}"
    compile(fixed, "fixed.py", "exec")
    assert rule.code not in [f.code for f in lint_source(fixed, "example.py", Config(select=("ALL",)))]
    assert _fix_all(fixed) == fixed  # a second --fix changes nothing


NO_FIX_CASES = [(rule, i, src) for rule in all_rules() for i, src in enumerate(rule.no_fix_examples)]


@pytest.mark.parametrize("rule,index,source", NO_FIX_CASES, ids=lambda v: getattr(v, "code", str(v))[:12])
def test_no_fix_example(rule, index, source):
    findings = [f for f in lint_source(textwrap.dedent(source), "example.py", Config(select=("ALL",)))
                if f.code == rule.code]
    assert findings and all(f.fix is None for f in findings), f"{rule.code} no_fix[{index}]"


def test_fixable_rules_show_their_fixes():
    for rule in all_rules():
        assert bool(rule.fix_examples) == rule.fixable, rule.code
