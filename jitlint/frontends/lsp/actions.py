"""Code actions: the finding's fix (where `jitlint check --fix` would apply it), and "Suppress JIT501 with
# noqa"."""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from jitlint.core.finding import Applicability, Finding
from jitlint.core.fixes import fix_applies
from jitlint.core.noqa import LineComments, noqa_change
from jitlint.frontends.lsp.convert import SOURCE, Positions, finding_end, finding_start
from jitlint.frontends.lsp.documents import LintResult

CODE_ACTION_OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])


def noqa_edit(positions: Positions, comments: LineComments, line: int, code: str) -> types.TextEdit | None:
    """The edit that adds `code` to the `# noqa` comment of a 1-based line (jitlint.core.noqa.noqa_change)."""
    change = noqa_change(positions.content(line - 1), comments, line, code)
    if change is None:
        return None
    start, new = change
    return types.TextEdit(range=positions.range_to_client(line, start + 1, line, len(positions.content(line - 1)) + 1),
                          new_text=new)


def fix_still_parses(source: str, finding: Finding, notebook: bool = False) -> bool:
    """Like `jitlint check --fix`, offer a fix only if this Python compiles the text after it (a notebook
    cell's as IPython does: `await` allowed at its top level) and it keeps every comment."""
    return fix_applies(source, finding, top_level_await=notebook)


def code_actions(ls, params: types.CodeActionParams, result: LintResult) -> list:
    """A quick fix for each fixable finding in range, and a `# noqa` suppression for each finding."""
    only = params.context.only
    if only and not any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
        return []
    positions = result.positions
    start, end = positions.from_client(params.range.start), positions.from_client(params.range.end)
    # Also the findings of the diagnostics the client names (a cursor elsewhere on their line).
    named = {(str(d.code), d.range.start.line) for d in params.context.diagnostics
             if d.source in (None, SOURCE)}
    uri = params.text_document.uri
    in_notebook = ls.workspace.get_notebook_document(cell_uri=uri) is not None
    fixes, suppressions, seen = [], [], set()
    for finding, diagnostic in zip(result.findings, result.diagnostics):
        in_range = finding_start(finding) <= end and start <= finding_end(finding)
        if not in_range and (finding.code, diagnostic.range.start.line) not in named:
            continue
        if finding.fix is not None and fix_still_parses(result.source, finding, in_notebook):
            edits = [types.TextEdit(range=positions.range_to_client(e.line, e.col, e.end_line, e.end_col),
                                    new_text=e.new_text) for e in finding.fix.edits]
            # as ruff offers them: a safe fix is the preferred one, an unsafe fix says so and is not
            safe = finding.fix.applicability is Applicability.SAFE
            fixes.append(types.CodeAction(
                title=f"{finding.fix.title} ({finding.code}{'' if safe else ', unsafe'})",
                kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], is_preferred=safe,
                edit=_workspace_edit(ls, uri, result, edits)))
        if (finding.line, finding.code) in seen:
            continue
        seen.add((finding.line, finding.code))
        edit = noqa_edit(positions, result.comments, finding.line, finding.code)
        if edit is not None:
            suppressions.append(types.CodeAction(
                title=f"Suppress {finding.code} with # noqa", kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic], edit=_workspace_edit(ls, uri, result, [edit])))
    return fixes + suppressions


def _workspace_edit(ls, uri: str, result: LintResult, edits: Sequence[types.TextEdit]) -> types.WorkspaceEdit:
    """Versioned when the client supports it, so an edit never lands on text it was not made for."""
    if ls._capability("workspace.workspace_edit.document_changes"):
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=result.version),
            edits=list(edits))])
    return types.WorkspaceEdit(changes={uri: list(edits)})


# ------------------------------------------------------------------------------------------ handlers


async def code_action(ls, params: types.CodeActionParams):
    result = await ls.lint(params.text_document.uri)
    if result is None:
        return []
    return code_actions(ls, params, result)
