"""The one engine every front end calls.

    file -> decode -> pass 1: CPython `ast` (syntax check, the names it refers to, its index summary)
         -> pre-filter (jitlint.analysis.prefilter: can any rule report here?)
         -> pass 2: the quick tree (jitlint.source.fromast): analysis (jitlint.analysis.facade) -> rules: nothing? done
                    libcst parse -> analysis -> rules -> findings -> suppressions

``lint_source`` lints text; ``check_source`` also returns warnings; ``lint_paths`` discovers and lints
files: pass 1 on every file (its summaries make the project index), then pass 2 on the files the
pre-filter keeps, against that index; both passes can run on worker processes and read the cache
(jitlint.project.cache). Nothing here imports or runs the code it reads.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from jitlint.core.config import Config
from jitlint.core.finding import LINE_BREAK, Edit, Finding, Fix, Severity

if TYPE_CHECKING:
    from jitlint.analysis.index import ProjectIndex
    from jitlint.analysis.prefilter import Facts

PARSE_ERROR_CODE = "JIT000"
# Sliced parsing (jitlint.lint.slicing) in `jitlint check`: exact, but on the benchmark corpus it saves about
# as much libcst parsing as its planning costs (docs/performance.md), so whole files are parsed. The
# language server's incremental re-lint slices always (jitlint.project.incremental).
SLICED_PARSE = False
# The quick tree (jitlint.source.fromast): the analysis and the rules run first on libcst's tree as built from
# CPython's parse, without layout; only a file where they report something is parsed by libcst, whose
# exact tree then gives the findings. Off: every relevant file is parsed by libcst.
QUICK_TREE = True
PYTHON_SUFFIXES = (".py", ".pyi")
LINTED_SUFFIXES = (*PYTHON_SUFFIXES, ".ipynb")  # notebooks: jitlint.source.notebook


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fixes_applied: int = 0  # `lint_paths(fix=...)`: fixes written to the file (its findings are after them)
    fix_error: str | None = None  # ... or why the fixed text could not be written (findings before them)
    fixed: list[Finding] = field(default_factory=list)  # the findings those fixes removed
    diff: str | None = None  # `lint_paths(..., write=False)`: what the fixes would change, as a unified diff


@dataclass
class RunStats:
    """How a `lint_paths` run got its results (for benchmarks and tests)."""

    files: int = 0  # files and missing paths reported on
    indexed: int = 0  # pass 1 done in this run (the rest came from the cache)
    analysed: int = 0  # parsed and analysed with libcst
    cached: int = 0  # pass 2 results read from the cache
    skipped: int = 0  # no rule can report there: not parsed with libcst
    not_linted: int = 0  # reported as JIT000
    workers: int = 1  # processes that did the work (1: this one)


@dataclass
class RunResult:
    files: list[FileResult]
    stats: RunStats = field(default_factory=RunStats)
    messages: list[str] = field(default_factory=list)  # about the run, not a file (e.g. a cache not written)

    @property
    def findings(self) -> list[Finding]:
        return sorted(f for r in self.files for f in r.findings)

    @property
    def warnings(self) -> list[str]:
        return [w for r in self.files for w in r.warnings]


def decode_source(data: bytes) -> str:
    """Decode like Python does: BOM, then a PEP 263 coding cookie, then UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


class SourceError(OSError):
    """A path that is not read as source: not a regular file, or over the size limit."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message


def read_source(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """A file's bytes, for regular files only (a FIFO would block, `/dev/zero` never ends), and at most
    `limit` bytes (Config.max_file_size): OSError otherwise, with a message for the user."""
    limit = Config.max_file_size if limit is None else limit
    # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then tells what was opened
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("not a regular file")
        if st.st_size > limit:
            raise SourceError(f"file is larger than the {limit}-byte limit (max-file-size), not read")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:  # it grew while being read
            raise SourceError(f"file is larger than the {limit}-byte limit (max-file-size), not read")
        return data
    finally:
        os.close(fd)


def _file_error(path: str, message: str, line: int = 1, col: int = 1) -> Finding:
    return Finding(path, line, col, line, col, PARSE_ERROR_CODE, message, Severity.ERROR)


def lint_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None) -> list[Finding]:
    """Lint one file's text: the findings, sorted, after `# noqa` and config selection."""
    return check_source(source, path, config).findings


def check_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None, *,
                 apply_noqa: bool = True, module_name: str | None = None, is_package: bool = False,
                 index: "ProjectIndex | None" = None, state=None) -> FileResult:
    """Lint one file's text. `index` holds the jitted functions of the other files linted with it.
    `state`: a `jitlint.project.incremental.Document` remembering this file's earlier texts (the language server)."""
    from jitlint.analysis.prefilter import file_facts

    config = config or Config()
    text, error = _decode(source, path)
    if error is not None:
        return _select(FileResult(path, [error]), config)
    hooks = state.pass_one(module_name, is_package) if state is not None else {}
    facts = file_facts(text, path, module_name, is_package, refs=index is not None, summary=False, **hooks)
    result = _lint_text(text, path, config, facts, apply_noqa=apply_noqa, module_name=module_name,
                        is_package=is_package, index=index, state=state)
    return _in_cells(result, source, config)


def _decode(source: str | bytes, path: str) -> tuple[str | None, Finding | None]:
    """The text the engine lints (a notebook's: its code cells joined), or the JIT000 why there is none."""
    if path.endswith(".ipynb"):
        from jitlint.source.notebook import NotebookError, read_notebook

        try:
            return read_notebook(source.encode("utf-8", "surrogatepass") if isinstance(source, str)
                                 else source).source, None
        except NotebookError as exc:
            return None, _file_error(path, f"cannot read notebook: {exc}")
    if not isinstance(source, bytes):
        return source, None
    try:
        return decode_source(source), None
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return None, _file_error(path, f"cannot decode file: {exc}")


def _lint_text(text: str, path: str, config: Config, facts: "Facts", *, apply_noqa: bool = True,
               module_name: str | None = None, is_package: bool = False,
               index: "ProjectIndex | None" = None, state=None) -> FileResult:
    """Pass 2 for one file whose pass 1 is done: a JIT000, nothing (pre-filtered), or the rules' findings."""
    from jitlint.analysis.prefilter import is_relevant

    if facts.suppressed:
        return FileResult(path)
    if facts.error is not None:
        return _finish(text, path, config, [_error_finding(path, facts.error)], apply_noqa)
    if not is_relevant(facts, index):
        return FileResult(path)
    return _lint_relevant(text, path, config, apply_noqa, module_name, is_package, index, state)


def _lint_relevant(text: str, path: str, config: Config, apply_noqa: bool, module_name: str | None,
                   is_package: bool, index, state=None) -> FileResult:
    """libcst, the analysis and the rules, on a file that parses with CPython."""
    findings = _analyse(text, path, config, module_name, is_package, index, state=state)
    return _finish(text, path, config, findings, apply_noqa)


def _finish(text: str, path: str, config: Config, findings: list[Finding], apply_noqa: bool) -> FileResult:
    """`# noqa` comments, then the configured selection."""
    result = FileResult(path)
    if apply_noqa and findings:
        from jitlint.core.noqa import Suppressions

        suppressions = Suppressions(text)
        findings = [f for f in findings if not suppressions.suppresses(f.line, f.code)]
        result.warnings.extend(f"{path}:{w.line}: warning: {w.message}" for w in suppressions.warnings)
    result.findings = sorted(findings)
    return _select(result, config)


def _in_cells(result: FileResult, source: str | bytes, config: Config) -> FileResult:
    """A notebook's result (linted as its joined code cells) with its findings at their cells."""
    if not result.path.endswith(".ipynb"):
        return result
    from jitlint.source.notebook import NotebookError, read_notebook

    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    try:
        notebook = read_notebook(data)  # read (and cached) by _decode
    except NotebookError:
        return result  # its JIT000 says why
    return _select(notebook.map_result(result, PARSE_ERROR_CODE), config)


def _error_finding(path: str, error: dict) -> Finding:
    return Finding(path, error["line"], error["col"], error["end_line"], error["end_col"], PARSE_ERROR_CODE,
                   error["message"], Severity.ERROR)


def _select(result: FileResult, config: Config) -> FileResult:
    result.findings = [f for f in result.findings if config.is_enabled(f.code, result.path)]
    return result


def _analyse(source: str, path: str, config: Config, module_name: str | None, is_package: bool,
             index: "ProjectIndex | None", whole: bool = False, state=None) -> list[Finding]:
    """`whole`: parse the whole file with libcst, not only the statements that matter (jitlint.lint.slicing).
    `state`: reuse what a `jitlint.project.incremental.Document` kept of this file's earlier texts."""
    from jitlint.rules.registry import enabled_rules

    rules = enabled_rules(config, path)
    if not rules:
        return []
    try:
        return _analyse_with(rules, source, path, module_name, is_package, index, whole, state)
    except RecursionError:
        pass  # nesting CPython accepts (it compiled in pass 1): again, with room to recurse
    from jitlint.core.deep import run_deep

    try:
        return run_deep(_analyse_with, rules, source, path, module_name, is_package, index, True)
    except RecursionError:
        return [_file_error(path, "file is too deeply nested to analyse")]


class _SliceMismatch(Exception):
    """The sliced parse cannot give this file's answer exactly: parse the whole file."""


def _analyse_with(rules, source: str, path: str, module_name: str | None, is_package: bool,
                  index: "ProjectIndex | None", whole: bool = False, state=None) -> list[Finding]:
    """libcst, the analysis and the rules; RecursionError escapes (see `_analyse`)."""
    import libcst as cst

    from jitlint.analysis.facade import analyze
    from jitlint.source.cstparse import parse_module
    from jitlint.rules.base import RuleContext

    if state is not None and not whole:
        try:
            found = state.findings(rules, source, path, module_name, is_package, index)
        except RecursionError:
            raise
        except Exception as exc:  # a jitlint bug must not hide the other files' findings
            return [_file_error(path, f"internal error while analysing this file ({type(exc).__name__}: {exc}); "
                                      "please report it")]
        if found is not None:
            return found

    if state is None and QUICK_TREE and not _reports_on_quick_tree(rules, source, path, module_name, is_package,
                                                                   index):
        return []
    sliced = None if whole or not SLICED_PARSE else _parse_sliced(source, module_name, is_package, index)
    try:  # CPython's parser has accepted the file (pass 1): its messages are the ones users know
        module = sliced.module if sliced is not None else parse_module(source)
    except cst.ParserSyntaxError as exc:  # valid Python that libcst does not support
        message = exc.message.replace("parser error: ", "")
        return [_file_error(path, f"syntax not supported by libcst: {message}", exc.raw_line, exc.raw_column + 1)]
    except RecursionError:
        raise
    except Exception as exc:  # libcst raises a few other errors on odd input (e.g. NUL bytes)
        return [_file_error(path, f"cannot parse file: {type(exc).__name__}: {exc}")]
    try:
        analysis = analyze(module, module_name, is_package)
        if sliced is not None and analysis.out_of_budget:
            raise _SliceMismatch  # the budget counts the module's functions: the whole module's is larger
        ctx = RuleContext(analysis, path, index, source)
        reports = [(rule, report) for rule in rules for report in rule.check(ctx)]
        if not reports:
            return []
        return _to_findings(module, path, reports, source, sliced.starts if sliced is not None else None,
                            analysis.top_level)
    except _SliceMismatch:
        return _analyse_with(rules, source, path, module_name, is_package, index, True)
    except RecursionError:
        raise
    except Exception as exc:  # a jitlint bug must not hide the other files' findings
        return [_file_error(path, f"internal error while analysing this file ({type(exc).__name__}: {exc}); "
                                  "please report it")]


def _reports_on_quick_tree(rules, source: str, path: str, module_name: str | None, is_package: bool,
                           index) -> bool:
    """Whether the rules report anything on the quick tree of `source`; True where that tree cannot be
    built or the analysis fails on it (libcst's parse decides). RecursionError escapes (see `_analyse`)."""
    from jitlint.analysis.facade import analyze
    from jitlint.source.cstparse import unvalidated
    from jitlint.source.fromast import quick_module
    from jitlint.source.python import parse_python
    from jitlint.rules.base import RuleContext

    tree, error = parse_python(source)  # pass 1's tree, when this process made it
    if error is not None:
        return True
    try:
        with unvalidated():  # nodes the rules build from it (fixes, `children`) are never written out
            module = quick_module(tree, source)
            ctx = RuleContext(analyze(module, module_name, is_package), path, index, source)
            return any(True for rule in rules for _ in rule.check(ctx))
    except RecursionError:
        raise
    except Exception:  # fromast.Unsupported, or anything else: libcst's exact tree goes the usual way
        return True


def _parse_sliced(source: str, module_name: str | None, is_package: bool, index):
    """The statements that matter, parsed with libcst (jitlint.lint.slicing), or None: parse the whole file."""
    from jitlint.source.python import parse_python
    from jitlint.lint.slicing import parse_sliced

    tree, error = parse_python(source)
    if error is not None:
        return None
    try:
        return parse_sliced(source, tree, module_name, is_package, index)
    except RecursionError:
        return None


def _to_findings(module, path: str, reports, source: str, starts=None, top_level=None) -> list[Finding]:
    """Positions are computed once per file, and only for files that have something to report.
    `starts`: where each top-level statement of a sliced module starts in the file. `top_level`: the
    analysis' `cstwalk.TopLevel` of `module`, shared with the fixes that asked it already."""
    nodes = [report.node for _, report in reports]
    nodes += [edit.node for _, report in reports if report.fix is not None for edit in report.fix.edits]
    positions = _positions(module, source, nodes, starts, top_level)
    lines = LINE_BREAK.split(source)
    findings = []
    seen = set()
    for rule, report in reports:
        pos = positions.get(report.node)
        if pos is None:
            continue
        key = (rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        fix = _fix_of(module, report.fix, positions, lines) if report.fix is not None else None
        findings.append(Finding(path, pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1,
                                rule.code, report.message, report.severity or rule.severity, fix))
    return findings


def _fix_of(module, spec, positions, lines: list[str]) -> Fix | None:
    """A rule's FixSpec as text edits: every edit, or no fix at all."""
    from jitlint.rules.base import InsertBefore

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
    A sliced module (`starts` given) has no whole-module answer: _SliceMismatch then."""
    try:
        found = _statement_positions(module, source, nodes, starts, top_level)
    except RecursionError:
        raise  # the whole-module way would recurse deeper still
    except Exception:  # any surprise: the whole-module way below is always right
        found = None
    if found is not None:
        return found
    if starts is not None:
        raise _SliceMismatch
    return _position_map(module)


def _position_map(module) -> dict:
    """libcst's PositionProvider answers for every node of `module`. `MetadataWrapper.resolve` also runs
    a visit for the batchable providers even when there are none, which rebuilds every node (as long again
    as the positions themselves): PositionProvider depends on no other provider, so it is generated on its
    own, the way resolve does it, where this libcst allows that."""
    from libcst.metadata import MetadataWrapper, PositionProvider

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
    from jitlint.source.cstwalk import TopLevel

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
    import libcst as cst
    from libcst.metadata import CodePosition, CodeRange

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
    import ast

    from jitlint.source.python import parse_python

    tree, error = parse_python(source)  # pass 1's tree of this text, usually: no second parse
    if error is not None:
        return {}
    return {s.lineno: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _starts_of(statements, ast_statements) -> list[int] | None:
    """The line where each libcst statement's own code starts (after comments, decorators), from CPython's
    statements of the same block (`a = 1; b = 2` is one libcst line of two); None where they differ."""
    import libcst as cst

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
    from jitlint.source.python import parse_python

    tree, error = parse_python(source)  # pass 1's tree of this text, usually: no second parse
    if error is not None:
        return None
    return _starts_of(module.body, tree.body)


# ------------------------------------------------------------------------------------------ files


def module_name_for(path: Path) -> tuple[str | None, bool]:
    """`pkg/sub/mod.py` -> ("pkg.sub.mod", False), walking up while folders are packages."""
    return _ModuleNames()(path)


class _ModuleNames:
    """`module_name_for`, remembering each folder's package path (a run asks once per file)."""

    def __init__(self) -> None:
        self._folders: dict[str, tuple[str, ...]] = {}
        self._real: dict[str, str] = {}

    def __call__(self, path: Path) -> tuple[str | None, bool]:
        raw = os.fspath(path)
        if os.path.islink(raw):
            real = os.path.realpath(raw)
        else:  # the folder's links resolved once per folder
            folder, name = os.path.split(os.path.abspath(raw))
            if folder not in self._real:
                self._real[folder] = os.path.realpath(folder)
            real = os.path.join(self._real[folder], name)
        folder, name = os.path.split(real)
        is_package = name == "__init__.py"
        if name.endswith(".ipynb"):
            return None, False  # not importable: notebooks are linted, not indexed
        parts = [*self._package(folder)]
        if not is_package:
            parts.append(name.rsplit(".", 1)[0] if "." in name else name)
        if not parts:
            return None, is_package
        return ".".join(parts), is_package

    def _package(self, folder: str) -> tuple[str, ...]:
        """The dotted parts of the package a folder is (empty when it has no `__init__.py`)."""
        known = self._folders.get(folder)
        if known is not None:
            return known
        parts: tuple[str, ...] = ()
        parent, name = os.path.split(folder)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            parts = (*(self._package(parent) if parent != folder else ()), name)
        self._folders[folder] = parts
        return parts


def discover(paths: Sequence[str], config: Config) -> Iterator[Path | tuple[str, str]]:
    """Python files under `paths`; a missing path is yielded as (path, error)."""
    for raw in paths:
        p = Path(raw)
        if os.path.isdir(p):
            if config.force_exclude and config.is_excluded(p) and raw not in (".", "./"):
                continue
            yield from _walk(p, config)
        elif os.path.lexists(p):  # a file, or a FIFO, device or dangling link: reading it says which
            if config.force_exclude and config.is_excluded(p):
                continue
            yield p
        else:
            yield (raw, "no such file or directory")


def _walk(root: Path, config: Config) -> Iterator[Path | tuple[str, str]]:
    """Python files under `root`; a folder that cannot be listed is yielded as (folder, error)."""
    errors: list[OSError] = []
    for folder, dirs, files in os.walk(root, onerror=errors.append):
        yield from _unreadable(errors)
        keep = []
        for d in sorted(dirs):
            full = Path(folder, d)
            # os.path.isfile, not Path.is_file: an unreadable folder answers False, not PermissionError
            if config.is_excluded(full) or os.path.isfile(full / "pyvenv.cfg"):
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            if name.endswith(LINTED_SUFFIXES):
                full = Path(folder, name)
                if not config.is_excluded(full):
                    yield full
    yield from _unreadable(errors)


def _unreadable(errors: list[OSError]) -> Iterator[tuple[str, str]]:
    while errors:
        exc = errors.pop(0)
        yield (str(exc.filename), f"cannot read folder: {exc.strerror or exc}")


# ------------------------------------------------------------------------------------------ runs


@dataclass
class _File:
    """One file of a run, between the passes."""

    order: int  # its place in the output (-1: indexed only, not linted)
    display: str
    module: str | None
    package: bool
    key: str = ""  # its absolute path: what the cache and the index know it by
    data: bytes | None = None
    digest: str = ""
    facts: "Facts | None" = None
    stat: "os.stat_result | None" = None  # when it was read

    def task(self) -> tuple[str, str, str | None, bool, bytes]:
        return self.display, self.key, self.module, self.package, self.data


def _read(order: int, path: Path, names: "_ModuleNames", cache, max_size: int | None) -> "_File | str":
    """A file read for pass 1 (its facts from the cache when they are there), or why it cannot be read.

    A file only indexed (order -1, not linted) whose size and mtime are those the cache recorded with its
    hash is not read again: a single-file lint of a large project reads one file, not thousands."""
    from jitlint.project.cache import content_hash

    display = str(path)
    key = os.path.abspath(display)
    st = None
    if cache is not None:
        try:
            st = os.stat(key)
        except OSError:
            st = None
        if order < 0 and st is not None:
            digest = cache.digest_by_stat(key, st)
            if digest is not None:
                f = _File(order, display, *names(path), key=key, digest=digest)
                f.facts = cache.get_facts(key, digest, f.module, f.package)
                if f.facts is not None:
                    return f
    try:
        data = read_source(path, max_size)
    except OSError as exc:
        return f"cannot read file: {exc.strerror or exc}"
    f = _File(order, display, *names(path), key=key, data=data, digest=content_hash(data))
    f.stat = st
    if cache is not None:
        f.facts = cache.get_facts(f.key, f.digest, f.module, f.package)
        if f.facts is not None:
            cache.note_stat(f.key, st)
    return f


def _index_pass(files: list[_File], jobs: int, cache, progress, stats: RunStats) -> None:
    """Pass 1 (CPython's ast) for every file whose facts the cache does not hold."""
    todo = [f for f in files if f.facts is None]
    for f, facts in _run(_pass1_batch, todo, jobs, None, progress, "indexing", stats):
        f.facts = facts
        if cache is not None:
            cache.put_facts(f.key, f.digest, f.module, f.package, facts, f.stat)
    stats.indexed += len(todo)


def index_files(paths: Iterable[Path], *, jobs: int = 1, cache_dir: str | os.PathLike | None = None,
                config: Config | None = None, progress=None) -> "tuple[ProjectIndex, RunResult]":
    """The project index of these files (pass 1 alone, read from and written to the cache). Where two
    files claim one module name, the later one wins. `progress`: as for `lint_paths`."""
    from jitlint.project.cache import Cache
    from jitlint.analysis.index import ProjectIndex

    config = config or Config()
    cache = Cache(Path(cache_dir), config, lint=False) if cache_dir is not None else None
    names = _ModuleNames()
    unique: dict[str, Path] = {}
    for p in paths:  # a path named twice counts where it comes last
        key = os.path.abspath(p)
        unique.pop(key, None)
        unique[key] = p
    files = [f for f in (_read(-1, p, names, cache, config.max_file_size) for p in unique.values())
             if isinstance(f, _File)]
    run = RunResult([], RunStats(files=len(files)))
    _index_pass(files, jobs, cache, progress, run.stats)
    if cache is not None:
        cache.save({f.key for f in files}, prune=False)
        run.messages.extend(cache.errors)
    return ProjectIndex([f.facts.summary for f in files if f.facts.summary is not None]), run


def lint_paths(paths: Iterable[str], config: Config | None = None, *, project_files: Iterable[Path] = (),
               jobs: int = 1, cache_dir: str | os.PathLike | None = None, progress=None,
               fix: str | None = None, write: bool = True) -> RunResult:
    """Discover files, index their jitted functions and those of `project_files`, then lint each
    discovered file against that index. (Front ends call `jitlint.project.project.Project.lint`, which names
    every file of the project in `project_files`.)

    `jobs`: worker processes (1: all in this process). `cache_dir`: read and update the cache there
    (None: no cache). `progress`: an object with `start(label, total)`, `advance(n)` and `done()`.
    `fix`: "safe" applies the safe fixes, "unsafe" the unsafe ones too; the workers fix and re-lint, this
    process writes each file atomically (FileResult.fixes_applied, or FileResult.fix_error when it cannot
    be written). `write=False`: nothing is written; FileResult.diff says what would change.
    """
    from jitlint.analysis import prefilter
    from jitlint.project.cache import Cache, Resolver
    from jitlint.analysis.index import ProjectIndex

    config = config or Config()
    items = list(discover(list(paths), config))
    stats = RunStats(files=len(items))
    cache = Cache(Path(cache_dir), config) if cache_dir is not None else None
    names = _ModuleNames()
    results: list[FileResult | None] = [None] * len(items)
    files: list[_File] = []
    notebooks: dict[int, bytes] = {}  # order -> the bytes its result's positions refer to
    for order, item in enumerate(items):
        if isinstance(item, tuple):
            raw, error = item
            results[order] = _select(FileResult(raw, [_file_error(raw, error)]), config)
            continue
        f = _read(order, item, names, cache, config.max_file_size)
        if isinstance(f, str):
            results[order] = _select(FileResult(str(item), [_file_error(str(item), f)]), config)
            continue
        if f.display.endswith(".ipynb"):
            notebooks[order] = f.data
        files.append(f)
    linted = {f.key for f in files}
    others = []  # the rest of the project: indexed, not linted
    for path in project_files:
        key = os.path.abspath(path)
        if key not in linted:
            linted.add(key)
            f = _read(-1, path, names, cache, config.max_file_size)
            if isinstance(f, _File):
                others.append(f)

    # Pass 1: CPython's ast, for every file the cache does not know.
    _index_pass(files + others, jobs, cache, progress, stats)
    # The linted files last: where two files claim one module name (two `pkg` folders in a repository),
    # the linted one's view of its own package wins.
    index = ProjectIndex([f.facts.summary for f in others + files if f.facts.summary is not None])
    for f in others:
        f.data = None
    resolver = Resolver(index)
    is_relevant = prefilter.is_relevant
    todo = []
    for f in files:
        facts = f.facts
        if facts.suppressed:
            results[f.order] = FileResult(f.display)
        elif facts.error is not None:
            text, _ = _decode(f.data, f.display)
            results[f.order] = _lint_text(text or "", f.display, config, facts)
        elif not is_relevant(facts, resolver):
            results[f.order] = FileResult(f.display)
            stats.skipped += 1
        else:
            hit = cache.get_lint(f.key, f.digest, f.module, f.package, facts.refs, resolver, f.display) if cache else None
            if hit is None or (fix and any(x.fix is not None for x in hit[0])):
                todo.append(f)
                continue  # its bytes go to pass 2
            results[f.order] = FileResult(f.display, *hit)
            stats.cached += 1
        f.data = None

    # Pass 2: libcst and the rules, for the files that can have findings.
    if todo and _start_method() == "fork":
        import_linting()  # once here, not in every worker
    linted = _run(_pass2_batch, todo, jobs, (config, index, fix), progress, "linting", stats)
    for f, (result, looked_up, opaque, fixed) in linted:
        if fixed is not None:
            result = _write_fixed(f.display, result, *fixed) if write else _diff_fixed(f, result, *fixed)
            results[f.order] = result
            if result.fixes_applied and f.order in notebooks:
                notebooks[f.order] = fixed[0]
            f.data = None
            continue  # not cached: the file's bytes changed (or the findings are those before the fixes)
        results[f.order] = result
        if cache is not None and not opaque:
            refs = set(f.facts.refs)
            extra = [q for q in looked_up if q not in refs]
            cache.put_lint(f.key, f.digest, f.module, f.package, result.findings, result.warnings,
                           resolver.hits([*f.facts.refs, *extra]), extra)
        f.data = None
    stats.analysed = len(todo)
    for order, data in notebooks.items():
        if results[order] is not None:
            results[order] = _in_cells(results[order], data, config)

    run = RunResult([r for r in results if r is not None], stats)
    stats.not_linted = sum(1 for r in run.files if any(x.code == PARSE_ERROR_CODE for x in r.findings))
    if cache is not None:
        cache.save({f.key for f in files + others})
        run.messages.extend(cache.errors)
    return run


def import_linting() -> None:
    """What linting a file imports (libcst, the analysis, the rules: about 0.16 s of CPU): for pass 2's
    forked workers to inherit, and for the language server to load while it waits."""
    import libcst  # noqa: F401

    from jitlint.analysis import facade as analysis  # noqa: F401
    from jitlint.source import cstparse  # noqa: F401
    from jitlint.rules.registry import all_rules

    all_rules()


def _pass1(task) -> "Facts":
    """Pass 1 of one file (display path, module, package flag, bytes): never raises."""
    from jitlint.analysis.prefilter import Facts, file_facts

    display, key, module, package, data = task
    try:
        text, error = _decode(data, display)
        if error is not None:
            return Facts(error=_error_dict(error))
        return file_facts(text, key, module, package)
    except Exception as exc:  # a jitlint bug must not stop the run
        return Facts(error=_error_dict(_file_error(
            display, f"internal error while indexing this file ({type(exc).__name__}: {exc}); please report it")))


def _error_dict(finding: Finding) -> dict:
    return {"line": finding.line, "col": finding.col, "end_line": finding.end_line, "end_col": finding.end_col,
            "message": finding.message}


class _RecordingIndex:
    """The project index as the rules see it in pass 2: every name they look up (and every name they ask
    is a memoizer, as `cache.MEMOIZER` + the name) is remembered, because the cached result depends on
    the answers. Any other use makes the result uncacheable."""

    def __init__(self, index: "ProjectIndex") -> None:
        self._index = index
        self.looked_up: set[str] = set()
        self.opaque = False

    def lookup(self, qualified: str, *args, **kwargs):
        self.looked_up.add(qualified)
        return self._index.lookup(qualified, *args, **kwargs)

    def is_memoizer(self, qualified: str) -> bool:
        from jitlint.project.cache import MEMOIZER

        self.looked_up.add(MEMOIZER + qualified)
        return self._index.is_memoizer(qualified)

    def __getattr__(self, name: str):
        self.opaque = True
        return getattr(self._index, name)


_FIX_ROUNDS = 5  # fixes whose edits overlap wait for the next round; each round re-lints the new text


def _pass2(task, config: Config, index: "ProjectIndex", fix: str | None = None):
    """Pass 2 of one relevant file: (result, names looked up in the index, result is uncacheable, fixed).
    `fixed`, when `fix` changed the text: (the new bytes, the findings fixed, the result before them)."""
    display, _, module, package, data = task
    recorder = _RecordingIndex(index) if index is not None else None
    fixed = None
    try:
        text, error = _decode(data, display)
        result = _select(FileResult(display, [error]), config) if error is not None else \
            _lint_relevant(text, display, config, True, module, package, recorder)
        if fix and error is None and any(x.fix is not None for x in result.findings):
            fixed = _fix_and_relint(data, text, result, config, module, package, recorder, fix == "unsafe")
            if fixed is not None:
                fixed, result = (fixed[0], fixed[1], result), fixed[2]
    except Exception as exc:  # a jitlint bug must not stop the run
        result = _select(FileResult(display, [_file_error(
            display, f"internal error while linting this file ({type(exc).__name__}: {exc}); please report it")]),
            config)
        return result, [], True, None
    if recorder is None:
        return result, [], False, fixed
    return result, sorted(recorder.looked_up), recorder.opaque, fixed


def _fix_and_relint(data: bytes, text: str, result: FileResult, config: Config, module: str | None,
                    package: bool, index, unsafe: bool = False) -> tuple[bytes, list[Finding], FileResult] | None:
    """Apply the fixes round after round (each fixed text is one this Python compiles, with every comment
    kept), re-linting in between: (the new file bytes, the findings fixed, the findings after them)."""
    from jitlint.core.fixes import applies, fixed_source

    display = result.path
    applied: list[Finding] = []
    before = result
    for _ in range(_FIX_ROUNDS):
        new_text, done = fixed_source(text, result.findings, unsafe, top_level_await=display.endswith(".ipynb"))
        if not done:
            break
        text = new_text
        applied += done
        result = _lint_relevant(text, display, config, True, module, package, index)
        if not any(applies(x, unsafe) for x in result.findings):
            break
    if not applied:
        return None
    if display.endswith(".ipynb"):
        from jitlint.source.notebook import NotebookError, read_notebook

        try:
            return read_notebook(data).rewrite(text), applied, result
        except NotebookError as exc:
            before.fix_error = f"cannot write the fixes: {exc}"
            return None
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        # decode_source dropped a BOM; "utf-8-sig" writes it back
        new_data = text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return None
    return new_data, applied, result


def _diff_fixed(f: "_File", after: FileResult, new_data: bytes, applied: list[Finding], before: FileResult) -> FileResult:
    """`--diff`: the findings before the fixes, and what the fixes would change."""
    from jitlint.core.fixes import unified_diff

    before.diff = unified_diff(f.display, decode_source(f.data), decode_source(new_data))
    before.fixed = applied
    before.fixes_applied = len(applied)
    return before


def _write_fixed(display: str, after: FileResult, new_data: bytes, applied: list[Finding],
                 before: FileResult) -> FileResult:
    """Write a fixed file in place (atomically): the findings after the fixes, or before them with the
    reason when the file cannot be written (a read-only folder ...)."""
    from jitlint.core.fixes import write_atomically

    try:
        write_atomically(Path(display), new_data)
    except OSError as exc:
        before.fix_error = f"cannot write the fixes: {exc.strerror or exc}"
        return before
    after.fixes_applied = len(applied)
    after.fixed = applied
    return after


# ------------------------------------------------------------------------------------------ workers

_worker_state: tuple | None = None  # (config, index) in a pass-2 worker
_BYTES_PER_WORKER = 64_000


def _pass1_batch(tasks: list) -> list:
    return [_pass1(task) for task in tasks]


def _pass2_batch(tasks: list) -> list:
    config, index, fix = _worker_state
    return [_pass2(task, config, index, fix) for task in tasks]


def _init_worker(state) -> None:
    import signal

    global _worker_state
    _worker_state = state
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    tune_gc()


def tune_gc() -> None:
    """For a process that only lints: collect cyclic garbage far less often (libcst and ast build
    millions of small objects that live until the file is done), and never scan what exists now."""
    import gc

    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_MIN_BATCH = 16_000  # bytes of source: below that, messages cost more than the waiting they save


def _batches(files: list[_File], workers: int) -> list[list[_File]]:
    """Files grouped into batches, biggest files first (so no big file comes last). A batch holds an
    eighth of a worker's share of the bytes (a message per batch, a progress step per batch), and near
    the end less: at most half a worker's share of what is left, so the last batches are small and no
    worker waits long for another to finish its last one."""
    ordered = sorted(files, key=lambda f: -len(f.data))
    remaining = sum(len(f.data) for f in ordered)
    full = max(_MIN_BATCH, remaining // (workers * 8))
    out: list[list[_File]] = []
    current: list[_File] = []
    size = 0
    target = full
    for f in ordered:
        current.append(f)
        size += len(f.data)
        if size >= target:
            out.append(current)
            remaining -= size
            current, size = [], 0
            target = max(_MIN_BATCH, min(full, remaining // (workers * 2)))
    if current:
        out.append(current)
    return out


def _run(batch_func, files: list[_File], jobs: int, state, progress, label: str, stats: RunStats):
    """Yield (file, result) of `batch_func` over `files`: on `jobs` processes, or in this one."""
    if not files:
        return
    if progress is not None:
        progress.start(label, len(files))
    total = sum(len(f.data) for f in files)
    # Starting a process costs about as much as linting 2k lines: one per 64 KB of source at most.
    workers = max(1, min(jobs, len(files), total // _BYTES_PER_WORKER + 1))
    try:
        if workers == 1:
            yield from _in_process(batch_func, files, state, progress)
        else:
            stats.workers = max(stats.workers, workers)
            yield from _run_pool(batch_func, files, workers, state, progress)
    finally:
        if progress is not None:
            progress.done()


def _in_process(batch_func, files: list[_File], state, progress):
    global _worker_state
    saved, _worker_state = _worker_state, state
    try:
        for f in files:
            yield f, batch_func([f.task()])[0]
            if progress is not None:
                progress.advance(1)
    finally:
        _worker_state = saved


def _start_method() -> str:
    """fork where it is safe: workers start at once and inherit the index. A process with other threads
    (JAX's, in a test run or a notebook) must not fork: there workers start afresh and get the index
    pickled."""
    if sys.platform.startswith("linux"):
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return "fork"
        except OSError:
            pass
    return "spawn"


def _run_pool(batch_func, files: list[_File], workers: int, state, progress):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context(_start_method())
    batches = _batches(files, workers)
    pending = {id(f) for f in files}
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                                   initargs=(state,))
    try:
        futures = {executor.submit(batch_func, [f.task() for f in batch]): batch for batch in batches}
        for future in as_completed(futures):
            batch = futures[future]
            try:
                outputs = future.result()
            except BrokenProcessPool:
                break  # a worker died (out of memory?): what is left runs here, below
            except Exception:
                continue  # the batch could not be sent or returned: it runs here, below
            for f, out in zip(batch, outputs):
                pending.discard(id(f))
                yield f, out
            if progress is not None:
                progress.advance(len(batch))
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    yield from _in_process(batch_func, [f for f in files if id(f) in pending], state, progress)
