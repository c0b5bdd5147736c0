"""The witness of each report (jitlint.analysis.witness), and the two rules it enforces on error-level
findings: one in traced code needs a complete path from a traced entry to its line (without one it is not
certain, so it is reported as a warning); one under a test of a traced value's shape that the analysis
cannot decide (`if x.ndim == 0:`) holds only for some shapes (reported as info, saying so); and one whose
error an enclosing `try` catches does not escape (the code handles it: reported as info, saying so)."""

from __future__ import annotations

import dataclasses

from jitlint.analysis.witness import caught_here, dispatch_guard, witness_of
from jitlint.core.finding import Severity


def with_witnesses(analysis, reports):
    """(reports, steps per report): each report's witness steps; a report of an error rule in traced
    code that no entry reaches, down to a warning."""
    out, steps = [], []
    for rule, report in reports:
        found, unreached = witness_of(analysis, report.node, rule.witness)
        severity = report.severity or rule.severity
        guard = dispatch_guard(analysis, report.node) if severity is Severity.ERROR and rule.witness == "traced" \
            else None
        if unreached and severity is Severity.ERROR:
            report = dataclasses.replace(report, severity=Severity.WARNING)
        elif guard is not None:
            report = dataclasses.replace(report, severity=Severity.INFO, message=report.message + (
                f" (only where `{guard[0]}` holds, which depends on the {guard[1]} passed in: jitlint cannot tell"
                " if it does)"))
        elif severity is Severity.ERROR and rule.raises and caught_here(analysis, report.node, rule.raises):
            report = dataclasses.replace(report, severity=Severity.INFO, message=report.message + (
                " (here an enclosing `try` catches it: under a trace the code takes its `except` path)"))
        out.append((rule, report))
        steps.append(found)
    return out, steps
