"""`jitlint lsp`'s server: pygls' language server, made of the package's parts, with every feature registered.

What it serves, for the text in the editor (never the file on disk):
- diagnostics, pulled or pushed (jitlint.frontends.lsp.publish), of the open documents (.documents) and
  notebooks (.notebooks), with the workspace's index for calls into other files (.index);
- code actions: the finding's fix, and "Suppress JIT501 with # noqa" (.actions);
- hover: the rule's short documentation on a flagged range (.hover).

The server's state and behaviour come in parts, one class per module, joined here into `JitlintServer`;
the parts reach one another's through the server (`self`), so no part imports another's class. The
handlers are plain functions of the feature modules, taking the server as `ls`.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from jitlint import __version__
from jitlint.frontends.lsp import actions, documents, hover, index, lifecycle, notebooks, publish, settings
from jitlint.frontends.lsp.client import ClientMixin
from jitlint.frontends.lsp.convert import SOURCE
from jitlint.frontends.lsp.documents import DocumentsMixin
from jitlint.frontends.lsp.first_lint import FirstLints
from jitlint.frontends.lsp.framing import StdioMixin
from jitlint.frontends.lsp.index import IndexMixin
from jitlint.frontends.lsp.notebooks import NOTEBOOK_SYNC, NotebooksMixin
from jitlint.frontends.lsp.preload import PreloadMixin
from jitlint.frontends.lsp.protocol import JitlintProtocol
from jitlint.frontends.lsp.publish import PublishMixin
from jitlint.frontends.lsp.settings import SettingsMixin


class JitlintServer(StdioMixin, ClientMixin, SettingsMixin, IndexMixin, DocumentsMixin, PreloadMixin,
                    NotebooksMixin, PublishMixin, LanguageServer):
    def __init__(self, first_lints: FirstLints | None = None):
        # Full sync: pygls applies incremental edits with `str.splitlines` lines, which corrupts
        # text holding \f or \u2028; a whole-text update per change is cheap next to a lint.
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full,
                         protocol_cls=JitlintProtocol, notebook_document_sync=NOTEBOOK_SYNC)
        # `jitlint lsp`'s helper process, which lints while this process's engine loads (.preload)
        self.first_lints = first_lints


def create_server(first_lints: FirstLints | None = None) -> JitlintServer:
    server = JitlintServer(first_lints)
    features = [
        (types.INITIALIZE, lifecycle.initialize),
        (types.INITIALIZED, lifecycle.initialized),
        (types.TEXT_DOCUMENT_DID_OPEN, documents.did_open),
        (types.TEXT_DOCUMENT_DID_CHANGE, documents.did_change),
        (types.TEXT_DOCUMENT_DID_SAVE, documents.did_save),
        (types.TEXT_DOCUMENT_DID_CLOSE, documents.did_close),
        (types.NOTEBOOK_DOCUMENT_DID_OPEN, notebooks.notebook_did_open),
        (types.NOTEBOOK_DOCUMENT_DID_CHANGE, notebooks.notebook_did_change),
        (types.NOTEBOOK_DOCUMENT_DID_SAVE, notebooks.notebook_did_save),
        (types.NOTEBOOK_DOCUMENT_DID_CLOSE, notebooks.notebook_did_close),
        (types.WORKSPACE_DID_CHANGE_CONFIGURATION, settings.did_change_configuration),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, index.did_change_watched_files),
        (types.TEXT_DOCUMENT_DIAGNOSTIC, publish.pull_diagnostics, publish.DIAGNOSTIC_OPTIONS),
        (types.TEXT_DOCUMENT_CODE_ACTION, actions.code_action, actions.CODE_ACTION_OPTIONS),
        (types.TEXT_DOCUMENT_HOVER, hover.hover),
        (types.SHUTDOWN, lifecycle.shutdown),
    ]
    for method, handler, *options in features:
        server.feature(method, *options)(handler)
    return server
