"""Notebooks (`notebookDocument/*`, for clients that sync Jupyter notebooks): the code cells are linted
together, as `jitlint check` lints the .ipynb file, and each cell document gets its own findings (then
diagnostics, code actions and hover work per cell as for a file). pygls keeps the notebook and its cell
documents."""

from __future__ import annotations

import asyncio
import json
import traceback
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from jitlint.core.config import Config
from jitlint.core.finding import Finding
from jitlint.frontends.lsp.convert import Positions, internal_error, to_diagnostic
from jitlint.frontends.lsp.documents import DEBOUNCE_SECONDS, LintResult, lint_text
from jitlint.frontends.lsp.settings import Settings, excluded_as_in_check

# Jupyter notebooks' Python cells, as VS Code and other notebook clients sync them
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithCells(
    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])], save=True)


class NotebooksMixin:
    """The server's notebooks: each linted as one .ipynb text, its findings shared out to the cells."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # notebook uri -> (key, {cell uri: LintResult}), or the lint running for it
        self._notebook_results: dict[str, tuple[tuple, dict[str, LintResult]]] = {}
        self._notebook_running: dict[str, tuple[tuple, asyncio.Future]] = {}

    async def lint_notebook(self, notebook: types.NotebookDocument, settings: Settings) -> dict[str, LintResult]:
        """The findings of every cell of a notebook, linted together as the .ipynb file is by `jitlint check`:
        {cell uri: its LintResult}, positions within the cell."""
        nb_uri = unquote(notebook.uri)
        fs_path = to_fs_path(nb_uri)
        path = fs_path if fs_path and fs_path.endswith(".ipynb") else "notebook.ipynb"
        config = self.config_for(fs_path, settings)
        cells = []  # (cell uri, its document, nbformat cell type)
        for cell in notebook.cells:
            doc = self.document(cell.document)
            if doc is None:
                continue
            python = cell.kind == types.NotebookCellKind.Code and doc.language_id in (None, "python")
            cells.append((unquote(cell.document), doc, "code" if python else "raw"))
        key = (settings.generation, notebook.version, tuple((u, d.version, d.source) for u, d, _ in cells), config,
               self.index_generation)
        cached = self._notebook_results.get(nb_uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        running = self._notebook_running.get(nb_uri)
        if running is None or running[0] != key:
            text = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                               "cells": [{"cell_type": kind, "metadata": {}, "source": doc.source}
                                         for _, doc, kind in cells]})
            exclude = excluded_as_in_check(fs_path, config)
            running = (key, asyncio.ensure_future(self._run_notebook_lint(nb_uri, text, path, config, exclude)))
            self._notebook_running[nb_uri] = running
        findings = await asyncio.shield(running[1])
        if self._notebook_running.get(nb_uri) is running:
            del self._notebook_running[nb_uri]
        results = {}
        cell_positions = {number: (uri, Positions(doc.position_codec, doc.source))
                          for number, (uri, doc, _) in enumerate(cells, 1)}

        def locate(step):  # a witness step, in its own cell
            where = cell_positions.get(step.cell or 1)
            if where is None:
                return None
            cell_uri, cell_pos = where
            return types.Location(uri=cell_uri, range=cell_pos.range_to_client(step.line, step.col, step.line, step.col))

        for number, (uri, doc, _) in enumerate(cells, 1):
            mine = [f for f in findings if (f.cell or 1) == number]
            positions = cell_positions[number][1]
            results[uri] = LintResult(settings.generation, doc.version, doc.source, config, positions, mine,
                                      [to_diagnostic(f, positions, config.docs_url, locate) for f in mine],
                                      str(next(self._result_ids)), self.index_generation)
        if self.workspace.get_notebook_document(notebook_uri=nb_uri) is not None:
            self._notebook_results[nb_uri] = (key, results)
        return results

    async def _run_notebook_lint(self, nb_uri: str, text: str, path: str, config: Config,
                                 exclude: bool) -> list[Finding]:
        self.start_preload()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.executor, lint_text, self.project, text, path, config, exclude)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a jitlint bug: say so in the editor, keep serving
            self.log(f"linting {nb_uri} failed:\n{traceback.format_exc()}", types.MessageType.Error)
            return [internal_error(path, exc)]

    def notebook_cells(self, notebook_uri: str) -> list[str]:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        return [cell.document for cell in notebook.cells] if notebook is not None else []


# ------------------------------------------------------------------------------------------ handlers
# Every cell is published again on a change of any cell (a function jitted in one cell is called in others).


async def notebook_did_open(ls, params: types.DidOpenNotebookDocumentParams):
    for uri in ls.notebook_cells(params.notebook_document.uri):
        ls.schedule_publish(uri)


async def notebook_did_change(ls, params: types.DidChangeNotebookDocumentParams):
    structure = params.change.cells.structure if params.change.cells is not None else None
    for closed in (structure.did_close or []) if structure is not None else []:
        ls.clear(closed.uri)
    for uri in ls.notebook_cells(params.notebook_document.uri):
        ls.schedule_publish(uri, DEBOUNCE_SECONDS)


async def notebook_did_save(ls, params: types.DidSaveNotebookDocumentParams):
    for uri in ls.notebook_cells(params.notebook_document.uri):
        ls.schedule_publish(uri)


async def notebook_did_close(ls, params: types.DidCloseNotebookDocumentParams):
    ls._notebook_results.pop(unquote(params.notebook_document.uri), None)
    for cell in params.cell_text_documents:
        ls.clear(cell.uri)
