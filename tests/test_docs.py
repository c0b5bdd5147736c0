"""docs/rules is generated from the rule modules and must not drift from them."""

from pathlib import Path

from jitlint.docs import pages, rules_table_markdown

ROOT = Path(__file__).resolve().parent.parent


def test_rule_pages_are_up_to_date():
    folder = ROOT / "docs" / "rules"
    expected = pages()
    stale = [name for name, text in expected.items()
             if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text]
    extra = [p.name for p in folder.glob("JIT*.md") if p.name not in expected]
    assert not stale and not extra, f"run `jitlint docs` (stale: {stale}, extra: {extra})"


def test_docs_check_command(run_jitlint):
    result = run_jitlint("docs", "--check", "--out", ROOT / "docs" / "rules", "--readme", ROOT / "README.md")
    assert result.returncode == 0, result.stderr


def test_readme_rules_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rules_table_markdown() in readme, "README rules table is stale: run `jitlint docs`"


def test_rule_command_prints_docs(run_jitlint):
    result = run_jitlint("rule", "JIT501")
    assert result.returncode == 0
    assert result.stdout.startswith("# JIT501: print-traced-value")
    assert "## Why is this bad?" in result.stdout and "jax.debug.print" in result.stdout
    unknown = run_jitlint("rule", "JIT999")
    assert unknown.returncode == 2 and "unknown rule" in unknown.stderr
