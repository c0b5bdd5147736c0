"""The witness of each report (jitlint.analysis.witness), and the rules it enforces on error-level
findings: one in traced code needs a complete path from a traced entry to its line (without one it is not
certain, so it is reported as a warning); one whose every known path from an entry passes a call on one
branch of a test the walk could not decide (`if self.model.is_precessing:` in a caller) holds only for
the configurations that take it, one under a test of a traced value's shape or a value's type that the
analysis cannot decide (`if x.ndim == 0:`) only for some inputs, and one whose error an enclosing `try`
catches does not escape (the code handles it): none of those is reported."""

from __future__ import annotations

import dataclasses

from jitlint.analysis.witness import caught_here, dispatch_guard, handled_at_entry, witness_of
from jitlint.core.finding import Severity


def with_witnesses(analysis, reports, notebook: bool = False):
    """(reports, steps per report): each report's witness steps; a report of an error rule in traced
    code that no entry reaches, down to a warning. `notebook`: the module is a notebook's cells (nothing
    imports it: the calls it makes are all the calls of its functions)."""
    out, steps = [], []
    for rule, report in reports:
        found, unreached, on_the_way = witness_of(analysis, report.node, rule.witness)
        severity = report.severity or rule.severity
        caught = caught_here(analysis, report.node, rule.raises) if severity is Severity.ERROR and rule.raises \
            else None
        if caught is None and severity is Severity.ERROR and rule.raises and rule.witness == "traced":
            # every trace that raises is started inside a `try` that catches it: a demonstration
            caught = handled_at_entry(analysis, found, rule.raises, notebook, report.node)
        if caught == "jax":
            continue  # `except jax.errors.TracerBoolConversionError:` around it: handled on purpose
        guard = dispatch_guard(analysis, report.node) if severity is Severity.ERROR and rule.witness == "traced" \
            else None
        if unreached and severity is Severity.ERROR:
            report = dataclasses.replace(report, severity=Severity.WARNING)
        elif severity is Severity.ERROR and (on_the_way is not None or guard is not None or caught is not None):
            # An error the witness cannot make certain -- every path to it passes a test the walk could not
            # decide, it sits under an undecided test of shapes or types, or a broad `try` handles it -- is not
            # stated. (When they were info, most labelled ones were false -- gwfast's 19, jaxamg's -- but not
            # all: autopdex's JIT601s behind `if solver_backend == "jax":`, fresh set N, were true.)
            continue
        out.append((rule, report))
        steps.append([*found, *report.related])
    return out, steps
