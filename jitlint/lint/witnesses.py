"""The witness of each report (jitlint.analysis.witness), and the one rule it enforces: an error-level
finding in traced code needs a complete path from a traced entry to its line; without one it is not
certain, so it is reported as a warning."""

from __future__ import annotations

import dataclasses

from jitlint.analysis.witness import witness_of
from jitlint.core.finding import Severity


def with_witnesses(analysis, reports):
    """(reports, steps per report): each report's witness steps; a report of an error rule in traced
    code that no entry reaches, down to a warning."""
    out, steps = [], []
    for rule, report in reports:
        found, unreached = witness_of(analysis, report.node, rule.witness)
        severity = report.severity or rule.severity
        if unreached and severity is Severity.ERROR:
            report = dataclasses.replace(report, severity=Severity.WARNING)
        out.append((rule, report))
        steps.append(found)
    return out, steps
