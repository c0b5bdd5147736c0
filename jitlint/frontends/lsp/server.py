"""`jitlint lsp`: a language server (stdio) over the one engine, built on pygls 2.x and lsprotocol.

What it serves, for the text in the editor (never the file on disk):
- diagnostics: pulled (`textDocument/diagnostic`) by clients that support it, pushed otherwise (on open,
  on save, and 200 ms after the last change) - never both, or editors show every finding twice;
- code actions: the finding's fix, and "Suppress JIT501 with # noqa";
- hover: the rule's short documentation on a flagged range;
- notebooks (`notebookDocument/*`, for clients that sync Jupyter notebooks): the code cells are linted
  together, as `jitlint check` lints the .ipynb file, and each cell document gets its own findings
  (then diagnostics, code actions and hover work per cell as for a file).

Settings: `[tool.jitlint]` of the nearest pyproject.toml, overridden by the client's "jitlint" settings
(`workspace/configuration`, or `initializationOptions` / `workspace/didChangeConfiguration` for clients
that cannot be asked). Every handler awaits one shared settings task, so the first diagnostics already
use them.

Positions: the engine counts columns in code points; clients count in the negotiated encoding (utf-8 in
Neovim 0.11, utf-16 in most others). Every position goes through pygls' position codec.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import itertools
import json
import logging
import re
import sys
import textwrap
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import unquote

try:
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
    from pygls.lsp.server import LanguageServer
    from pygls.protocol import LanguageServerProtocol
    from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

    PYGLS_MISSING: ImportError | None = None
except ImportError as exc:  # pragma: no cover - the `lsp` extra is not installed: main() says so
    PYGLS_MISSING = exc
    LanguageServer = LanguageServerProtocol = object  # type: ignore[misc,assignment]

from jitlint import __version__

from jitlint.lint import engine
from jitlint.core.config import Config, ConfigError, check_selectors, config_from_table, find_pyproject, find_root, load_config
from jitlint.core.finding import LINE_BREAK, Applicability, Finding, Severity
from jitlint.frontends.lsp.first_lint import FirstLints
from jitlint.core.noqa import LineComments, noqa_change
from jitlint.project.project import Project
from jitlint.catalog.links import rule_docs_url

logger = logging.getLogger("jitlint.frontends.lsp.server")

SOURCE = "jitlint"
SETTINGS_SECTION = "jitlint"
DEBOUNCE_SECONDS = 0.2
SETTINGS_TIMEOUT_SECONDS = 5.0
INDEX_DELAY_SECONDS = 1.0  # the workspace index waits this long for the first diagnostics at most
HELPER_TIMEOUT_SECONDS = 20.0  # a first lint the helper process (jitlint.frontends.lsp.first_lint) has not answered by then
# While the helper lints, the engine loads here once the editor has been quiet this long: loading it (and
# building the documents' state) keeps this process busy, which would slow the edits typed meanwhile.
HELPER_IDLE_SECONDS = 0.3
if PYGLS_MISSING is None:
    # Jupyter notebooks' Python cells, as VS Code and other notebook clients sync them
    NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithCells(
        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])], save=True)


# ------------------------------------------------------------------------------------------ positions


def lsp_lines(source: str) -> list[str]:
    """The lines as LSP (and Python) count them: broken at \\n, \\r\\n and \\r only. (`str.splitlines`,
    which pygls' `TextDocument.lines` uses, also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029,
    which would shift every line number after such a character.)"""
    lines, start = [], 0
    for m in LINE_BREAK.finditer(source):
        lines.append(source[start:m.end()])
        start = m.end()
    lines.append(source[start:])  # the (possibly empty) last line, so the end of the text has a line
    return lines


class Positions:
    """Converts between the engine's 1-based code-point positions and the client's units."""

    def __init__(self, codec: "PositionCodec", source: str):
        self.codec = codec
        self.lines = lsp_lines(source)

    def content(self, line0: int) -> str:
        return self.lines[line0].rstrip("\r\n")

    def to_client(self, line: int, col: int) -> "types.Position":
        line0 = min(max(line - 1, 0), len(self.lines) - 1)
        col0 = min(max(col - 1, 0), len(self.content(line0)))
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(line0, col0))

    def range_to_client(self, line: int, col: int, end_line: int, end_col: int) -> "types.Range":
        return types.Range(start=self.to_client(line, col), end=self.to_client(end_line, end_col))

    def from_client(self, position: "types.Position") -> tuple[int, int]:
        """0-based (line, code-point column), clamped to the text."""
        if position.line >= len(self.lines):
            return len(self.lines) - 1, len(self.content(len(self.lines) - 1))
        line0 = position.line
        # a copy: pygls' codec overwrites `character` of positions past the end of the line
        pos = self.codec.position_from_client_units(self.lines, types.Position(line0, position.character))
        return line0, min(pos.character, len(self.content(line0)))


def _start(f: Finding) -> tuple[int, int]:
    return f.line - 1, f.col - 1


def _end(f: Finding) -> tuple[int, int]:
    return f.end_line - 1, f.end_col - 1


# ------------------------------------------------------------------------------------------ findings

def lsp_severity(severity: Severity) -> "types.DiagnosticSeverity":
    return {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
            Severity.INFO: types.DiagnosticSeverity.Information}[severity]


def to_diagnostic(finding: Finding, positions: Positions, docs_url: str | None = None) -> "types.Diagnostic":
    href = rule_docs_url(finding.code, docs_url)
    return types.Diagnostic(
        range=positions.range_to_client(finding.line, finding.col, finding.end_line, finding.end_col),
        severity=lsp_severity(finding.severity),
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        message=finding.message,
    )


def _internal_error(path: str, exc: BaseException) -> Finding:
    return Finding(path, 1, 1, 1, 1, engine.PARSE_ERROR_CODE,
                   f"internal error in jitlint's language server ({type(exc).__name__}: {exc}); please report it",
                   Severity.ERROR)


def lint_text(project: Project, source: str, path: str, config: Config, exclude: bool,
              state=None) -> list[Finding]:
    """What `jitlint check` reports for this text (runs in the worker thread). `state`: the document's
    `jitlint.project.incremental.Document`, so that an edit re-analyses only what it changed."""
    return project.lint_text(source, path, config=config, exclude=exclude, build=False, state=state).findings


def hover_markdown(finding: Finding, docs_url: str | None = None) -> str:
    from jitlint.rules.registry import rule_by_code

    parts = [f"**{finding.code}** {finding.message}"]
    rule = rule_by_code(finding.code)
    if rule is not None:
        parts += [f"**{rule.code} `{rule.name}`**: {rule.summary}",
                  f"**What it does.** {_prose(rule.what)}",
                  f"**Why is this bad?** {_prose(rule.why)}"]
    href = rule_docs_url(finding.code, docs_url)
    if href:
        parts.append(f"[{finding.code} documentation]({href})")
    return "\n\n".join(parts)


def _prose(text: str) -> str:
    return textwrap.dedent(text).strip()


def noqa_edit(positions: Positions, comments: LineComments, line: int, code: str) -> "types.TextEdit | None":
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
    from jitlint.core.fixes import fix_applies

    return fix_applies(source, finding, top_level_await=notebook)


# ------------------------------------------------------------------------------------------ settings


def _setting_key(key: str) -> str:
    """`extendSelect` (VS Code style), `extend_select` and `extend-select` all name `extend-select`."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", key).replace("_", "-").lower()


def settings_table(value: Any) -> dict:
    """The "jitlint" table of a settings object: `{"jitlint": {...}}` or the table itself."""
    if isinstance(value, dict) and isinstance(value.get(SETTINGS_SECTION), dict):
        value = value[SETTINGS_SECTION]
    return value if isinstance(value, dict) else {}


def with_client_settings(base: Config, settings: dict) -> Config:
    """`base` (from pyproject.toml) overridden by client settings, like command-line flags override it:
    `select`, `ignore`, `per-file-ignores` and `exclude` replace, the `extend-*` keys add."""
    table = {_setting_key(k): v for k, v in settings.items()}
    if not table:
        return base
    client = config_from_table(table, base.root, 'client settings "jitlint"')  # validates keys and types
    changes: dict[str, Any] = {}
    if "select" in table:
        changes["select"] = client.select
    if "extend-select" in table:
        changes["extend_select"] = (*base.extend_select, *client.extend_select)
    if "ignore" in table:
        changes["ignore"] = client.ignore
    elif "extend-ignore" in table:
        changes["ignore"] = (*base.ignore, *client.ignore)
    if "per-file-ignores" in table:
        changes["per_file_ignores"] = client.per_file_ignores
    if "exclude" in table:
        changes["exclude"] = client.exclude
    if "extend-exclude" in table:
        changes["extend_exclude"] = (*base.extend_exclude, *client.extend_exclude)
    return base.with_overrides(**changes)


@dataclass(frozen=True)
class Settings:
    generation: int  # bumped on every settings change: results of older generations are stale
    table: dict


# ------------------------------------------------------------------------------------------ the server


class WorkDoneProgress:
    """Server-initiated `$/progress` for a long task (the workspace index), for clients that support
    `window.workDoneProgress`; its `start/advance/done` are the engine's progress calls, made from the
    worker thread and sent from the event loop."""

    def __init__(self, server: "JitlintServer", token: str) -> None:
        self.server, self.token = server, token
        self.loop = asyncio.get_running_loop()
        self.total = self.count = 0
        self.sent = -1

    @classmethod
    async def create(cls, server: "JitlintServer", title: str) -> "WorkDoneProgress | None":
        if not server._capability("window.work_done_progress"):
            return None
        token = f"jitlint-{next(_progress_tokens)}"
        try:
            await asyncio.wait_for(server.work_done_progress.create_async(token), SETTINGS_TIMEOUT_SECONDS)
        except Exception as exc:  # the client refused or never answered: no progress shown
            logger.info("window/workDoneProgress/create failed: %s", exc)
            return None
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, percentage=0))
        return cls(server, token)

    def _report(self, message: str, percentage: int) -> None:
        self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(
            message=message, percentage=percentage))

    def start(self, label: str, total: int) -> None:
        self.total, self.count = total, 0

    def advance(self, n: int) -> None:
        self.count += n
        percentage = min(100, self.count * 100 // max(self.total, 1))
        if percentage >= self.sent + 5:  # at most about 20 reports
            self.sent = percentage
            self.loop.call_soon_threadsafe(self._report, f"{self.count}/{self.total} files", percentage)

    def done(self) -> None:
        pass

    def end(self) -> None:
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(
            message=f"{self.count} files indexed" if self.total else "up to date"))


_progress_tokens = itertools.count(1)


@dataclass
class LintResult:
    generation: int  # of the settings it was linted with
    version: int | None
    source: str
    config: Config
    positions: Positions
    findings: list[Finding]
    diagnostics: list["types.Diagnostic"]
    result_id: str
    index_generation: int = 0  # of the project index it was linted against

    @property
    def key(self) -> tuple:
        return self.generation, self.version, self.source, self.config, self.index_generation

    @functools.cached_property
    def comments(self) -> LineComments:
        return LineComments(self.source)


_ANSWERED = object()  # a request already answered with an error while it was being read


class JitlintProtocol(LanguageServerProtocol):
    """pygls, plus: a request whose params do not match the protocol is answered with an error.
    (pygls raises while reading it and only logs, so the client would wait forever.) And the futures
    of notifications are dropped once done (see `_execute_handler`)."""

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        # pygls 2.1.1 files the future of every notification (and of every step of its own generator
        # handlers, e.g. didChange) under a fresh uuid in `_request_futures` and never removes it: about
        # 3 KB per edit, forever (openlawlibrary/pygls#608, #611). Requests are removed by pygls when
        # answered; this removes any future once it is done, if it is still the one filed under its id.
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            def forget(done, key=msg_id, futures=self._request_futures):
                if futures.get(key) is done:
                    futures.pop(key, None)

            future.add_done_callback(forget)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not (isinstance(data, dict) and "method" in data and "id" in data):
                raise
            detail = _validation_detail(exc.__cause__)
            error = types.ResponseError(code=exc.code, message=f"{exc.message} for {data['method']}: {detail}")
            self._send_response(data["id"], error=error)
            return _ANSWERED

    def handle_message(self, message):
        if message is _ANSWERED:
            return
        super().handle_message(message)


_CONTENT_LENGTH = re.compile(rb"Content-Length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n", re.IGNORECASE)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
_MAX_GARBAGE = 1 << 20


class MessageReader:
    """JSON-RPC's framing, read so that one malformed message costs only itself.

    pygls 2.1.1 reads `Content-Length: N\\r\\n` exactly and then N bytes: after a header block without it,
    a length smaller or larger than the body, or LF-only line ends, every later message is read out of
    step and the server never answers again. Here a header is found wherever it starts (LF or CRLF line
    ends, any case); a header block that ends without a length is an error; a body that is not JSON is
    an error and the search for the next header starts again at the body's first byte (a length that
    was too large swallowed the next header: it is found inside); a body still incomplete while a next
    header already follows it is an error too (no waiting for bytes the client never sends). Raw line
    breaks cannot occur inside a JSON body's strings, so `<newline>Content-Length: N<newline>` in a body means
    the body is wrong.
    """

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> tuple[str, Any] | None:
        """("body", (bytes, body_start, end)), ("error", reason), or None: more data needed.
        After "body", the caller calls `consume(end)`, or `consume(body_start)` to resynchronise."""
        buf = self.buffer
        while True:
            m = _CONTENT_LENGTH.search(buf)
            blank = _BLANK_LINE.search(buf, 0, m.start() if m else len(buf))
            if blank is not None and buf[:blank.start()].strip():
                del buf[:blank.end()]
                return "error", "a message header without Content-Length"
            if m is None:
                if len(buf) > _MAX_GARBAGE:
                    del buf[:]
                    return "error", "data outside of a message"
                return None
            pos = m.end()
            while True:  # the other header lines, up to the empty line
                end = buf.find(b"\n", pos)
                if end < 0:
                    return None
                if not buf[pos:end + 1].strip():
                    body_start = end + 1
                    break
                pos = end + 1
            length = int(m.group(1))
            if len(buf) - body_start < length:
                if _CONTENT_LENGTH.search(buf, body_start):
                    del buf[:body_start]
                    return "error", f"Content-Length {length} is larger than the message"
                return None
            return "body", (bytes(buf[body_start:body_start + length]), body_start, body_start + length)

    def consume(self, upto: int) -> None:
        del self.buffer[:upto]


class JitlintServer(LanguageServer):
    def __init__(self, first_lints: "FirstLints | None" = None):
        # Full sync: pygls applies incremental edits with `str.splitlines` lines, which corrupts
        # text holding \f or \u2028; a whole-text update per change is cheap next to a lint.
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full,
                         protocol_cls=JitlintProtocol, notebook_document_sync=NOTEBOOK_SYNC)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jitlint-lint")
        self._pushed_settings: dict = {}
        self._settings_task: asyncio.Future | None = None
        self._generation = 0
        self._results: dict[str, LintResult] = {}
        self._documents: dict[str, Any] = {}  # uri -> jitlint.project.incremental.Document of an open document
        # set once a document's diagnostics are ready, and this process lints them (not the helper)
        self._lints_settled = asyncio.Event()
        self._running: dict[str, tuple[tuple, asyncio.Future]] = {}
        # a notebook's cells are linted together: notebook uri -> (key, {cell uri: LintResult}) or a running lint
        self._notebook_results: dict[str, tuple[tuple, dict[str, LintResult]]] = {}
        self._notebook_running: dict[str, tuple[tuple, asyncio.Future]] = {}
        self._scheduled: dict[str, asyncio.Task] = {}
        self._result_ids = itertools.count(1)
        self._shown: set[str] = set()
        # The workspace's project (jitlint.project.project): its index holds the jitted functions of every file,
        # so calls into other files are checked as `jitlint check` checks them; open buffers replace
        # their file's entry as they change. Replaced once the workspace folders are known.
        self.project = Project(None, cache=False)
        self.index_generation = 0
        # The engine loads in a thread; until it has, a helper process that loaded it while pygls did
        # (jitlint.frontends.lsp.first_lint) lints, so the first diagnostics need not wait for the import.
        self.first_lints = first_lints
        self._engine_loaded = threading.Event()
        self._preload_started = False
        self._idle_timer: asyncio.TimerHandle | None = None
        self._handing_over: set[str] = set()  # documents the helper lints until their state is built here
        self._deferred_updates: dict[str, str | None] = {}  # path -> text, for the index (see document_changed)
        self.helper_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jitlint-helper")

    # ---- the message loop (pygls' start_io, with jitlint's reader)
    def start_io(self, stdin=None, stdout=None):
        from pygls.io_ import StdoutWriter

        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._read_loop(stdin or sys.stdin.buffer))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _read_loop(self, stdin) -> None:
        loop = asyncio.get_running_loop()
        read = getattr(stdin, "read1", None) or functools.partial(stdin.read, 1)
        reader = MessageReader()
        while not self._stop_event.is_set():
            item = reader.next()
            if item is None:
                data = await loop.run_in_executor(self.thread_pool, read, 65536)
                if not data:
                    break
                reader.feed(data)
                continue
            kind, value = item
            if kind == "error":
                self._framing_error(value)
                continue
            body, body_start, end = value
            try:
                message = json.loads(body, object_hook=self.protocol.structure_message)
            except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
                reader.consume(body_start)  # resynchronise from the body's first byte
                self._framing_error(f"the message body is not JSON ({exc})")
                continue
            except Exception as exc:
                reader.consume(end)
                self.report_server_error(exc, JsonRpcException)
                continue
            reader.consume(end)
            try:
                self.protocol.handle_message(message)
            except Exception as exc:
                logger.exception("Unable to handle message")
                self.report_server_error(exc, JsonRpcException)

    def _framing_error(self, reason: str) -> None:
        logger.error("malformed JSON-RPC message: %s", reason)
        error = {"code": JsonRpcParseError.CODE, "message": f"{JsonRpcParseError.MESSAGE}: {reason}"}
        self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error})

    # ---- client capabilities
    def _capability(self, dotted: str) -> Any:
        value: Any = self.client_capabilities
        for name in dotted.split("."):
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    @property
    def client_pulls_diagnostics(self) -> bool:
        return self._capability("text_document.diagnostic") is not None

    @property
    def client_answers_configuration(self) -> bool:
        return bool(self._capability("workspace.configuration"))

    # ---- settings: one shared task that every handler awaits
    def reload_settings(self) -> None:
        self._generation += 1
        self._settings_task = asyncio.ensure_future(self._fetch_settings(self._generation))

    async def settings(self) -> Settings:
        if self._settings_task is None:
            self.reload_settings()
        return await asyncio.shield(self._settings_task)

    async def _fetch_settings(self, generation: int) -> Settings:
        table = self._pushed_settings
        if self.client_answers_configuration:
            item = types.ConfigurationItem(section=SETTINGS_SECTION, scope_uri=self.workspace.root_uri)
            try:
                values = await asyncio.wait_for(
                    self.workspace_configuration_async(types.ConfigurationParams(items=[item])),
                    SETTINGS_TIMEOUT_SECONDS)
                table = settings_table(values[0] if values else None)
            except Exception as exc:  # a client that fails or never answers: keep what we have
                self.log(f"workspace/configuration failed ({type(exc).__name__}: {exc}); using defaults",
                         types.MessageType.Warning)
        return Settings(generation, table)

    def config_for(self, path: str | None, settings: Settings) -> Config:
        """[tool.jitlint] of the nearest pyproject.toml, then the client's settings."""
        root = self.folder_for(path)
        start = Path(path).parent if path else root
        try:
            base = load_config(find_pyproject(start)) if start else Config()
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}; using the default settings")
            base = Config()
        if base.root is None and root is not None:
            base = base.with_overrides(root=root)  # excludes match paths relative to the workspace
        try:
            config = with_client_settings(base, settings.table)
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}; ignoring the client settings")
            return base
        try:
            check_selectors(config)  # the codes `jitlint check` accepts: rules, JIT9xx and JIT000
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}")
        return config

    def folder_for(self, path: str | None) -> Path | None:
        """The workspace folder holding `path` (the innermost), else the workspace root."""
        from pygls.uris import to_fs_path

        candidates = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if path:
            inside = [Path(c) for c in candidates if c and Path(path).is_relative_to(c)]
            if inside:
                return max(inside, key=lambda p: len(p.parts))
        root = self.workspace.root_path
        return Path(root) if root else None

    # ---- messages to the user
    def log(self, message: str, kind: "types.MessageType | None" = None) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind or types.MessageType.Log, message=message))

    def show_once(self, message: str) -> None:
        if message in self._shown:
            return
        self._shown.add(message)
        self.log(message, types.MessageType.Warning)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def report_server_error(self, error: Exception, source) -> None:
        # Errors while reading a message: answer as JSON-RPC says (id null), then let pygls report.
        if source is JsonRpcException and not isinstance(error, JsonRpcException):
            kind = JsonRpcParseError if isinstance(error, json.JSONDecodeError) else JsonRpcInvalidRequest
            error_object = {"code": kind.CODE, "message": f"{kind.MESSAGE}: {error}"}
            self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error_object})  # id must be null
        super().report_server_error(error, source)

    # ---- documents
    def document(self, uri: str):
        """The open document, or None (requests may name documents the client never opened)."""
        return self.workspace.text_documents.get(unquote(uri))

    def document_changed(self, uri: str) -> None:
        """The one place where the server learns that a file's text changed (opened, edited or closed):
        its entry in the project index is replaced (from the buffer, or from disk once closed), and if the
        jitted functions it defines changed, every open file is linted again."""
        self._results.pop(uri, None)
        doc = self.document(uri)
        from pygls.uris import to_fs_path

        path = doc.path if doc is not None else to_fs_path(unquote(uri))
        if not path or not path.endswith(".py"):
            return
        text = doc.source if doc is not None else None
        if self._helper_serves(uri):
            # The helper applies it to its copy of the index before it lints (it parses the text once, for
            # both); this process does when it takes over, and then re-lints if the index changed.
            self._deferred_updates[path] = text
            return
        self._apply_deferred_updates()
        if self.project.update(path, text):
            self.index_changed()  # other files' findings depend on this one's jitted functions or re-exports

    def _apply_deferred_updates(self) -> None:
        updates, self._deferred_updates = self._deferred_updates, {}
        changed = False
        for path, text in updates.items():
            changed |= self.project.update(path, text)
        if changed:
            self.index_changed()

    def index_changed(self) -> None:
        self.index_generation += 1
        self._results.clear()
        self.refresh_all()

    async def build_index(self) -> None:
        """Index the workspace's files once, in the background; lints meanwhile see the open buffers."""
        from pygls.uris import to_fs_path

        settings = await self.settings()
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()] or [self.workspace.root_path]
        folders = [f for f in folders if f]
        if not folders:
            return
        config = self.config_for(folders[0], settings)
        root = find_root(Path(folders[0])) or Path(folders[0])
        project = Project(root, config)
        try:  # the open files' first diagnostics first: the index would compete with them for the CPU
            await asyncio.wait_for(self._lints_settled.wait(), INDEX_DELAY_SECONDS)
        except asyncio.TimeoutError:
            pass
        self.start_preload()  # (if no document was linted yet)
        progress = await WorkDoneProgress.create(self, "jitlint: indexing the workspace")
        try:
            await asyncio.get_running_loop().run_in_executor(None, project.build, progress)
        except Exception as exc:  # the index only adds cross-file findings: keep serving without it
            self.log(f"could not index the workspace: {exc}", types.MessageType.Warning)
            return
        finally:
            if progress is not None:
                progress.end()
        self._apply_deferred_updates()
        project.take_updates(self.project)  # open buffers win over the files on disk
        self.project = project
        self.index_changed()

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
        exclude = _excluded_as_in_check(fs_path, config)
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
            findings = [_internal_error(path, exc)]
        result.findings = findings
        result.diagnostics = [to_diagnostic(f, result.positions, config.docs_url) for f in findings]
        result.result_id = str(next(self._result_ids))
        if not self._handing_over:
            self._lints_settled.set()
        self._preload_when_idle()
        return result

    async def _lint_in_process(self, uri: str, source: str, path: str, config: Config, exclude: bool,
                               generation: int) -> list[Finding]:
        from jitlint.project.incremental import state_of

        state = state_of(self._documents, uri, (generation, config, path))
        return await asyncio.get_running_loop().run_in_executor(
            self.executor, lint_text, self.project, source, path, config, exclude, state)

    # ---- the first lints, while the engine loads
    def _helper_serves(self, uri: str) -> bool:
        """Does the helper lint this document now (else this process does)?"""
        helper = self.first_lints
        if helper is None or not helper.usable or self.project.built:
            return False  # (once the index is built, lints need it: it is not sent to the helper)
        return not self._engine_loaded.is_set() or uri in self._handing_over

    async def _helper_lint(self, uri: str, source: str, path: str, config: Config, exclude: bool,
                           generation: int) -> list[Finding] | None:
        """The helper's findings while this process's engine loads and then builds this document's
        incremental state (the helper keeps its own meanwhile, so edits stay incremental); else None:
        lint in-process."""
        helper = self.first_lints
        if not self._helper_serves(uri):
            self._apply_deferred_updates()
            return None
        try:
            findings = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(
                self.helper_executor, helper.lint, self.project, source, path, config, exclude, (uri, generation),
                dict(self._deferred_updates)), HELPER_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            helper.stop(failed=True)
            findings = None
        if findings is None:  # (the helper is stopped, or was closed)
            self._handing_over.clear()
            self._apply_deferred_updates()
            if helper.failed:
                self.log("the first-lint helper failed; linting in the server", types.MessageType.Warning)
            return None
        if not self._engine_loaded.is_set():
            self._handing_over.add(uri)  # (`_engine_ready` takes it over)
        logger.info("linted %s in the first-lint helper while the engine loads", uri)
        return findings

    def _preload_when_idle(self) -> None:
        if self._preload_started:
            return
        if self.first_lints is None or not self.first_lints.usable:
            self.start_preload()
            return
        if self._idle_timer is not None:
            self._idle_timer.cancel()  # (another lint: the editor is not quiet yet)
        self._idle_timer = asyncio.get_running_loop().call_later(HELPER_IDLE_SECONDS, self.start_preload)

    def start_preload(self) -> None:
        """Load the engine in a thread (if the helper lints, once the editor is quiet)."""
        if self._preload_started:
            return
        self._preload_started = True
        loop = asyncio.get_running_loop() if self.first_lints is not None else None

        def preload() -> None:
            _preload()
            self._engine_loaded.set()
            if loop is not None:
                loop.call_soon_threadsafe(self._engine_ready)

        threading.Thread(target=preload, name="jitlint-preload", daemon=True).start()

    def _engine_ready(self) -> None:
        """The engine has loaded: build the incremental state of the documents the helper lints, then
        lint them here (and stop the helper once no document is left to it)."""
        for uri in list(self._handing_over):
            asyncio.ensure_future(self._take_over(uri))
        self._close_helper_if_done()

    def _close_helper_if_done(self) -> None:
        if self.first_lints is not None and not self._handing_over and self._engine_loaded.is_set():
            self.helper_executor.submit(self.first_lints.close)  # after a lint it may be doing
            self._lints_settled.set()

    async def _take_over(self, uri: str) -> None:
        """Lint the document's current text here, building its state; its edits meanwhile still go to
        the helper, and from then on, here."""
        try:
            doc, cached = self.document(uri), self._results.get(uri)
            if doc is None:
                return
            settings = await self.settings()
            config = self.config_for(doc.path, settings)
            path = doc.path or uri
            exclude = _excluded_as_in_check(doc.path, config)
            source = doc.source
            self._apply_deferred_updates()
            findings = await self._lint_in_process(uri, source, path, config, exclude, settings.generation)
            if cached is not None and cached.source == source and cached.findings != findings:
                # cannot happen (one engine, the same inputs), but if it did, this process's result wins
                self.log(f"the first-lint helper and the server disagree on {uri}", types.MessageType.Warning)
                self._results.pop(uri, None)
                self.refresh_all()
        except asyncio.CancelledError:
            raise
        except Exception:  # the next lint does the same here, and reports what fails
            pass
        finally:
            self._handing_over.discard(uri)
            self._close_helper_if_done()

    async def lint_notebook(self, notebook: "types.NotebookDocument", settings: Settings) -> dict[str, LintResult]:
        """The findings of every cell of a notebook, linted together as the .ipynb file is by `jitlint check`:
        {cell uri: its LintResult}, positions within the cell."""
        from pygls.uris import to_fs_path

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
            exclude = _excluded_as_in_check(fs_path, config)
            running = (key, asyncio.ensure_future(self._run_notebook_lint(nb_uri, text, path, config, exclude)))
            self._notebook_running[nb_uri] = running
        findings = await asyncio.shield(running[1])
        if self._notebook_running.get(nb_uri) is running:
            del self._notebook_running[nb_uri]
        results = {}
        for number, (uri, doc, _) in enumerate(cells, 1):
            mine = [f for f in findings if (f.cell or 1) == number]
            positions = Positions(doc.position_codec, doc.source)
            results[uri] = LintResult(settings.generation, doc.version, doc.source, config, positions, mine,
                                      [to_diagnostic(f, positions, config.docs_url) for f in mine],
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
            return [_internal_error(path, exc)]

    def notebook_cells(self, notebook_uri: str) -> list[str]:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        return [cell.document for cell in notebook.cells] if notebook is not None else []

    def is_current(self, uri: str, result: LintResult) -> bool:
        """Linted with the current settings, from the document's current text?"""
        doc = self.document(uri)
        return (doc is not None and result.generation == self._generation
                and (result.version, result.source) == (doc.version, doc.source))

    # ---- push diagnostics (for clients that do not pull)
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
        task = self._scheduled.pop(uri, None)
        if task is not None:
            task.cancel()
        self._results.pop(uri, None)
        self._documents.pop(uri, None)
        self._handing_over.discard(uri)
        self._close_helper_if_done()
        if not self.client_pulls_diagnostics:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def refresh_all(self) -> None:
        """After a settings change: re-publish, or ask a pulling client to pull again."""
        if not self.client_pulls_diagnostics:
            for doc in list(self.workspace.text_documents.values()):
                self.schedule_publish(doc.uri)  # as the client spelled it (the keys are unquoted)
        elif self._capability("workspace.diagnostics.refresh_support"):
            # (pygls 2.1's workspace_diagnostic_refresh_async sends the wrong message)
            self.workspace_diagnostic_refresh(None)


def _validation_detail(exc: BaseException | None) -> str:
    if exc is None:
        return "malformed message"
    try:
        from cattrs import transform_error

        return "; ".join(transform_error(exc, path="params")) or str(exc)
    except Exception:
        return str(exc)


# ------------------------------------------------------------------------------------------ handlers


def create_server(first_lints: "FirstLints | None" = None) -> "JitlintServer":
    server = JitlintServer(first_lints)

    @server.feature(types.INITIALIZE)
    def initialize(ls: JitlintServer, params: types.InitializeParams):
        ls._pushed_settings = settings_table(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: JitlintServer, params: types.InitializedParams):
        if ls._settings_task is None:
            ls.reload_settings()
        ls._index_task = asyncio.ensure_future(ls.build_index())
        if ls._capability("workspace.did_change_watched_files.dynamic_registration"):
            watch = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                          # files changed on disk (a git checkout, another editor): the project index follows
                          types.FileSystemWatcher(glob_pattern="**/*.py")])
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="jitlint-pyproject", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=watch)]))
            except Exception as exc:  # then pyproject.toml changes show at the next edit
                ls.log(f"could not watch pyproject.toml files: {exc}", types.MessageType.Warning)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: JitlintServer, params: types.DidOpenTextDocumentParams):
        ls.document_changed(params.text_document.uri)
        ls.schedule_publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: JitlintServer, params: types.DidChangeTextDocumentParams):
        ls.document_changed(params.text_document.uri)
        ls.schedule_publish(params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: JitlintServer, params: types.DidSaveTextDocumentParams):
        ls.schedule_publish(params.text_document.uri)  # same text: re-linted only if its settings changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: JitlintServer, params: types.DidCloseTextDocumentParams):
        ls.document_changed(params.text_document.uri)
        ls.clear(params.text_document.uri)

    # Notebooks: pygls keeps the notebook and its cell documents; every cell is published again on a
    # change of any cell (a function jitted in one cell is called in others).
    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    async def notebook_did_open(ls: JitlintServer, params: types.DidOpenNotebookDocumentParams):
        for uri in ls.notebook_cells(params.notebook_document.uri):
            ls.schedule_publish(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    async def notebook_did_change(ls: JitlintServer, params: types.DidChangeNotebookDocumentParams):
        structure = params.change.cells.structure if params.change.cells is not None else None
        for closed in (structure.did_close or []) if structure is not None else []:
            ls.clear(closed.uri)
        for uri in ls.notebook_cells(params.notebook_document.uri):
            ls.schedule_publish(uri, DEBOUNCE_SECONDS)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    async def notebook_did_save(ls: JitlintServer, params: types.DidSaveNotebookDocumentParams):
        for uri in ls.notebook_cells(params.notebook_document.uri):
            ls.schedule_publish(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    async def notebook_did_close(ls: JitlintServer, params: types.DidCloseNotebookDocumentParams):
        ls._notebook_results.pop(unquote(params.notebook_document.uri), None)
        for cell in params.cell_text_documents:
            ls.clear(cell.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: JitlintServer, params: types.DidChangeConfigurationParams):
        if not ls.client_answers_configuration and params.settings is not None:
            ls._pushed_settings = settings_table(params.settings)
        ls.reload_settings()
        await ls.settings()
        ls.refresh_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: JitlintServer, params: types.DidChangeWatchedFilesParams):
        from pygls.uris import to_fs_path

        changed = False
        for event in params.changes:
            path = to_fs_path(unquote(event.uri))
            if path and path.endswith(".py") and ls.document(event.uri) is None:  # open buffers win
                changed |= ls.project.update(path, None)
        if any(not (to_fs_path(unquote(e.uri)) or "").endswith(".py") for e in params.changes):
            ls.reload_settings()  # a pyproject.toml changed: its [tool.jitlint] may have
            await ls.settings()
            ls.refresh_all()
        if changed:
            ls.index_changed()

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False))
    async def pull_diagnostics(ls: JitlintServer, params: types.DocumentDiagnosticParams):
        result = await ls.lint(params.text_document.uri)
        if result is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if params.previous_result_id == result.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics, result_id=result.result_id)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def code_action(ls: JitlintServer, params: types.CodeActionParams):
        result = await ls.lint(params.text_document.uri)
        if result is None:
            return []
        return code_actions(ls, params, result)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: JitlintServer, params: types.HoverParams):
        result = await ls.lint(params.text_document.uri)
        if result is None:
            return None
        at = result.positions.from_client(params.position)
        hits = [i for i, f in enumerate(result.findings) if _start(f) <= at <= _end(f)]
        if not hits:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                         value="\n\n---\n\n".join(hover_markdown(result.findings[i], result.config.docs_url)
                                                                   for i in hits)),
            range=result.diagnostics[hits[0]].range)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: JitlintServer, params):
        for task in ls._scheduled.values():
            task.cancel()
        # pygls 2.1 then cancels the requests still running by iterating its dict of them, while the done
        # callbacks of those it cancels remove them from it (RuntimeError, and no answer to `shutdown`);
        # cancelled here first, from a copy, none is left for it to cancel that way
        pending = getattr(ls.protocol, "_request_futures", {})
        current = getattr(ls.protocol, "msg_id", None)
        for msg_id, future in list(pending.items()):
            if msg_id != current and not future.done():
                future.cancel()
        ls.executor.shutdown(wait=False, cancel_futures=True)
        if ls.first_lints is not None:
            ls.first_lints.stop()
        ls.helper_executor.shutdown(wait=False, cancel_futures=True)

    return server


def code_actions(ls: "JitlintServer", params: "types.CodeActionParams", result: LintResult) -> list:
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
        in_range = _start(finding) <= end and start <= _end(finding)
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


def _workspace_edit(ls: "JitlintServer", uri: str, result: LintResult,
                    edits: Sequence["types.TextEdit"]) -> "types.WorkspaceEdit":
    """Versioned when the client supports it, so an edit never lands on text it was not made for."""
    if ls._capability("workspace.workspace_edit.document_changes"):
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=result.version),
            edits=list(edits))])
    return types.WorkspaceEdit(changes={uri: list(edits)})


# ------------------------------------------------------------------------------------------ entry point


def main(argv: list[str] | None = None, first_lints: "FirstLints | None" = None) -> int:
    """`first_lints`: the helper process `jitlint lsp` started before importing this module."""
    parser = argparse.ArgumentParser(prog="jitlint lsp", description="The jitlint language server (stdio).")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only mode)")
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log here (default: stderr)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log more (-v: info, -vv: every message)")
    args = parser.parse_args(argv)
    if PYGLS_MISSING is not None:
        if first_lints is not None:
            first_lints.stop()
        sys.stderr.write("jitlint: error: the language server needs pygls: pip install 'jitlint[lsp]'\n")
        return 2
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
               else logging.StreamHandler(sys.stderr))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    server = create_server(first_lints)
    if first_lints is None:
        # libcst and the rules load while the client and the server shake hands (the first lint needs them)
        server.start_preload()
    server.start_io()
    return 0


def _excluded_as_in_check(fs_path: str | None, config: Config) -> bool:
    """Do the settings' excludes apply, as `jitlint check --force-exclude` applies them to the files of
    the workspace?"""
    return bool(fs_path and config.root and Path(fs_path).is_relative_to(config.root))


def _preload() -> None:
    try:
        from jitlint.project import incremental  # noqa: F401

        engine.import_linting()
    except Exception:  # the first lint imports them again, and reports what fails
        pass
