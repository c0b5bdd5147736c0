"""Where the rules' reports are in the file: libcst's positions of the nodes they name, computed once per
file and only for files with something to report, from the statements that hold those nodes where that
can be checked against CPython's parse, else from the whole module. Imports libcst: loaded with the
analysis step (jitlint.lint.analyse) and the language server's incremental re-lint."""

from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from jitlint.analysis.foreign import Place
from jitlint.core.finding import LINE_BREAK, Edit, Finding, Fix, WitnessStep
from jitlint.rules.base import InsertBefore
from jitlint.source.cstwalk import TopLevel
from jitlint.source.python import parse_python


class SliceMismatch(Exception):
    """The sliced parse cannot give this file's answer exactly: parse the whole file."""


def to_findings(module, path: str, reports, source: str, starts=None, top_level=None,
                witnesses=None) -> list[Finding]:
    """Positions are computed once per file, and only for files that have something to report.
    `starts`: where each top-level statement of a sliced module starts in the file. `top_level`: the
    analysis' `cstwalk.TopLevel` of `module`, shared with the fixes that asked it already. `witnesses`:
    per report, its witness steps ((node, text), entry first: jitlint.lint.witnesses)."""
    witnesses = witnesses if witnesses is not None else [()] * len(reports)
    nodes = [report.node for _, report in reports]
    nodes += [edit.node for _, report in reports if report.fix is not None for edit in report.fix.edits]
    nodes += [node for steps in witnesses for node, _ in steps if not isinstance(node, Place)]
    positions = _positions(module, source, nodes, starts, top_level)
    lines = LINE_BREAK.split(source)
    findings = []
    seen = set()
    for (rule, report), steps in zip(reports, witnesses):
        pos = positions.get(report.node)
        if pos is None:
            continue
        key = (rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        fix = _fix_of(module, report.fix, positions, lines) if report.fix is not None else None
        witness = tuple(WitnessStep(node.path, node.line, node.col, str(text)) if isinstance(node, Place) else
                        WitnessStep(path, where.start.line, where.start.column + 1, str(text))
                        for node, text in steps
                        if isinstance(node, Place) or (where := positions.get(node)) is not None)
        findings.append(Finding(path, pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1,
                                rule.code, report.message, report.severity or rule.severity, fix, witness=witness))
    return findings


def places(module, source: str, nodes, starts=None, top_level=None):
    """(line, col) of each of `nodes`, 1-based (as findings are), for jitlint.lint.exports: a function."""
    if not nodes:
        return lambda node: None
    positions = _positions(module, source, list(nodes), starts, top_level)

    def place(node):
        where = positions.get(node)
        return None if where is None else (where.start.line, where.start.column + 1)

    return place


def _fix_of(module, spec, positions, lines: list[str]) -> Fix | None:
    """A rule's FixSpec as text edits: every edit, or no fix at all."""
    edits = []
    for e in spec.edits:
        pos = positions.get(e.node)
        if pos is None:
            return None
        line, col = pos.start.line, pos.start.column
        if isinstance(e, InsertBefore):
            # the statement starts its line: what precedes it there is its indentation
            indent = lines[line - 1][:col] if line <= len(lines) else None
            if indent is None or indent.strip() or not e.lines:
                return None
            text = "".join(ln + module.default_newline + indent for ln in e.lines.split("\n"))
            edits.append(Edit(line, col + 1, line, col + 1, text))
        else:
            edits.append(Edit(line, col + 1, pos.end.line, pos.end.column + 1, module.code_for_node(e.replacement)))
    return Fix(spec.title, tuple(edits), spec.applicability)


def _positions(module, source: str, nodes, starts=None, top_level=None) -> dict:
    """libcst's PositionProvider answers for `nodes`: from the statements that hold them when that can be
    checked, else from the whole module (which costs a code generation and a visit of every node).
    A sliced module (`starts` given) has no whole-module answer: SliceMismatch then."""
    try:
        found = _statement_positions(module, source, nodes, starts, top_level)
    except RecursionError:
        raise  # the whole-module way would recurse deeper still
    except Exception:  # any surprise: the whole-module way below is always right
        found = None
    if found is not None:
        return found
    if starts is not None:
        raise SliceMismatch
    return _position_map(module)


def _position_map(module) -> dict:
    """libcst's PositionProvider answers for every node of `module`. `MetadataWrapper.resolve` also runs
    a visit for the batchable providers even when there are none, which rebuilds every node (as long again
    as the positions themselves): PositionProvider depends on no other provider, so it is generated on its
    own, the way resolve does it, where this libcst allows that."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    if PositionProvider.METADATA_DEPENDENCIES or PositionProvider.gen_cache or not hasattr(PositionProvider, "_gen"):
        return wrapper.resolve(PositionProvider)
    return PositionProvider()._gen(wrapper)


def _statement_positions(module, source: str, nodes, starts=None, top_level=None) -> dict | None:
    """Positions from a module holding only the top-level statement around each node, shifted to where
    CPython's parser says that statement starts (`starts`: (statement, line) known already). The
    statement's text must be found at exactly those lines of the file (its code is its own: libcst writes
    a statement the same alone or in a module), otherwise None. In a def or class, the statements of its
    body that hold the nodes are written alone instead, where that can be checked the same way
    (`_member_positions`): a finding in one method of a large class does not write the whole class."""
    top_level = top_level or TopLevel(module)
    wanted = {id(node) for node in nodes}
    by_holder: dict[int, list] = {}
    for node in nodes:
        k = top_level.index_of(node)
        if k is None:
            return None
        by_holder.setdefault(k, []).append(node)
    lines = [line for _, line in starts] if starts is not None else _statement_starts(module, source)
    if lines is None or len(lines) != len(module.body):
        return None
    source_lines = LINE_BREAK.split(source)
    defs = None
    out = {}
    for k in sorted(by_holder):
        members = {top_level.member_of(node) for node in by_holder[k]}
        found = None
        if None not in members:
            defs = _top_level_defs(source) if defs is None else defs
            found = _member_positions(module, source, k, lines[k], members, source_lines, wanted, defs)
        if found is None:
            found = _rendered_alone(module, module.body[k], lines[k], source_lines, wanted, "")
            if found is None:
                return None
        out.update(found)
    return out


def _rendered_alone(module, stmt, line: int, source_lines: list[str], wanted: set, indent: str) -> dict | None:
    """Positions of the `wanted` nodes of `stmt`, a statement whose code starts at `line` of the file in a
    block indented by `indent`: from `stmt` written alone, each line found in the file either with that
    indentation before it (statements, continuation lines) or as it is (an unindented comment, a string's
    later lines); None where a line is found neither way."""
    alone = cst.Module(body=[stmt], header=[], footer=[], encoding=module.encoding,
                       default_indent=module.default_indent, default_newline=module.default_newline,
                       has_trailing_newline=True)
    positions = _position_map(alone)
    shift = line - positions[stmt].start.line
    code_lines = LINE_BREAK.split(alone.code)[:-1]  # it ends with a line break
    if shift < 0 or shift + len(code_lines) > len(source_lines):
        return None
    columns = []  # how far each line of the code lies to the right in the file
    for n, code in enumerate(code_lines):
        there = source_lines[shift + n]
        if indent and there == indent + code:
            columns.append(len(indent))
        elif there == code:
            columns.append(0)
        else:
            return None
    out = {}
    for node, pos in positions.items():
        if id(node) in wanted:
            out[node] = CodeRange(CodePosition(pos.start.line + shift, pos.start.column + columns[pos.start.line - 1]),
                                  CodePosition(pos.end.line + shift, pos.end.column + columns[pos.end.line - 1]))
    return out


def _member_positions(module, source: str, k: int, line: int, members: set[int], source_lines: list[str],
                      wanted: set, defs: dict) -> dict | None:
    """`_rendered_alone` for the body statements `members` of the def or class `module.body[k]`, whose code
    starts at `line`: each at the line where CPython's parse of the file starts it (`defs`: the file's
    top-level defs and classes by line). None: not found, or not checked."""
    held = defs.get(line)
    if held is None:
        return None
    block = module.body[k].body
    lines = _starts_of(block.body, held.body)
    if lines is None:
        return None
    indent = block.indent if block.indent is not None else module.default_indent
    out = {}
    for m in members:
        found = _rendered_alone(module, block.body[m], lines[m], source_lines, wanted, indent)
        if found is None:
            return None
        out.update(found)
    return out


def _top_level_defs(source: str) -> dict:
    """The top-level defs and classes of CPython's parse of the file, by the line of their code."""
    tree, error = parse_python(source)  # pass 1's tree of this text, usually: no second parse
    if error is not None:
        return {}
    return {s.lineno: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _starts_of(statements, ast_statements) -> list[int] | None:
    """The line where each libcst statement's own code starts (after comments, decorators), from CPython's
    statements of the same block (`a = 1; b = 2` is one libcst line of two); None where they differ."""
    starts = []
    j = 0
    for stmt in statements:
        if j >= len(ast_statements):
            return None
        starts.append(ast_statements[j].lineno)
        j += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
    return starts if j == len(ast_statements) else None


def _statement_starts(module, source: str) -> list[int] | None:
    """The line where each top-level statement's own code starts, from CPython's parse of the whole file."""
    tree, error = parse_python(source)  # pass 1's tree of this text, usually: no second parse
    if error is not None:
        return None
    return _starts_of(module.body, tree.body)
