"""Reports for CI services: SARIF 2.1.0 (GitHub code scanning), JUnit XML (GitLab, Jenkins) and GitLab Code
Quality. Like the other reporters they take findings and write text; the rule metadata comes from the
generated catalogue (jitlint.catalog.codes, jitlint.catalog.pages), so a cached run still never imports libcst.

A finding in a notebook (`Finding.cell` set) has a line inside a cell, not a line of the .ipynb file (whose lines
are JSON). These formats point such a finding at the notebook's first line, put the cell position
(`cell 3:5:9`) at the start of its message, and, in SARIF, also give the cell and the region within it as a
logical location and in `properties`. ruff points notebook findings at line 1 the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, TextIO
from urllib.parse import quote

from jitlint import __version__
from jitlint.catalog.codes import CODES
from jitlint.catalog.links import docs_index_url, rule_docs_url
from jitlint.core.finding import Finding, Severity
from jitlint.output.reporters import position, write_json_document

_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# GitHub's `problem.severity` (its ranking of alerts) has no "info".
_GITHUB_SEVERITY = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}
# GitLab's scale is info < minor < major < critical < blocker. An error here fails at trace time for certain:
# critical; a warning (a recompile, wasted work): major; info (overhead only): minor. Nothing blocks a merge.
_GITLAB_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "minor"}


def message(f: Finding) -> str:
    """The message, after the cell position for a notebook finding (whose line is not the file's)."""
    return f.message if f.cell is None else f"{position(f)}: {f.message}"


def fingerprints(findings: list[Finding], sources: dict[str, list[str]]) -> list[str]:
    """A stable fingerprint per finding (64 hex digits), the same in every run while the finding's line stays
    the same, wherever that line moves: a hash of the code, the path and the line's text without its
    indentation, plus which occurrence of that triple it is (two identical lines, two findings on one line).
    A notebook's line is its cell's. Without the line's text (an unreadable file) the message stands in for it."""
    seen: Counter = Counter()
    out = []
    for f in findings:
        lines = sources.get(f.path if f.cell is None else (f.path, f.cell))
        text = lines[f.line - 1].strip() if lines and 0 < f.line <= len(lines) else f"\0{f.message}"
        key = (f.code, f.path.replace(os.sep, "/"), text)
        seen[key] += 1
        digest = hashlib.sha256("\0".join((*key, str(seen[key]))).encode("utf-8", "surrogatepass"))
        out.append(digest.hexdigest())
    return out


def _relative(path: str) -> str | None:
    """The path from the working folder with forward slashes, or None when it is outside it."""
    if path == "-":
        return "-"
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return Path(rel).as_posix()


def _uri(text: str) -> str:
    # The name's own bytes (a name that is not UTF-8 too); a `:` would read as a scheme.
    return quote(os.fsencode(text), safe="/")


def _artifact(path: str) -> dict:
    rel = _relative(path)
    if rel is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": _uri(rel), "uriBaseId": "%SRCROOT%"}


def _region(line: int, col: int, end_line: int, end_col: int) -> dict:
    # jitlint's columns are 1-based code points, the end one past the last character, as SARIF's with
    # columnKind unicodeCodePoints.
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def _section(page: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", page, re.S | re.M)
    return match.group(1).strip() if match else ""


def _sarif_rule(code: str, docs_url: str | None) -> dict:
    from jitlint.catalog.pages import PAGES  # why: every code's page, for SARIF only: gitlab and junit skip it

    # Every code jitlint reports is in the catalogue (tests/rules/test_docs.py); a stale one still gives a report.
    name, kind, severity, summary = CODES.get(code, (f"rule-{code.lower()}", "static", "warning", code))
    page = PAGES.get(code, "")
    level = _SARIF_LEVELS[Severity(severity)]
    rule = {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _section(page, "What it does") or summary},
        "help": {"text": page or summary, "markdown": page or summary},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["jax", "runtime" if kind == "runtime" else "static-analysis"],
                       "problem.severity": _GITHUB_SEVERITY[Severity(severity)]},
    }
    url = rule_docs_url(code, docs_url)
    if url:
        rule["helpUri"] = url
    return rule


def _sarif_fix(f: Finding) -> dict:
    fix = f.fix
    return {
        "description": {"text": f"{fix.title} ({fix.applicability.value} fix)"},
        "artifactChanges": [{
            "artifactLocation": _artifact(f.path),
            "replacements": [{"deletedRegion": _region(e.line, e.col, e.end_line, e.end_col),
                              "insertedContent": {"text": e.new_text}} for e in fix.edits],
        }],
        "properties": {"applicability": fix.applicability.value},
    }


def _location(path: str, cell: int | None, line: int, col: int, end_line: int, end_col: int) -> dict:
    location: dict = {"physicalLocation": {"artifactLocation": _artifact(path)}}
    if cell is None:
        location["physicalLocation"]["region"] = _region(line, col, end_line, end_col)
    else:
        location["physicalLocation"]["region"] = {"startLine": 1}
        location["logicalLocations"] = [{"name": f"cell {cell}", "kind": "notebookCell"}]
        location["properties"] = {"cell": cell, "cellRegion": _region(line, col, end_line, end_col)}
    return location


def _code_flow(f: Finding, location: dict) -> dict:
    """The witness as one thread flow: each step (entry first), then the finding's own location."""
    steps = [{"location": {**_location(s.path, s.cell, s.line, s.col, s.line, s.col), "message": {"text": s.message}}}
             for s in f.witness]
    steps.append({"location": {**location, "message": {"text": f.message}}})
    return {"threadFlows": [{"locations": steps}]}


def _sarif_result(f: Finding, rule_index: int, fingerprint: str) -> dict:
    location = _location(f.path, f.cell, f.line, f.col, f.end_line, f.end_col)
    result = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVELS[f.severity],
        "message": {"text": message(f)},
        "locations": [location],
        # GitHub matches alerts across runs by this key; 16 hex digits and an occurrence, as its own hash.
        "partialFingerprints": {"primaryLocationLineHash": f"{fingerprint[:16]}:1"},
    }
    if f.witness:
        result["codeFlows"] = [_code_flow(f, location)]
    if f.fix is not None:
        if f.cell is None:
            result["fixes"] = [_sarif_fix(f)]
        else:  # the edits count lines within the cell: no region of the .ipynb file to replace
            result["properties"] = {"fix": {"title": f.fix.title, "applicability": f.fix.applicability.value}}
    return result


def sarif_report(findings: list[Finding], sources: dict[str, list[str]], docs_url: str | None = None) -> dict:
    codes = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    driver = {"name": "jitlint", "version": __version__, "semanticVersion": __version__,
              "rules": [_sarif_rule(code, docs_url) for code in codes]}
    info = docs_index_url(docs_url)
    if info:
        driver["informationUri"] = info
    run = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri().rstrip("/") + "/"}},
        "automationDetails": {"id": "jitlint/"},
        "results": [_sarif_result(f, index[f.code], fp)
                    for f, fp in zip(findings, fingerprints(findings, sources))],
    }
    return {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def write_sarif(findings: list[Finding], out: TextIO, sources: dict[str, list[str]],
                docs_url: str | None = None) -> None:
    write_json_document(sarif_report(findings, sources, docs_url), out)


def write_gitlab(findings: list[Finding], out: TextIO, sources: dict[str, list[str]]) -> None:
    issues = []
    for f, fp in zip(findings, fingerprints(findings, sources)):
        begin, end = (f.line, f.end_line) if f.cell is None else (1, 1)
        issues.append({
            "description": f"{f.code}: {message(f)}",
            "check_name": f.code,
            "fingerprint": fp,
            "severity": _GITLAB_SEVERITY[f.severity],
            "location": {"path": _relative(f.path) or f.path, "lines": {"begin": begin, "end": end}},
        })
    write_json_document(issues, out)


# XML 1.0 cannot hold these even escaped: written as Python escapes instead (as `printable` does).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)


def write_junit(findings: list[Finding], out: TextIO, checked: Iterable[str]) -> None:
    """One test suite for the run; a failing test case per finding (named by its code and position, its class
    the file) and a passing one per checked file without findings, so a CI test view lists every file."""
    import xml.etree.ElementTree as ET  # why: only junit writes XML: sarif and gitlab runs skip loading it

    by_path: dict[str, list[Finding]] = {path: [] for path in checked}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    tests = sum(max(1, len(fs)) for fs in by_path.values())
    counts = {"tests": str(tests), "failures": str(len(findings)), "errors": "0", "skipped": "0"}
    suites = ET.Element("testsuites", {"name": "jitlint", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": "jitlint", **counts})
    for path in sorted(by_path):
        name = _xml_text(path)
        if not by_path[path]:
            ET.SubElement(suite, "testcase", {"classname": name, "name": "no findings", "file": name})
        for f in by_path[path]:
            case = ET.SubElement(suite, "testcase", {"classname": name, "name": _xml_text(f"{f.code} {position(f)}"),
                                                     "file": name, "line": str(f.line if f.cell is None else 1)})
            failure = ET.SubElement(case, "failure", {"message": _xml_text(f"{f.code} {f.message}"),
                                                      "type": f.severity.value})
            failure.text = _xml_text(f"{f.path}:{position(f)}: {f.code} {f.message}")
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
