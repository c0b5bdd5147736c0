"""The one catalogue of codes: every code jitlint can report (static rules, JIT9xx runtime codes, JIT000),
by name, without importing the rules.

The rule classes (jitlint.rules.registry) import libcst, which costs about 0.2 s: more than a whole cached
`jitlint check`. Validating selectors (`select`, `ignore`, `per-file-ignores`, flags, flake8 and LSP
settings) and resolving `jitlint rule QUERY` need only codes and names, so they read `CODES`, which
`jitlint docs` generates into jitlint/catalog/codes.py from the rules and runtime codes themselves.
"""

from __future__ import annotations

from jitlint.catalog.codes import CODES

NOT_LINTED = "JIT000"
NAMES: dict[str, str] = {code: entry[0] for code, entry in CODES.items()}


def unknown_selectors(selectors) -> list[str]:
    """Selectors (`JIT5`, `JIT501`, `JIT901`, `ALL`) that match no code."""
    return [s for s in selectors if s != "ALL" and not any(code.startswith(s) for code in CODES)]


def lookup(query: str) -> list[str]:
    """The codes a user means: a code (`JIT501`), a rule name (`print-traced-value`) or a prefix (`JIT4`)."""
    text = query.strip()
    if text.upper() in CODES:
        return [text.upper()]
    by_name = [code for code, entry in CODES.items() if entry[0] == text.lower()]
    if by_name:
        return by_name
    if text.upper().startswith("JIT"):
        return sorted(code for code in CODES if code.startswith(text.upper()))
    return []
