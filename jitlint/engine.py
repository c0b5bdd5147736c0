"""The one engine every front end calls.

    files -> decode -> parse (libcst) -> analyse (jitlint.analysis) -> rules -> findings -> suppressions

``lint_source`` lints text; ``check_source`` also returns warnings; ``lint_paths`` discovers and lints
files. Nothing here imports or runs the code it reads.
"""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from typing import TYPE_CHECKING

from jitlint.config import Config
from jitlint.finding import Edit, Finding, Fix, Severity

if TYPE_CHECKING:
    from jitlint.index import ProjectIndex

PARSE_ERROR_CODE = "JIT000"
PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class RunResult:
    files: list[FileResult]

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


def _file_error(path: str, message: str, line: int = 1, col: int = 1) -> Finding:
    return Finding(path, line, col, line, col, PARSE_ERROR_CODE, message, Severity.ERROR)


def lint_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None) -> list[Finding]:
    """Lint one file's text: the findings, sorted, after `# noqa` and config selection."""
    return check_source(source, path, config).findings


def check_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None, *,
                 apply_noqa: bool = True, module_name: str | None = None, is_package: bool = False,
                 index: "ProjectIndex | None" = None) -> FileResult:
    """Lint one file's text. `index` holds the jitted functions of the other files linted with it."""
    config = config or Config()
    result = FileResult(path)
    if isinstance(source, bytes):
        try:
            source = decode_source(source)
        except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
            result.findings.append(_file_error(path, f"cannot decode file: {exc}"))
            return _select(result, config)
    from jitlint.noqa import Suppressions, file_is_suppressed

    if file_is_suppressed(source):
        return result
    findings = _analyse(source, path, config, module_name, is_package, index)
    if apply_noqa and findings:
        suppressions = Suppressions(source)
        findings = [f for f in findings if not suppressions.suppresses(f.line, f.code)]
        result.warnings.extend(f"{path}:{w.line}: warning: {w.message}" for w in suppressions.warnings)
    result.findings = sorted(findings)
    return _select(result, config)


def _select(result: FileResult, config: Config) -> FileResult:
    result.findings = [f for f in result.findings if config.is_enabled(f.code, result.path)]
    return result


def _python_parse_error(source: str, path: str) -> Finding | None:
    """Check the file with CPython's own parser first: its messages are the ones users know, and it
    refuses input (e.g. thousands of nested brackets) that would overflow libcst's native parser."""
    import ast

    try:
        ast.parse(source)
    except SyntaxError as err:
        return _file_error(path, f"syntax error: {err.msg}", err.lineno or 1, max(err.offset or 1, 1))
    except (RecursionError, MemoryError):
        return _file_error(path, "file is too deeply nested to parse")
    except ValueError as err:  # e.g. NUL bytes
        return _file_error(path, f"cannot parse file: {err}")
    return None


def _analyse(source: str, path: str, config: Config, module_name: str | None, is_package: bool,
             index: "ProjectIndex | None") -> list[Finding]:
    import libcst as cst

    from jitlint.analysis import analyze
    from jitlint.registry import enabled_rules
    from jitlint.rule import RuleContext

    rules = enabled_rules(config, path)
    if not rules:
        return []
    error = _python_parse_error(source, path)
    if error is not None:
        return [error]
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:  # valid Python that libcst does not support
        message = exc.message.replace("parser error: ", "")
        return [_file_error(path, f"syntax not supported by libcst: {message}", exc.raw_line, exc.raw_column + 1)]
    except RecursionError:
        return [_file_error(path, "file is too deeply nested to parse")]
    except Exception as exc:  # libcst raises a few other errors on odd input (e.g. NUL bytes)
        return [_file_error(path, f"cannot parse file: {type(exc).__name__}: {exc}")]
    try:
        analysis = analyze(module, module_name, is_package)
        ctx = RuleContext(analysis, path, index)
        reports = [(rule, report) for rule in rules for report in rule.check(ctx)]
        if not reports:
            return []
        return _to_findings(module, path, reports)
    except RecursionError:
        return [_file_error(path, "file is too deeply nested to analyse")]
    except Exception as exc:  # a jitlint bug must not hide the other files' findings
        return [_file_error(path, f"internal error while analysing this file ({type(exc).__name__}: {exc}); "
                                  "please report it")]


def _to_findings(module, path: str, reports) -> list[Finding]:
    """Positions are computed once per file, and only for files that have something to report."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
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
        fix = None
        if report.fix is not None:
            fpos = positions.get(report.fix.node)
            if fpos is not None:
                fix = Fix(report.fix.title, (Edit(fpos.start.line, fpos.start.column + 1, fpos.end.line,
                                                 fpos.end.column + 1, module.code_for_node(report.fix.replacement)),))
        findings.append(Finding(path, pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1,
                                rule.code, report.message, report.severity or rule.severity, fix))
    return findings


# ------------------------------------------------------------------------------------------ files


def module_name_for(path: Path) -> tuple[str | None, bool]:
    """`pkg/sub/mod.py` -> ("pkg.sub.mod", False), walking up while folders are packages."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.append(folder.name)
        folder = folder.parent
    if not parts:
        return None, is_package
    return ".".join(reversed(parts)), is_package


def discover(paths: Sequence[str], config: Config) -> Iterator[Path | tuple[str, str]]:
    """Python files under `paths`; a missing path is yielded as (path, error)."""
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            if config.force_exclude and config.is_excluded(p):
                continue
            yield p
        elif p.is_dir():
            if config.force_exclude and config.is_excluded(p) and raw not in (".", "./"):
                continue
            yield from _walk(p, config)
        else:
            yield (raw, "no such file or directory")


def _walk(root: Path, config: Config) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root):
        keep = []
        for d in sorted(dirs):
            full = Path(folder, d)
            if config.is_excluded(full) or (full / "pyvenv.cfg").is_file():
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            if name.endswith(PYTHON_SUFFIXES):
                full = Path(folder, name)
                if not config.is_excluded(full):
                    yield full


def lint_file(path: Path, config: Config, index: "ProjectIndex | None" = None) -> FileResult:
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _select(FileResult(display, [_file_error(display, f"cannot read file: {exc.strerror or exc}")]), config)
    module_name, is_package = module_name_for(path)
    return check_source(data, display, config, module_name=module_name, is_package=is_package, index=index)


def might_define_jit(text: str) -> bool:
    """Cheap text test: only files mentioning a jit wrapper can define jitted functions."""
    return "jit" in text or "pmap" in text


def build_index(files: Iterable[Path]) -> "ProjectIndex":
    """Pass 1: the jitted functions every file defines, from CPython's fast `ast` parse.

    Files that mention no jit wrapper matter only if they re-export a jitted name (`from .model import
    train_step` in `__init__.py`), so they are summarized only when they import one of those names.
    """
    from jitlint.index import ProjectIndex, summarize

    index = ProjectIndex()
    others: list[tuple[Path, str]] = []
    for path in files:
        try:
            text = decode_source(path.read_bytes())
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            continue
        if might_define_jit(text):
            _add_summary(index, summarize, path, text)
        elif "import" in text:
            others.append((path, text))
    names = {name for summary in index.modules.values() for name in summary.jitted}
    for path, text in others:
        if any(name in text for name in names):
            _add_summary(index, summarize, path, text)
    return index


def _add_summary(index, summarize, path: Path, text: str) -> None:
    module_name, is_package = module_name_for(path)
    if module_name:
        index.add(summarize(text, str(path), module_name, is_package))


def lint_paths(paths: Iterable[str], config: Config | None = None) -> RunResult:
    """Discover files, index their jitted functions, then lint each one against that index."""
    config = config or Config()
    items = list(discover(list(paths), config))
    files = [item for item in items if isinstance(item, Path)]
    index = build_index(files)
    results = []
    for item in items:
        if isinstance(item, tuple):
            raw, error = item
            results.append(_select(FileResult(raw, [_file_error(raw, error)]), config))
        else:
            results.append(lint_file(item, config, index))
    return RunResult(results)
