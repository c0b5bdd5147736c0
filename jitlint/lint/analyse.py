"""Pass 2's analysis and rules for one file the pre-filter keeps (jitlint.lint.pipeline):

    the quick tree (jitlint.source.fromast): analysis (jitlint.analysis.facade) -> rules: nothing? done
    libcst parse (whole, or sliced: jitlint.lint.slicing) -> analysis -> rules -> findings (jitlint.lint.positions)

Imports libcst, the analysis and the rules: the pipeline loads this module only for a file that needs it,
so a run whose results all come from the cache never does.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitlint.analysis.facade import analyze
from jitlint.analysis.foreign import Place
from jitlint.core.deep import run_deep
from jitlint.core.finding import Finding, WitnessStep
from jitlint.lint import slicing  # slicing.parse_sliced, looked up per call: tests count the parses through it
from jitlint.lint.exports import foreign_exports
from jitlint.lint.positions import SliceMismatch, places, to_findings
from jitlint.lint.results import file_error
from jitlint.lint.unit import LintUnit
from jitlint.lint.witnesses import with_witnesses
from jitlint.rules.base import RuleContext
from jitlint.rules.registry import enabled_rules
from jitlint.source import identifiers
from jitlint.source import cstparse  # cstparse.parse_module, likewise
from jitlint.source.fromast import anchored_quick_module, placed_quick_module
from jitlint.source.python import BACKSLASH_ONLY_LINE, parse_python, runs_here

# Sliced parsing (jitlint.lint.slicing) in `jitlint check`: exact, but on the benchmark corpus it saves about
# as much libcst parsing as its planning costs (docs/performance.md), so whole files are parsed. The
# language server's incremental re-lint slices always (jitlint.project.incremental).
SLICED_PARSE = False
# The quick tree (jitlint.source.fromast): the analysis and the rules run first on libcst's tree as built from
# CPython's parse, without layout; only a file where they report something is parsed by libcst, whose
# exact tree then gives the findings. Off: every relevant file is parsed by libcst.
QUICK_TREE = True


def analyse(unit: LintUnit) -> list[Finding]:
    """The enabled rules' findings on the file (before `# noqa` and selection). `unit.state`: reuse what
    the file's earlier texts left (jitlint.project.incremental.Document)."""
    rules = enabled_rules(unit.config, unit.path)
    if not rules:
        return []
    spelt = identifiers.respelt(unit.text)
    if spelt is not None:  # identifiers as Python reads them (`jax.ｊｉｔ` is `jax.jit`), placed as written
        return [spelt.placed(f) for f in analyse(dataclasses.replace(unit, text=spelt.text, state=None))]
    try:
        return analyse_with(rules, unit)
    except RecursionError:
        pass  # nesting CPython accepts (it compiled in pass 1): again, with room to recurse
    try:
        return run_deep(analyse_with, rules, dataclasses.replace(unit, state=None), True)
    except RecursionError:
        return [file_error(unit.path, "file is too deeply nested to analyse")]


def analyse_with(rules, unit: LintUnit, whole: bool = False) -> list[Finding]:
    """libcst, the analysis and the rules; RecursionError escapes (see `analyse`). `whole`: parse the whole
    file with libcst, not only the statements that matter (jitlint.lint.slicing)."""
    state = unit.state
    if state is not None and not whole and unit.exports is None:
        try:
            found = state.findings(rules, unit.text, unit.path, unit.module_name, unit.is_package, unit.index,
                                   unit.incoming)
        except RecursionError:
            raise
        except Exception as exc:  # a jitlint bug must not hide the other files' findings
            return [_internal_error(unit, exc)]
        if found is not None:
            return found

    if state is None and QUICK_TREE and not reports_on_quick_tree(rules, unit):
        return []
    sliced = None if whole or not SLICED_PARSE else _parse_sliced(unit)
    try:  # CPython's parser has accepted the file (pass 1): its messages are the ones users know
        module = sliced.module if sliced is not None else cstparse.parse_module(unit.text)
    except cst.ParserSyntaxError as exc:  # valid Python that libcst does not support
        message = exc.message.replace("parser error: ", "")
        return _placed_by_cpython(rules, unit, f"libcst cannot parse it ({message} at {exc.raw_line}:"
                                               f"{exc.raw_column + 1})", exc.raw_line, exc.raw_column + 1)
    except RecursionError:
        raise
    except Exception as exc:  # libcst raises a few other errors on odd input (e.g. NUL bytes)
        return _placed_by_cpython(rules, unit, f"libcst cannot parse it ({type(exc).__name__}: {exc})")
    if sliced is None and BACKSLASH_ONLY_LINE.search(unit.text) and module.code != unit.text:
        # libcst reads a line holding only `\` otherwise than CPython (its code differs from the file):
        # its positions would be off, so CPython's are used
        return _placed_by_cpython(rules, unit, "libcst reads a line holding only a backslash otherwise")
    try:
        analysis = analyze(module, unit.module_name, unit.is_package, unit.incoming, unit.index)
        if sliced is not None and analysis.out_of_budget:
            raise SliceMismatch  # the budget counts the module's functions: the whole module's is larger
        ctx = RuleContext(analysis, unit.path, unit.index, unit.text)
        reports = [(rule, report) for rule in rules for report in rule.check(ctx)]
        if unit.exports is not None:
            starts = sliced.starts if sliced is not None else None
            unit.exports[:] = foreign_exports(analysis, unit.index, unit.path, lambda nodes: places(
                module, unit.text, nodes, starts, analysis.top_level))
        if not reports:
            return []
        reports, witnesses = with_witnesses(analysis, reports, unit.path.endswith(".ipynb"))
        found = to_findings(module, unit.path, reports, unit.text, sliced.starts if sliced is not None else None,
                            analysis.top_level, witnesses)
        tree, _ = parse_python(unit.text)
        if tree is not None and not runs_here(tree):  # newer syntax than this Python's: no fixed text compiles
            found = [dataclasses.replace(f, fix=None) for f in found]
        return found
    except SliceMismatch:
        return analyse_with(rules, dataclasses.replace(unit, state=None), True)
    except RecursionError:
        raise
    except Exception as exc:  # a jitlint bug must not hide the other files' findings
        return [_internal_error(unit, exc)]


def _placed_by_cpython(rules, unit: LintUnit, reason: str, line: int = 1, col: int = 1) -> list[Finding]:
    """A valid file libcst cannot parse (or re-render): the rules on the quick tree, each finding placed by
    CPython's positions, without fixes (they are written from libcst's tree). Where even that cannot be
    done, one JIT000 that says what could not be analysed, never a syntax error (the file is valid)."""
    tree, error = parse_python(unit.text)
    found: list[Finding] | None = None
    if error is None:
        try:
            with cstparse.unvalidated():
                module, positions = placed_quick_module(tree, unit.text)
                analysis = analyze(module, unit.module_name, unit.is_package, unit.incoming, unit.index)
                ctx = RuleContext(analysis, unit.path, unit.index, unit.text)
                reports, witnesses = with_witnesses(analysis, [(rule, report) for rule in rules
                                                               for report in rule.check(ctx)],
                                                    unit.path.endswith(".ipynb"))
                if unit.exports is not None:
                    unit.exports[:] = foreign_exports(analysis, unit.index, unit.path,
                                                      lambda nodes: _cpython_place(positions))
            found = _placed(unit.path, reports, witnesses, positions)
        except RecursionError:
            raise
        except Exception:  # fromast.Unsupported, or anything else: say so below
            found = None
    if found is not None:
        return found
    return [file_error(unit.path, f"not analysed: {reason}, and CPython's tree of it could not be used "
                                  "either; the file is valid Python", line, col)]


def _cpython_place(positions):
    """(line, col) of a quick-tree node from CPython's positions (fromast.placed_quick_module), or None."""
    def place(node):
        where = positions.get(node)
        return None if where is None else where[:2]
    return place


def _placed(path: str, reports, witnesses, positions) -> list[Finding] | None:
    """Findings at CPython's positions; None when a report's node has none (it cannot be placed exactly)."""
    out, seen = [], set()
    for (rule, report), steps in zip(reports, witnesses):
        where = positions.get(report.node)
        if where is None:
            return None
        line, col, end_line, end_col = where
        if (rule.code, line, col) in seen:
            continue
        seen.add((rule.code, line, col))
        witness = tuple(WitnessStep(node.path, node.line, node.col, str(text)) if isinstance(node, Place) else
                        WitnessStep(path, p[0], p[1], str(text)) for node, text in steps
                        if isinstance(node, Place) or (p := positions.get(node)) is not None)
        out.append(Finding(path, line, col, end_line, end_col, rule.code, report.message,
                           report.severity or rule.severity, None, witness=witness))
    return sorted(out)


def _internal_error(unit: LintUnit, exc: Exception) -> Finding:
    return file_error(unit.path, f"internal error while analysing this file ({type(exc).__name__}: {exc}); "
                                 "please report it")


def reports_on_quick_tree(rules, unit: LintUnit) -> bool:
    """Whether the rules report anything on the quick tree of the file; True where that tree cannot be
    built or the analysis fails on it (libcst's parse decides). RecursionError escapes (see `analyse`)."""
    tree, error = parse_python(unit.text)  # pass 1's tree, when this process made it
    if error is not None or not runs_here(tree):  # (newer syntax: CPython's tree is of a rewritten text)
        return True
    try:
        with cstparse.unvalidated():  # nodes the rules build from it (fixes, `children`) are never written out
            module, place = anchored_quick_module(tree, unit.text)
            analysis = analyze(module, unit.module_name, unit.is_package, unit.incoming, unit.index)
            ctx = RuleContext(analysis, unit.path, unit.index, unit.text)  # (one: the rules share its memo)
            if any(True for rule in rules for _ in rule.check(ctx)):
                return True
            if unit.exports is not None:  # what it gives other files, placed by CPython (no libcst parse)
                unit.exports[:] = foreign_exports(analysis, unit.index, unit.path, lambda nodes: place)
            return False
    except RecursionError:
        raise
    except Exception:  # fromast.Unsupported, or anything else: libcst's exact tree goes the usual way
        return True


def _parse_sliced(unit: LintUnit):
    """The statements that matter, parsed with libcst (jitlint.lint.slicing), or None: parse the whole file."""
    tree, error = parse_python(unit.text)
    if error is not None:
        return None
    try:
        return slicing.parse_sliced(unit.text, tree, unit.module_name, unit.is_package, unit.index,
                                    {call.function for call in unit.incoming})
    except RecursionError:
        return None
