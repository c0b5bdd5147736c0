"""`--fix`: apply a file's fixes round after round, re-linting the fixed text in between, then write the
fixed file (or, with `--diff`, only say what would change). A project's run (jitlint.project.runner) fixes
on its workers and writes from its own process."""

from __future__ import annotations

from jitlint.core.finding import Finding
from jitlint.core.fixes import applies, fixed_source, unified_diff
from jitlint.core.writing import replace_content
from jitlint.lint.pipeline import lint_relevant
from jitlint.lint.results import FileResult
from jitlint.lint.unit import LintUnit
from jitlint.source.reading import decode_source, source_encoding

FIX_ROUNDS = 5  # fixes whose edits overlap wait for the next round; each round re-lints the new text


def fix_and_relint(data: bytes, unit: LintUnit, result: FileResult,
                   unsafe: bool = False) -> tuple[bytes, list[Finding], FileResult] | None:
    """Apply the fixes of `result` (the file's findings on `unit`, read from `data`) round after round
    (each fixed text is one this Python compiles, with every comment kept), re-linting in between:
    (the new file bytes, the findings fixed, the findings after them)."""
    text = unit.text
    notebook = unit.path.endswith(".ipynb")
    applied: list[Finding] = []
    before = result
    for _ in range(FIX_ROUNDS):
        new_text, done = fixed_source(text, result.findings, unsafe, top_level_await=notebook)
        if not done:
            break
        text = new_text
        applied += done
        result = lint_relevant(unit.with_text(text))
        if not any(applies(x, unsafe) for x in result.findings):
            break
    if not applied:
        return None
    if notebook:
        from jitlint.source.notebook import NotebookError, read_notebook  # ~10 ms to import: notebooks only

        try:
            return read_notebook(data).rewrite(text), applied, result
        except NotebookError as exc:
            before.fix_error = f"cannot write the fixes: {exc}"
            return None
    try:
        # decode_source dropped a BOM; "utf-8-sig" writes it back
        new_data = text.encode(source_encoding(data))
    except (UnicodeEncodeError, LookupError):
        return None
    return new_data, applied, result


def diff_fixed(path: str, data: bytes, new_data: bytes, applied: list[Finding], before: FileResult) -> FileResult:
    """`--diff`: the findings before the fixes, and what the fixes would change (`data` -> `new_data`)."""
    before.diff = unified_diff(path, decode_source(data), decode_source(new_data))
    before.fixed = applied
    before.fixes_applied = len(applied)
    return before


def write_fixed(path: str, data: bytes, after: FileResult, new_data: bytes, applied: list[Finding],
                before: FileResult) -> FileResult:
    """Write a fixed file (jitlint.core.writing: through links, never over an edit made since `data` was
    read): the findings after the fixes, or before them with the reason it could not be written."""
    try:
        replace_content(path, new_data, expected=data)
    except OSError as exc:
        before.fix_error = f"cannot write the fixes: {exc.strerror or exc}"
        return before
    after.fixes_applied = len(applied)
    after.fixed = applied
    return after
