"""Open documents: their lints (one shared result per text, for diagnostics, code actions and hover), the
per-document incremental state, and the open/change/save/close notifications."""

from __future__ import annotations

import asyncio
import functools
import itertools
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from jitlint.core.config import Config
from jitlint.core.finding import Finding
from jitlint.core.noqa import LineComments
from jitlint.frontends.lsp.convert import Positions, internal_error, step_locator, to_diagnostic
from jitlint.frontends.lsp.settings import excluded_as_in_check
from jitlint.project.incremental import state_of

DEBOUNCE_SECONDS = 0.2  # diagnostics are pushed this long after the last change


@dataclass
class LintResult:
    generation: int  # of the settings it was linted with
    version: int | None
    source: str
    config: Config
    positions: Positions
    findings: list[Finding]
    diagnostics: list[types.Diagnostic]
    result_id: str
    index_generation: int = 0  # of the project index it was linted against

    @property
    def key(self) -> tuple:
        return self.generation, self.version, self.source, self.config, self.index_generation

    @functools.cached_property
    def comments(self) -> LineComments:
        return LineComments(self.source)


def lint_text(project, source: str, path: str, config: Config, exclude: bool, state=None) -> list[Finding]:
    """What `jitlint check` reports for this text (runs in the worker thread). `project`: the
    server's jitlint.project.project.Project; `state`: the document's `jitlint.project.incremental.Document`,
    so that an edit re-analyses only what it changed."""
    return project.lint_text(source, path, config=config, exclude=exclude, build=False, state=state).findings


class DocumentsMixin:
    """The server's open documents and their lints."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jitlint-lint")
        self._results: dict[str, LintResult] = {}
        self._documents: dict[str, Any] = {}  # uri -> jitlint.project.incremental.Document of an open document
        # set once a document's diagnostics are ready, and this process lints them (not the helper)
        self._lints_settled = asyncio.Event()
        self._running: dict[str, tuple[tuple, asyncio.Future]] = {}
        self._result_ids = itertools.count(1)
        self._index_update: asyncio.TimerHandle | asyncio.Future | None = None

    def document(self, uri: str):
        """The open document, or None (requests may name documents the client never opened)."""
        return self.workspace.text_documents.get(unquote(uri))

    async def lint(self, uri: str) -> LintResult | None:
        """Findings for the document's current text, shared by diagnostics, code actions and hover."""
        settings = await self.settings()
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            return (await self.lint_notebook(notebook, settings)).get(unquote(uri))
        doc = self.document(uri)
        if doc is None:
            return None
        config = self.config_for(doc.path, settings)
        if self._deferred_updates and not self._helper_serves(uri):
            self._apply_deferred_updates(keep=doc.path)  # other files' edits first: its findings may depend on them
        # A snapshot: the document may change while the worker thread lints.
        snapshot = LintResult(settings.generation, doc.version, doc.source, config,
                              Positions(doc.position_codec, doc.source), [], [], "", self.index_generation)
        cached = self._results.get(uri)
        if cached is not None and cached.key == snapshot.key:
            return cached
        running = self._running.get(uri)
        if running is None or running[0] != snapshot.key:
            running = (snapshot.key, asyncio.ensure_future(self._run_lint(uri, doc.path, snapshot)))
            self._running[uri] = running
        result = await asyncio.shield(running[1])
        if self._running.get(uri) is running:
            del self._running[uri]
        if self.document(uri) is not None:
            self._results[uri] = result
        return result

    async def _run_lint(self, uri: str, fs_path: str | None, result: LintResult) -> LintResult:
        config, path = result.config, fs_path or uri
        exclude = excluded_as_in_check(fs_path, config)
        try:
            if path.endswith(".ipynb"):
                # a notebook opened as a JSON text (a client without notebook sync): findings count lines
                # within cells, which have no place in that text
                findings = []
            else:
                findings = await self._helper_lint(uri, result.source, path, config, exclude, result.generation)
                if findings is None:
                    findings = await self._lint_in_process(uri, result.source, path, config, exclude,
                                                           result.generation)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a jitlint bug: say so in the editor, keep serving
            self.log(f"linting {uri} failed:\n{traceback.format_exc()}", types.MessageType.Error)
            findings = [internal_error(path, exc)]
        result.findings = findings
        locate = step_locator(uri, result.positions, path)
        result.diagnostics = [to_diagnostic(f, result.positions, config.docs_url, locate) for f in findings]
        result.result_id = str(next(self._result_ids))
        if not self._handing_over:
            self._lints_settled.set()
        if not self._helper_serves(uri):
            self.update_index_when_idle()
        self._preload_when_idle()
        return result

    async def _lint_in_process(self, uri: str, source: str, path: str, config: Config, exclude: bool,
                               generation: int) -> list[Finding]:
        state = state_of(self._documents, uri, (generation, config, path))
        return await asyncio.get_running_loop().run_in_executor(
            self.executor, lint_text, self.project, source, path, config, exclude, state)

    def is_current(self, uri: str, result: LintResult) -> bool:
        """Linted with the current settings, from the document's current text?"""
        doc = self.document(uri)
        return (doc is not None and result.generation == self._generation
                and (result.version, result.source) == (doc.version, doc.source))


# ------------------------------------------------------------------------------------------ handlers


async def did_open(ls, params: types.DidOpenTextDocumentParams):
    ls.document_changed(params.text_document.uri)
    ls.schedule_publish(params.text_document.uri)


async def did_change(ls, params: types.DidChangeTextDocumentParams):
    ls.document_changed(params.text_document.uri)
    ls.schedule_publish(params.text_document.uri, DEBOUNCE_SECONDS)


async def did_save(ls, params: types.DidSaveTextDocumentParams):
    ls.schedule_publish(params.text_document.uri)  # same text: re-linted only if its settings changed


async def did_close(ls, params: types.DidCloseTextDocumentParams):
    ls.document_changed(params.text_document.uri)
    ls.clear(params.text_document.uri)
