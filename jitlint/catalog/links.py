"""Where a rule's documentation is, for editors (LSP `codeDescription`, hover) and reports.

`docs-url` in `[tool.jitlint]` names it: a template with `{code}` (`https://docs.example.org/rules/{code}`).
Without one, the page in jitlint's own checkout (`docs/rules/JITnnn.md`, written by `jitlint docs`) is linked
as a file when it is there, and nothing otherwise: no link is better than one that leads nowhere.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin

_PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"


def rule_docs_url(code: str, template: str | None = None) -> str | None:
    if template:
        return template.replace("{code}", code)
    page = _PAGES / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def docs_index_url(template: str | None = None) -> str | None:
    """Where all the rule pages are (SARIF's `informationUri`): the folder of the configured pages, else the
    checkout's index page (docs/rules/README.md), else nothing."""
    if template:
        return urljoin(template.replace("{code}", "JIT000"), ".")
    page = _PAGES / "README.md"
    return page.as_uri() if page.is_file() else None
