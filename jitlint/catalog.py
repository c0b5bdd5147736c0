"""Every code jitlint can report, by name, without importing the rules.

The rule classes (jitlint.registry) import libcst, which costs about 0.2 s: more than a whole cached
`jitlint check`. Validating `--select`/`--ignore` and printing `--statistics` need only codes and names,
so they read this table. tests/test_startup.py checks that it equals the registry; when a rule is added
or renamed, the test prints the line to put here.
"""

from __future__ import annotations

NOT_LINTED = "JIT000"

NAMES: dict[str, str] = {
    NOT_LINTED: "file-not-linted",
    "JIT101": "jit-of-fresh-function-in-loop",
    "JIT102": "jit-rewrap-in-loop",
    "JIT201": "fresh-callable-static-arg",
    "JIT202": "callable-to-traced-arg",
    "JIT203": "identity-hashed-static-arg",
    "JIT301": "loop-varying-static-arg",
    "JIT302": "float-static-arg",
    "JIT303": "data-derived-static-arg",
    "JIT304": "unhashable-static-arg",
    "JIT305": "invalid-static-argnums",
    "JIT401": "if-on-traced-value",
    "JIT402": "assert-on-traced-value",
    "JIT403": "truth-value-of-tracer",
    "JIT404": "concrete-value-of-tracer",
    "JIT405": "builtin-max-min-of-tracer",
    "JIT406": "numpy-on-tracer",
    "JIT407": "python-index-of-tracer",
    "JIT408": "traced-slice-bound",
    "JIT409": "python-loop-over-traced-array",
    "JIT501": "print-traced-value",
    "JIT502": "log-traced-value",
    "JIT601": "boolean-mask-index",
    "JIT602": "boolean-mask-at-update",
    "JIT603": "data-dependent-output-size",
    "JIT604": "traced-shape",
}


def unknown_selectors(selectors) -> list[str]:
    """Selectors (`JIT5`, `JIT501`, `ALL`) that match no code."""
    return [s for s in selectors if s != "ALL" and not any(code.startswith(s) for code in NAMES)]
