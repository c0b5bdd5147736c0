"""docs/rules is generated from the rule modules and must not drift from them."""

from pathlib import Path

import pytest

from jitlint.frontends.docs import pages, rules_table_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_rule_pages_are_up_to_date():
    folder = ROOT / "docs" / "rules"
    expected = pages()
    stale = [name for name, text in expected.items()
             if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text]
    extra = [p.name for p in folder.glob("JIT*.md") if p.name not in expected]
    assert not stale and not extra, f"run `jitlint docs` (stale: {stale}, extra: {extra})"
    from jitlint.frontends.docs import CATALOG_PAGES, catalog_pages_source

    assert CATALOG_PAGES.read_text(encoding="utf-8") == catalog_pages_source(), "run `jitlint docs`"


@pytest.mark.slow
def test_docs_check_command(run_jitlint):
    result = run_jitlint("docs", "--check", "--out", ROOT / "docs" / "rules", "--readme", ROOT / "README.md")
    assert result.returncode == 0, result.stderr


def test_readme_rules_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rules_table_markdown() in readme, "README rules table is stale: run `jitlint docs`"


@pytest.mark.slow
def test_rule_command_prints_docs(run_jitlint):
    result = run_jitlint("rule", "JIT501")
    assert result.returncode == 0
    assert result.stdout.startswith("# JIT501: print-traced-value")
    assert "## Why is this bad?" in result.stdout and "jax.debug.print" in result.stdout
    unknown = run_jitlint("rule", "JIT999")
    assert unknown.returncode == 2 and "unknown rule" in unknown.stderr


@pytest.mark.slow
def test_rule_command_takes_every_code_a_name_or_a_prefix(run_jitlint):
    """JIT000, the runtime codes and the static rules all have a page; names and prefixes find them."""
    for query, first in [("JIT000", "# JIT000: file-not-linted"), ("JIT901", "# JIT901: recompiled-on-shape-change"),
                         ("jit907", "# JIT907: tracer-printed"), ("print-traced-value", "# JIT501: print-traced-value"),
                         ("trace-time-error", "# JIT906: trace-time-error")]:
        result = run_jitlint("rule", query)
        assert result.returncode == 0 and result.stdout.startswith(first + "\n"), (query, result.stdout[:200])
        assert "## What it does" in result.stdout and "## Why is this bad?" in result.stdout
    family = run_jitlint("rule", "JIT4")
    titles = [line for line in family.stdout.splitlines() if line.startswith("# JIT")]
    assert family.returncode == 0 and titles[0] == "# JIT401: if-on-traced-value" and len(titles) == 9
    assert all(t.startswith("# JIT4") for t in titles)
    assert run_jitlint("rule", "no-such-rule").returncode == 2


def test_every_code_of_the_catalogue_has_a_page():
    from jitlint.catalog.codes import CODES

    assert {f"{code}.md" for code in CODES} == {name for name in pages() if name.startswith("JIT")}
