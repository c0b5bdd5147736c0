"""`jitlint lsp` with Jupyter notebooks (`notebookDocument/*`), through a real LSP client (pytest-lsp): the
cells are linted together and each cell document gets its own diagnostics, code actions and hover.

The client profiles: VS Code (push diagnostics) and Neovim 0.11 (pulls diagnostics: a cell's are pulled
with the cell's URI), both advertising notebook sync; Neovim 0.7, which does not, is not offered it."""

from __future__ import annotations

import asyncio
import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from test_lsp import SERVER, TIMEOUT, Document, apply, pulls, recording_client, text_at
import pytest

pytestmark = pytest.mark.slow  # a `jitlint lsp` server process per test

DEFINE = (
    "%matplotlib inline\n"
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from functools import partial\n"
    "\n"
    "@partial(jax.jit, static_argnums=1)\n"
    "def scale(x, n):\n"
    "    return x * n\n"
)
CALL = "!nvidia-smi\ny = scale(jnp.ones(3), [1, 2])\n"
# (`await` at a cell's top level, as IPython allows: the fix is still offered)
PRINT = "@jax.jit\ndef show(x):\n    print(x)\n    return x\n\n\nawait asyncio.sleep(0)\n"


class Notebook:
    """A notebook open in the editor: a markdown cell, then code cells, each its own text document."""

    def __init__(self, client: LanguageClient, name: str, cells: list[tuple[types.NotebookCellKind, str]]):
        path = client.root / name
        self.client, self.uri, self.version = client, path.as_uri(), 1
        self.cells = [f"vscode-notebook-cell:{path}#cell{k}" for k in range(len(cells))]
        self.texts = {uri: text for uri, (_, text) in zip(self.cells, cells)}
        self.versions = {uri: 1 for uri in self.cells}
        client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=self.uri, notebook_type="jupyter-notebook", version=1,
                cells=[types.NotebookCell(kind=kind, document=uri) for uri, (kind, _) in zip(self.cells, cells)]),
            cell_text_documents=[types.TextDocumentItem(
                uri=uri, version=1, text=text,
                language_id="python" if kind == types.NotebookCellKind.Code else "markdown")
                for uri, (kind, text) in zip(self.cells, cells)]))

    def edit(self, k: int, text: str) -> None:
        uri = self.cells[k]
        self.texts[uri], self.versions[uri], self.version = text, self.versions[uri] + 1, self.version + 1
        self.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                    changes=[types.TextDocumentContentChangeWholeDocument(text=text)])]))))

    async def diagnostics(self, k: int, after: int = 0) -> list[types.Diagnostic]:
        """Cell k's diagnostics: pulled, or the last ones published after the first `after` publications."""
        uri = self.cells[k]
        if pulls(self.client):
            report = await asyncio.wait_for(self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))), TIMEOUT)
            return list(report.items)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while loop.time() < deadline:
            mine = [p for p in self.client.published[after:] if p.uri == uri]
            if mine and mine[-1].version == self.versions[uri]:
                await asyncio.sleep(0.3)  # a later publication (debounced) would replace it
                mine = [p for p in self.client.published[after:] if p.uri == uri]
                return list(mine[-1].diagnostics)
            await asyncio.sleep(0.02)
        raise AssertionError(f"no diagnostics for {uri}: {[(p.uri, p.version) for p in self.client.published]}")

    def flagged(self, k: int, diagnostics) -> list[tuple[int, str, str]]:
        text = self.texts[self.cells[k]]
        return [(d.range.start.line, d.code, text_at(text, d.range, self.client.position_encoding))
                for d in diagnostics]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=recording_client),
                    params=["visual_studio_code", "neovim@v0.11.0", "neovim@v0.7.0"])
async def client(lsp_client: LanguageClient, request, tmp_path):
    """The editor's recorded capabilities; VS Code's and Neovim 0.11's with notebook sync added (as a
    notebook client, e.g. VS Code 1.7x with Jupyter, advertises it), Neovim 0.7's without."""
    capabilities = client_capabilities(request.param)
    if request.param != "neovim@v0.7.0":
        capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities())
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="project")]))
    lsp_client.position_encoding = result.capabilities.position_encoding or "utf-16"
    lsp_client.root = tmp_path
    lsp_client.notebook_sync = result.capabilities.notebook_document_sync
    yield
    await lsp_client.shutdown_session()


async def test_notebook_cells_are_linted_together(client: LanguageClient):
    if client.capabilities.notebook_document is None:
        assert client.notebook_sync is None  # not offered to a client that cannot sync notebooks
        # Such a client may open the .ipynb file as JSON text: no findings at cell positions in it.
        doc = Document(client, "explore.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "source": DEFINE + CALL + PRINT}]}))
        assert await doc.diagnostics() == []
        return
    [selector] = client.notebook_sync.notebook_selector
    assert selector.notebook == "jupyter-notebook" and [c.language for c in selector.cells] == ["python"]

    md, code = types.NotebookCellKind.Markup, types.NotebookCellKind.Code
    nb = Notebook(client, "explore.ipynb", [(md, "# Notes: print(x) in prose\n"), (code, DEFINE), (code, CALL),
                                            (code, PRINT)])
    # the call in cell 3 is checked against the jitted function of cell 2; magics do not break the parse
    assert nb.flagged(2, await nb.diagnostics(2)) == [(1, "JIT304", "[1, 2]")]
    assert nb.flagged(3, await nb.diagnostics(3)) == [(2, "JIT501", "print(x)")]
    assert await nb.diagnostics(1) == []

    # Editing cell 2 (no static argument any more) changes what cell 3 shows.
    before = len(client.published)
    nb.edit(1, DEFINE.replace("@partial(jax.jit, static_argnums=1)", "@jax.jit"))
    assert await nb.diagnostics(2, after=before) == []
    assert nb.flagged(3, await nb.diagnostics(3, after=before)) == [(2, "JIT501", "print(x)")]

    # A code action in a cell edits that cell.
    [d] = await nb.diagnostics(3, after=before)
    actions = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=nb.cells[3]), range=d.range,
        context=types.CodeActionContext(diagnostics=[d]))), TIMEOUT)
    assert [a.title for a in actions] == ["Use jax.debug.print (JIT501)", "Suppress JIT501 with # noqa"]
    edit = actions[0].edit
    edits = edit.document_changes[0].edits if edit.document_changes else edit.changes[nb.cells[3]]
    if edit.document_changes:
        assert edit.document_changes[0].text_document.uri == nb.cells[3]
    fixed = apply(nb.texts[nb.cells[3]], edits, client.position_encoding)
    assert fixed == PRINT.replace("print(x)", 'jax.debug.print("{!s}", x)')
    before = len(client.published)
    nb.edit(3, fixed)
    assert await nb.diagnostics(3, after=before) == []

    # Closing the notebook clears its cells' diagnostics (push clients).
    nb.edit(2, CALL + "y.block_until_ready(\n")  # a syntax error: reported at its cell
    [error] = await nb.diagnostics(2, after=before)
    assert error.code == "JIT000" and error.range.start.line == 2
    if not pulls(client):
        before = len(client.published)
        client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=nb.uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for uri in nb.cells]))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while loop.time() < deadline and {p.uri for p in client.published[before:]} != set(nb.cells):
            await asyncio.sleep(0.02)
        assert {p.uri: list(p.diagnostics) for p in client.published[before:]} == {uri: [] for uri in nb.cells}
    else:
        assert client.published == []  # never both

