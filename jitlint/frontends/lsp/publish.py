"""Diagnostics: pulled (`textDocument/diagnostic`) by clients that support it, pushed otherwise (on open,
on save, and 200 ms after the last change) - never both, or editors show every finding twice."""

from __future__ import annotations

import asyncio
import traceback

from lsprotocol import types

from jitlint.frontends.lsp.convert import SOURCE

DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False,
                                             workspace_diagnostics=False)


class PublishMixin:
    """The server's pushed diagnostics (for clients that do not pull), and the refresh of all of them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._scheduled: dict[str, asyncio.Task] = {}  # uri -> its publishing, waiting or linting

    def schedule_publish(self, uri: str, delay: float = 0.0) -> None:
        if self.client_pulls_diagnostics:
            return
        previous = self._scheduled.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self._scheduled[uri] = asyncio.ensure_future(self._publish(uri, delay))

    async def _publish(self, uri: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            result = await self.lint(uri)
            if result is None or not self.is_current(uri, result):
                return  # the text or settings changed meanwhile: a newer run publishes
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=result.version, diagnostics=result.diagnostics))
        except asyncio.CancelledError:
            raise
        except Exception:
            self.log(f"publishing diagnostics for {uri} failed:\n{traceback.format_exc()}",
                     types.MessageType.Error)

    def clear(self, uri: str) -> None:
        """A closed document: its diagnostics cleared, its results and state forgotten."""
        task = self._scheduled.pop(uri, None)
        if task is not None:
            task.cancel()
        self._results.pop(uri, None)
        self._documents.pop(uri, None)
        self._handing_over.discard(uri)
        self._close_helper_if_done()
        if not self.client_pulls_diagnostics:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def refresh_all(self, skip: set[str] = frozenset()) -> None:
        """After a settings or index change: re-publish (but the documents in `skip`, whose results hold),
        or ask a pulling client to pull again."""
        if not self.client_pulls_diagnostics:
            for doc in list(self.workspace.text_documents.values()):
                if doc.uri not in skip:
                    self.schedule_publish(doc.uri)  # as the client spelled it (the keys are unquoted)
        elif self._capability("workspace.diagnostics.refresh_support"):
            # (pygls 2.1's workspace_diagnostic_refresh_async sends the wrong message)
            self.workspace_diagnostic_refresh(None)


# ------------------------------------------------------------------------------------------ handlers


async def pull_diagnostics(ls, params: types.DocumentDiagnosticParams):
    result = await ls.lint(params.text_document.uri)
    if result is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    if params.previous_result_id == result.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics, result_id=result.result_id)
