"""The per-file pipeline: one file's text in, its findings out. Every front end lints through it, one text
at a time (`check_source`) or through a project's runs (jitlint.project.runner), which do pass 1 on every
file first and then pass 2 on the files the pre-filter keeps.

    text -> decode (a notebook: its code cells joined)
         -> pass 1: CPython `ast` (jitlint.analysis.prefilter.file_facts: syntax check, the names it refers to)
         -> pre-filter (can any rule report here?)
         -> pass 2 (jitlint.lint.analyse): the quick tree, then libcst where the rules report on it
         -> `# noqa` suppressions -> the configured selection -> a notebook's findings at their cells

After decoding, the steps take the file as one `LintUnit` (jitlint.lint.unit). Nothing here imports or
runs the code it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitlint.analysis import prefilter  # (its functions looked up per call: tests force the pre-filter open)
from jitlint.core.config import Config
from jitlint.core.finding import Finding
from jitlint.core.noqa import Suppressions
from jitlint.lint.results import PARSE_ERROR_CODE, FileResult, error_finding, file_error
from jitlint.lint.unit import EarlierTexts, LintUnit
from jitlint.source.reading import decode_source

if TYPE_CHECKING:
    from jitlint.analysis.index import ProjectIndex


def lint_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None) -> list[Finding]:
    """Lint one file's text: the findings, sorted, after `# noqa` and config selection."""
    return check_source(source, path, config).findings


def check_source(source: str | bytes, path: str = "<stdin>", config: Config | None = None, *,
                 apply_noqa: bool = True, module_name: str | None = None, is_package: bool = False,
                 index: "ProjectIndex | None" = None, state: EarlierTexts | None = None, incoming: tuple = (),
                 exports: bool = False) -> FileResult:
    """Lint one file's text. `index` holds the jitted functions of the other files linted with it.
    `state`: a `jitlint.project.incremental.Document` remembering this file's earlier texts (the language server).
    `incoming`: the contexts other files' traced code gives its functions (jitlint.analysis.foreign);
    `exports`: work out those it gives other files' (`FileResult.exports`)."""
    config = config or Config()
    text, error = decode(source, path)
    if error is not None:
        return select(FileResult(path, [error]), config)
    hooks = state.pass_one(module_name, is_package) if state is not None else {}
    facts = prefilter.file_facts(text, path, module_name, is_package, refs=index is not None, summary=False, **hooks)
    unit = LintUnit(path, text, config, module_name, is_package, index=index, facts=facts, state=state,
                    apply_noqa=apply_noqa, incoming=tuple(incoming), exports=[] if exports else None)
    return in_cells(lint_text(unit), source, config)


# The first line of a Git LFS pointer: what a checkout holds in place of a file whose content was not fetched.
_LFS_POINTER = "version https://git-lfs.github.com/spec/"


def decode(source: str | bytes, path: str) -> tuple[str | None, Finding | None]:
    """The text the pipeline lints (a notebook's: its code cells joined), or the JIT000 why there is none.
    A Git LFS pointer stands for a file whose content is not there: nothing to lint (a repository keeping
    its notebooks in LFS, fetched without them, is no set of broken notebooks: fresh set BH)."""
    head = source[:len(_LFS_POINTER)]
    if (head.decode("latin-1") if isinstance(head, bytes) else head) == _LFS_POINTER:
        return "", None
    if path.endswith(".ipynb"):
        from jitlint.source.notebook import NotebookError, read_notebook  # ~10 ms to import: notebooks only

        try:
            return read_notebook(source.encode("utf-8", "surrogatepass") if isinstance(source, str)
                                 else source).source, None
        except NotebookError as exc:
            return None, file_error(path, f"cannot read notebook: {exc}")
    if not isinstance(source, bytes):
        return source, None
    try:
        return decode_source(source), None
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        return None, file_error(path, f"cannot decode file: {exc}")


def lint_text(unit: LintUnit) -> FileResult:
    """Pass 2 for one file whose pass 1 is done (`unit.facts`): a JIT000, nothing (pre-filtered), or the
    rules' findings."""
    facts = unit.facts
    if facts.suppressed:
        return FileResult(unit.path)
    if facts.error is not None:
        return finish(unit, [error_finding(unit.path, facts.error)])
    if not unit.incoming and not prefilter.is_relevant(facts, unit.index):
        return FileResult(unit.path)
    return lint_relevant(unit)


def lint_relevant(unit: LintUnit) -> FileResult:
    """libcst, the analysis and the rules, on a file that parses with CPython."""
    from jitlint.lint.analyse import analyse  # libcst and the rules: loaded for the first file that needs them

    return finish(unit, analyse(unit))


def finish(unit: LintUnit, findings: list[Finding]) -> FileResult:
    """`# noqa` comments (`unit.apply_noqa`), then the configured selection."""
    result = FileResult(unit.path, exports=list(unit.exports or ()))
    if unit.apply_noqa and findings:
        suppressions = Suppressions(unit.text)
        findings = [f for f in findings if not suppressions.suppresses(f.line, f.code)]
        result.warnings.extend(f"{unit.path}:{w.line}: warning: {w.message}" for w in suppressions.warnings)
    result.findings = sorted(findings)
    return select(result, unit.config)


def in_cells(result: FileResult, source: str | bytes, config: Config) -> FileResult:
    """A notebook's result (linted as its joined code cells) with its findings at their cells."""
    if not result.path.endswith(".ipynb"):
        return result
    from jitlint.source.notebook import NotebookError, read_notebook  # ~10 ms to import: notebooks only

    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    try:
        notebook = read_notebook(data)  # read (and cached) by `decode`
    except NotebookError:
        return result  # its JIT000 says why
    return select(notebook.map_result(result, PARSE_ERROR_CODE), config)


def select(result: FileResult, config: Config) -> FileResult:
    """The findings the configuration enables for the file."""
    result.findings = [f for f in result.findings if config.is_enabled(f.code, result.path)]
    return result


def import_linting() -> None:
    """What linting a file imports (libcst, the analysis, the rules: about 0.16 s of CPU): for pass 2's
    forked workers to inherit, and for the language server to load while it waits."""
    from jitlint.lint import analyse  # noqa: F401  (loading it is the point: libcst, the analysis, the rules)
    from jitlint.rules.registry import all_rules  # (already loaded by the line above; see there)

    all_rules()
