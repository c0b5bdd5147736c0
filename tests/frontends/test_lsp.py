"""`jitlint lsp` through a real LSP client (pytest-lsp), with the recorded capabilities of real editors:
Neovim 0.7 (push diagnostics, utf-16, settings pushed), Neovim 0.11 (pull diagnostics, utf-8), VS Code
(push, utf-16, versioned edits) and Emacs (push, utf-32).

Each test edits a local copy of the text the way an editor does (applying the server's edits in the
negotiated position encoding) and checks what the user would see.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from harness import CROSS_FILE, CROSS_FILE_FINDING, FIXTURES, expected_findings, write_project
from jitlint.catalog.links import rule_docs_url

pytestmark = pytest.mark.slow  # a `jitlint lsp` server process per test

SERVER = [sys.executable, "-m", "jitlint", "lsp"]
CLIENTS = ["neovim@v0.7.0", "neovim@v0.11.0", "visual_studio_code", "emacs"]
TIMEOUT = 20.0

# Two jitted functions printing traced values (JIT501); one line mixes a 2-byte/1-unit character and a
# 4-byte/2-unit one, so utf-8, utf-16 and code-point columns all differ; a form feed on its own line
# (PEP 8's page break) must not shift the line numbers after it.
SOURCE = (
    "import jax\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step(x):\n"
    "    print(x)\n"
    "    return x\n"
    "\x0c\n"
    "\n"
    "@jax.jit\n"
    "def other(x):\n"
    '    s = "é😀"; print(x)\n'
    "    return x\n"
)


# ------------------------------------------------------------------------------------------ client side


def recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics (with its document version)."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        client.registrations.extend(params.registrations)

    client.registrations = []
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                                   types.CLIENT_REGISTER_CAPABILITY: register_capability})
    return client


async def start(client: LanguageClient, name: str, root: Path, settings: dict | None = None) -> None:
    """Initialize like the editor `name` does, delivering `settings` the way that editor does."""
    capabilities = client_capabilities(name)
    if settings is not None and capabilities.workspace and capabilities.workspace.configuration:
        client.set_configuration(settings, section="jitlint")
    result = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")]))
    client.position_encoding = result.capabilities.position_encoding or "utf-16"
    client.root = root
    if settings is not None and not (capabilities.workspace and capabilities.workspace.configuration):
        # Neovim 0.7 cannot be asked; it sends its `settings` right after `initialized`.
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"jitlint": settings}))


def pulls(client: LanguageClient) -> bool:
    return client.capabilities.text_document.diagnostic is not None


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def offset(text: str, position: types.Position, encoding: str) -> int:
    """A client position (in `encoding` units) as an index into `text`."""
    lines = text.split("\n")
    line = lines[position.line]
    for i in range(len(line) + 1):
        if units(line[:i], encoding) == position.character:
            return sum(len(x) + 1 for x in lines[: position.line]) + i
    raise AssertionError(f"{position} is not on a character boundary of {line!r} in {encoding}")


def text_at(text: str, range_: types.Range, encoding: str) -> str:
    return text[offset(text, range_.start, encoding): offset(text, range_.end, encoding)]


def apply(text: str, edits, encoding: str) -> str:
    spans = sorted(((offset(text, e.range.start, encoding), offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


class Document:
    """A buffer in the editor: its text, version and the notifications that keep the server in sync."""

    def __init__(self, client: LanguageClient, name: str, text: str, on_disk: str = "x = 1\n"):
        path = client.root / name
        path.write_text(on_disk, encoding="utf-8")  # the server must lint the buffer, not this
        self.client, self.uri, self.text, self.version = client, path.as_uri(), text, 1
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=self.uri, language_id="python", version=1, text=text)))

    def change(self, text: str) -> None:
        self.text, self.version = text, self.version + 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    def apply(self, action: types.CodeAction) -> None:
        """Apply a code action's edit to the local text and tell the server, as an editor does."""
        edit = action.edit
        if edit.document_changes:
            [change] = edit.document_changes
            assert change.text_document.uri == self.uri and change.text_document.version == self.version
            edits = change.edits
        else:
            edits = edit.changes[self.uri]
        self.change(apply(self.text, edits, self.client.position_encoding))

    async def diagnostics(self) -> list[types.Diagnostic]:
        """The diagnostics for the current version, the way this client gets them."""
        if pulls(self.client):
            report = await asyncio.wait_for(self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=self.uri))), TIMEOUT)
            assert report.kind == "full"
            return list(report.items)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while loop.time() < deadline:
            mine = [p for p in self.client.published if p.uri == self.uri]
            if mine and mine[-1].version == self.version:
                return list(mine[-1].diagnostics)
            await asyncio.sleep(0.02)
        raise AssertionError(f"no diagnostics for version {self.version} of {self.uri}: "
                             f"{[(p.uri, p.version) for p in self.client.published]}")

    async def actions(self, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        return await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]))), TIMEOUT)

    def flagged(self, diagnostics) -> list[tuple[int, str, str]]:
        """(0-based line, code, flagged text) of each diagnostic, read from the local text."""
        return [(d.range.start.line, d.code, text_at(self.text, d.range, self.client.position_encoding))
                for d in diagnostics]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=recording_client),
                    params=CLIENTS)
async def client(lsp_client: LanguageClient, request, tmp_path):
    # `@pytest.mark.workspace(files)`: the project is on disk before the server starts (and indexes it)
    marker = request.node.get_closest_marker("workspace")
    if marker is not None:
        write_project(tmp_path, marker.args[0])
    await start(lsp_client, request.param, tmp_path)
    yield
    await lsp_client.shutdown_session()


# ------------------------------------------------------------------------------------------ tests


async def test_edit_fix_and_suppress_until_clean(client: LanguageClient):
    doc = Document(client, "model.py", SOURCE)

    diagnostics = await doc.diagnostics()
    assert doc.flagged(diagnostics) == [(5, "JIT501", "print(x)"), (11, "JIT501", "print(x)")]
    non_ascii = diagnostics[1]
    prefix = '    s = "é😀"; '
    assert non_ascii.range.start.character == units(prefix, client.position_encoding)
    for d in diagnostics:
        assert d.severity == types.DiagnosticSeverity.Warning and d.source == "jitlint"
        assert d.code_description.href == rule_docs_url("JIT501")  # the checkout's page, as a file
        assert d.code_description.href.startswith("file://") and d.code_description.href.endswith("/JIT501.md")
        assert "traced value `x`" in d.message

    # Typing a new print: the diagnostics follow the buffer.
    doc.change(doc.text.replace("    return x\n", "    print(x + 1)\n    return x\n", 1))
    diagnostics = await doc.diagnostics()
    assert doc.flagged(diagnostics) == [(5, "JIT501", "print(x)"), (6, "JIT501", "print(x + 1)"),
                                        (12, "JIT501", "print(x)")]

    # Suppress the one on the non-ASCII line.
    actions = await doc.actions(diagnostics[2])
    assert [a.title for a in actions] == ["Use jax.debug.print (JIT501)", "Suppress JIT501 with # noqa"]
    for action in actions:
        assert action.kind == types.CodeActionKind.QuickFix and list(action.diagnostics) == [diagnostics[2]]
    doc.apply(actions[1])
    assert '    s = "é😀"; print(x)  # noqa: JIT501\n' in doc.text
    diagnostics = await doc.diagnostics()
    assert doc.flagged(diagnostics) == [(5, "JIT501", "print(x)"), (6, "JIT501", "print(x + 1)")]

    # Fix the second one with jax.debug.print.
    [fix, _] = await doc.actions(diagnostics[1])
    assert fix.is_preferred
    doc.apply(fix)
    assert '    jax.debug.print("{!s}", x + 1, ordered=True)\n' in doc.text  # step prints twice
    diagnostics = await doc.diagnostics()
    assert doc.flagged(diagnostics) == [(5, "JIT501", "print(x)")]

    # A noqa that lists another code: the code is merged into its list.
    doc.change(doc.text.replace("    print(x)\n", "    print(x)  # noqa: JIT502 (logging is fine here)\n", 1))
    [d] = await doc.diagnostics()
    [_, suppress] = await doc.actions(d)
    doc.apply(suppress)
    assert "    print(x)  # noqa: JIT502, JIT501 (logging is fine here)\n" in doc.text
    assert await doc.diagnostics() == []

    if pulls(client):  # never both: a pulling client must get no pushed diagnostics
        assert client.published == []


@pytest.mark.parametrize("client", ["visual_studio_code"], indirect=True)
async def test_the_witness_is_related_information(client: LanguageClient):
    """A print in a helper reports where it is traced and each call on the way as relatedInformation, in
    the document, at the client's columns (a non-ASCII prefix before the call)."""
    text = ("import jax\n\n\ndef show(x):\n    print(x)\n    return x\n\n\n"
            "@jax.jit\ndef step(x):\n    s = \"é😀\"; return show(x)\n")
    doc = Document(client, "helpers.py", text)
    (diagnostic,) = await doc.diagnostics()
    assert doc.flagged([diagnostic]) == [(4, "JIT501", "print(x)")]
    related = diagnostic.related_information
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in related] == [
        (doc.uri, 8, "`@jax.jit` traces `step`"), (doc.uri, 10, "traced `step` calls `show`")]
    call = related[1].location.range.start
    assert text_at(doc.text, types.Range(call, call), client.position_encoding) == ""
    assert call.character == units('    s = "é😀"; return ', client.position_encoding)


async def test_unsafe_fix_is_offered_as_such(client: LanguageClient):
    """As ruff offers them: a safe fix is the preferred action; an unsafe one says so and is not."""
    doc = Document(client, "helper.py", "import jax\n\n\ndef helper(v):\n    print(v)\n    return v\n\n\n"
                                        "@jax.jit\ndef step(x):\n    print(x)\n    return helper(x)\n")
    unsafe_d, safe_d = sorted(await doc.diagnostics(), key=lambda d: d.range.start.line)
    [unsafe, _] = await doc.actions(unsafe_d)
    [safe, _] = await doc.actions(safe_d)
    assert (unsafe.title, unsafe.is_preferred) == ("Use jax.debug.print (JIT501, unsafe)", False)
    assert (safe.title, safe.is_preferred) == ("Use jax.debug.print (JIT501)", True)
    doc.apply(unsafe)
    assert '    jax.debug.print("{!s}", v)\n' in doc.text


@pytest.mark.parametrize("client", ["neovim@v0.11.0", "visual_studio_code"], indirect=True)
async def test_hover_shows_the_rule_docs(client: LanguageClient):
    doc = Document(client, "hover.py", SOURCE)
    diagnostics = await doc.diagnostics()
    target = diagnostics[1].range  # on the non-ASCII line: the hover position is in client units too
    inside = types.Position(line=target.start.line, character=target.start.character + 2)
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=doc.uri), position=inside)), TIMEOUT)
    assert hover.range == target
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "JIT501" in text and "print-traced-value" in text
    assert "What it does" in text and "Why is this bad?" in text and "jax.debug.print" in text
    assert f"[JIT501 documentation]({rule_docs_url('JIT501')})" in text

    elsewhere = types.Position(line=0, character=0)
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=doc.uri), position=elsewhere)) is None


@pytest.mark.parametrize("client", ["neovim@v0.7.0", "neovim@v0.11.0"], indirect=True)
async def test_syntax_error_while_typing(client: LanguageClient):
    doc = Document(client, "typing.py", SOURCE)
    assert [d.code for d in await doc.diagnostics()] == ["JIT501", "JIT501"]

    doc.change(doc.text.replace("def other(x):", "def other(x", 1))
    [error] = await doc.diagnostics()
    assert error.code == "JIT000" and error.severity == types.DiagnosticSeverity.Error
    assert "syntax error" in error.message and error.range.start.line == 10
    assert error.code_description.href.endswith("/docs/rules/JIT000.md")

    doc.change(doc.text.replace("def other(x", "def other(x):", 1))
    assert [d.code for d in await doc.diagnostics()] == ["JIT501", "JIT501"]

    # Saving publishes again (push), for the same version.
    before = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=doc.uri)))
    if not pulls(client):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while len(client.published) == before and loop.time() < deadline:
            await asyncio.sleep(0.02)
        assert [(p.version, len(p.diagnostics)) for p in client.published[before:]] == [(doc.version, 2)]
    assert [d.code for d in await doc.diagnostics()] == ["JIT501", "JIT501"]


@pytest.mark.parametrize("client", ["visual_studio_code"], indirect=True)
async def test_odd_requests_are_not_errors(client: LanguageClient):
    doc = Document(client, "alive.py", SOURCE)
    assert len(await doc.diagnostics()) == 2
    # Documents the client never opened, and positions past the end of the text.
    never_opened = types.TextDocumentIdentifier(uri=(client.root / "missing.py").as_uri())
    far = types.Position(line=10_000, character=10_000)
    assert await client.text_document_hover_async(types.HoverParams(text_document=never_opened, position=far)) is None
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=never_opened, range=types.Range(far, far), context=types.CodeActionContext(diagnostics=[])))
    assert list(actions) == []
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=doc.uri), position=far)) is None
    doc.change(doc.text.replace("    print(x)\n", "    pass\n", 1))
    assert doc.flagged(await doc.diagnostics()) == [(11, "JIT501", "print(x)")]


# ------------------------------------------------------------------------------------------ settings


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=recording_client),
                    params=["neovim@v0.7.0", "neovim@v0.11.0", "visual_studio_code"])
async def ignoring_client(lsp_client: LanguageClient, request, tmp_path):
    await start(lsp_client, request.param, tmp_path, settings={"ignore": ["JIT501"]})
    yield
    await lsp_client.shutdown_session()


async def test_client_settings_apply_from_the_first_diagnostics(ignoring_client: LanguageClient):
    client = ignoring_client
    doc = Document(client, "my settings.py", SOURCE)  # a space: percent-encoded in the URI
    assert await doc.diagnostics() == []
    # No early diagnostics with the default settings either (the start-up race).
    assert all(list(p.diagnostics) == [] for p in client.published)

    # The user changes the settings: selection by prefix, in VS Code's camelCase spelling.
    new = {"select": ["JIT5"], "extendIgnore": ["JIT502"]}
    if client.capabilities.workspace and client.capabilities.workspace.configuration:
        client.set_configuration(new, section="jitlint")
        payload = None  # "settings changed, ask again"
    else:
        payload = {"jitlint": new}
    before = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=payload))
    if not pulls(client):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while len(client.published) == before and loop.time() < deadline:
            await asyncio.sleep(0.02)
    assert doc.flagged(await doc.diagnostics()) == [(5, "JIT501", "print(x)"), (11, "JIT501", "print(x)")]


@pytest.mark.parametrize("client", ["visual_studio_code"], indirect=True)
async def test_pyproject_settings_and_bad_client_settings(client: LanguageClient):
    (client.root / "pyproject.toml").write_text('[tool.jitlint]\nper-file-ignores = { "quiet_*.py" = ["JIT5"] }\n')
    quiet = Document(client, "quiet_model.py", SOURCE)
    loud = Document(client, "loud_model.py", SOURCE)
    assert await quiet.diagnostics() == []
    assert len(await loud.diagnostics()) == 2

    # Editing pyproject.toml: the client reports the watched file, the server re-lints open files.
    assert [r.register_options["watchers"][0]["globPattern"] for r in client.registrations] == ["**/pyproject.toml"]
    (client.root / "pyproject.toml").write_text("[tool.jitlint]\n")
    before = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(client.root / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not [p for p in client.published[before:] if p.uri == quiet.uri] and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert len(await quiet.diagnostics()) == 2

    # A setting jitlint does not know: the user is told, and the other settings still apply.
    client.set_configuration({"ignore": "JIT501", "no-such-setting": 1}, section="jitlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    deadline = loop.time() + TIMEOUT
    while not client.messages and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert any("no-such-setting" in m.message for m in client.messages)
    loud.change(loud.text + "\n")
    assert len(await loud.diagnostics()) == 2


# ------------------------------------------------------------------------------------------ robustness


BROKEN_ENGINE = [sys.executable, "-c", (
    "import jitlint.lint.pipeline as pipeline\n"
    "def check_source(*args, **kwargs):\n"
    "    raise RuntimeError('engine exploded')\n"
    "pipeline.check_source = check_source\n"
    "from jitlint.frontends.lsp.main import main\n"
    "raise SystemExit(main([]))\n")]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=BROKEN_ENGINE, client_factory=recording_client),
                    params=["neovim@v0.7.0"])
async def broken_engine_client(lsp_client: LanguageClient, request, tmp_path):
    await start(lsp_client, request.param, tmp_path)
    yield
    await lsp_client.shutdown_session()


async def test_an_engine_exception_becomes_a_diagnostic(broken_engine_client: LanguageClient):
    client = broken_engine_client
    doc = Document(client, "boom.py", SOURCE)
    [d] = await doc.diagnostics()
    assert d.code == "JIT000" and "engine exploded" in d.message and d.severity == types.DiagnosticSeverity.Error
    doc.change(doc.text + "\n")  # and the server keeps answering
    [d] = await doc.diagnostics()
    assert "engine exploded" in d.message
    assert any("engine exploded" in m.message for m in client.log_messages)


class RawClient:
    """Bytes on the server's stdin, for messages no LSP client library would send."""

    def __init__(self, proc):
        self.proc = proc

    def send(self, body: bytes | dict) -> None:
        if isinstance(body, dict):
            body = json.dumps({"jsonrpc": "2.0", **body}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def receive(self) -> dict:
        length = 0
        while (line := await self.proc.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length, "the server closed its output"
        return json.loads(await self.proc.stdout.readexactly(length))

    async def answer(self, id_) -> dict:
        """The response to request `id_`, skipping the server's notifications."""
        while (message := await asyncio.wait_for(self.receive(), TIMEOUT)).get("id", "none") != id_ \
                or "method" in message:
            pass
        return message


async def test_malformed_messages_are_answered_and_the_server_lives_on(tmp_path):
    proc = await asyncio.create_subprocess_exec(*SERVER, stdin=asyncio.subprocess.PIPE,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    raw = RawClient(proc)
    uri = (tmp_path / "raw.py").as_uri()
    try:
        # Not JSON at all: JSON-RPC's Parse error, with id null.
        raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {')
        assert (await raw.answer(None))["error"]["code"] == -32700
        raw.send({"id": 2, "method": "initialize",
                  "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        assert (await raw.answer(2))["result"]["serverInfo"]["name"] == "jitlint"
        raw.send({"method": "initialized", "params": {}})
        raw.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": SOURCE}}})

        # Params that do not match the protocol: Invalid params, instead of a request left hanging.
        raw.send({"id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}}})
        error = (await raw.answer(3))["error"]
        assert error["code"] == -32602 and "position" in error["message"]
        raw.send({"id": 4, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": uri}, "range": "line 3", "context": {"diagnostics": []}}})
        assert (await raw.answer(4))["error"]["code"] == -32602
        raw.send({"id": 5, "method": "jitlint/noSuchMethod", "params": {}})
        assert (await raw.answer(5))["error"]["code"] == -32601
        raw.send({"method": "textDocument/didChange", "params": {"textDocument": {"uri": uri}}})  # no answer due

        # Still serving: a hover on the print in `step`.
        raw.send({"id": 6, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 5, "character": 6}}})
        assert "JIT501" in (await raw.answer(6))["result"]["contents"]["value"]
        raw.send({"id": 7, "method": "shutdown"})
        assert "error" not in await raw.answer(7)
        raw.send({"method": "exit"})
        await asyncio.wait_for(proc.wait(), TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# ------------------------------------------------------------------------------------------ units


def test_noqa_comment_merging():
    from jitlint.core.noqa import add_code_to_comment

    assert add_code_to_comment(None, "JIT501") == "# noqa: JIT501"
    assert add_code_to_comment("# see issue 4", "JIT501") == "# see issue 4  # noqa: JIT501"
    assert add_code_to_comment("# noqa: JIT401,JIT502 why", "JIT501") == "# noqa: JIT401,JIT502, JIT501 why"
    assert add_code_to_comment("# noqa", "JIT501") is None  # a bare noqa already suppresses everything
    assert add_code_to_comment("# noqa: JIT5", "JIT501") is None  # so does a matching prefix
    assert add_code_to_comment("# noqa: JIT", "JIT501") == "# noqa: JIT501, JIT"  # malformed: now valid


def test_noqa_is_not_offered_where_a_comment_would_change_the_code():
    from pygls.workspace.position_codec import PositionCodec

    from jitlint.core.noqa import LineComments
    from jitlint.frontends.lsp.actions import noqa_edit
    from jitlint.frontends.lsp.convert import Positions

    source = 'print("""a\nb""", x)\ny = 1 + \\\n    2\nz = 3  # why\nw = f"""{x}\n"""\n'
    positions = Positions(PositionCodec(types.PositionEncodingKind.Utf16), source)
    comments = LineComments(source)
    assert noqa_edit(positions, comments, 1, "JIT501") is None  # the line ends inside a string
    assert noqa_edit(positions, comments, 3, "JIT501") is None  # a backslash continuation
    edit = noqa_edit(positions, comments, 5, "JIT501")
    assert edit.new_text == "# why  # noqa: JIT501" and edit.range.start.character == len("z = 3  ")
    assert noqa_edit(positions, comments, 6, "JIT501") is None  # inside an f-string
    assert noqa_edit(positions, comments, 7, "JIT501").new_text == "  # noqa: JIT501"


def test_client_settings_override_pyproject_like_flags():
    from jitlint.core.config import Config
    from jitlint.frontends.lsp.settings import settings_table, with_client_settings

    base = Config(select=("JIT",), ignore=("JIT409",), extend_select=("JIT9",))
    assert with_client_settings(base, {}) == base
    merged = with_client_settings(base, {"extendIgnore": ["JIT5"], "extend_select": "JIT409"})
    assert not merged.is_enabled("JIT501") and merged.is_enabled("JIT409") and merged.is_enabled("JIT101")
    replaced = with_client_settings(base, {"ignore": ["JIT501"], "select": ["JIT5"]})
    assert replaced.is_enabled("JIT502") and not replaced.is_enabled("JIT501") and not replaced.is_enabled("JIT101")
    assert settings_table({"jitlint": {"ignore": []}}) == {"ignore": []}
    assert settings_table([]) == {}  # an empty Lua table arrives as a list


# ------------------------------------------------------------------------------------------ project index

MODEL = (
    "from functools import partial\n"
    "import jax\n"
    "\n"
    "\n"
    "@partial(jax.jit, static_argnames=\"n\")\n"
    "def train_step(x, n):\n"
    "    return x * n\n"
)
TRAIN = (
    "from pkg.model import train_step\n"
    "\n"
    "\n"
    "def train(x):\n"
    "    for i in range(100):\n"
    "        x = train_step(x, n=i)\n"
    "    return x\n"
)


async def fresh_diagnostics(doc: Document, published_before: int) -> list[types.Diagnostic]:
    """The diagnostics of `doc` after something else changed (its own version did not)."""
    client = doc.client
    if pulls(client):
        return await doc.diagnostics()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        mine = [p for p in client.published[published_before:] if p.uri == doc.uri]
        if mine:
            return list(mine[-1].diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"{doc.uri} was not linted again")


@pytest.mark.workspace({"pkg/__init__.py": "", "pkg/model.py": MODEL})
async def test_calls_into_other_files_follow_the_project_index(client: LanguageClient):
    """A static argument defined in another file (read from disk, then from its edited buffer)."""
    train = Document(client, "pkg/train.py", TRAIN, on_disk=TRAIN)

    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:  # the workspace index is built in the background after start-up
        before = len(client.published)
        codes = [d.code for d in await fresh_diagnostics(train, 0 if pulls(client) else before - 1)]
        if codes == ["JIT301"] or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.1)
    assert codes == ["JIT301"], codes

    # Editing model.py in the editor (unsaved) makes `n` a traced argument: the finding in train.py goes.
    model = Document(client, "pkg/model.py", MODEL, on_disk=MODEL)
    before = len(client.published)
    model.change(MODEL.replace('@partial(jax.jit, static_argnames="n")', "@jax.jit"))
    assert [d.code for d in await fresh_diagnostics(train, before)] == []


@pytest.mark.workspace(CROSS_FILE)
async def test_only_the_calling_file_open_sees_the_whole_project(client: LanguageClient):
    """harness.CROSS_FILE with only pkg/train.py open: the jitted function it calls wrongly is defined in
    pkg/model.py, never opened; the server's project indexes every file of the workspace. The project's
    `[tool.jitlint] ignore = ["JIT901"]` (a runtime code) is accepted: no warning is shown."""
    path, line, code = CROSS_FILE_FINDING
    train = Document(client, path, CROSS_FILE[path], on_disk=CROSS_FILE[path])
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:  # the workspace index is built in the background after start-up
        before = len(client.published)
        diagnostics = await fresh_diagnostics(train, 0 if pulls(client) else before - 1)
        found = [(d.range.start.line + 1, d.code) for d in diagnostics]
        if found or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.1)
    assert found == [(line, code)]
    assert not [m for m in client.messages if "unknown" in m.message], client.messages

    # pkg/model.py changes on disk (a git checkout), never opened: the watched-file event updates the index.
    model = client.root / "pkg" / "model.py"
    model.write_text(CROSS_FILE["pkg/model.py"].replace('@partial(jax.jit, static_argnames=("widths",))', "@jax.jit"),
                     encoding="utf-8")
    before = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=model.as_uri(), type=types.FileChangeType.Changed)]))
    assert await fresh_diagnostics(train, before) == []  # `widths` is traced now: a list is a fine argument


HELPERS = {p.name: p.read_text(encoding="utf-8") for p in (FIXTURES / "projects" / "helpers").glob("*.py")}


@pytest.mark.workspace(HELPERS)
async def test_a_helper_follows_its_callers_buffer(client: LanguageClient):
    """losses.py's findings exist only because train.py's jitted step calls it: open, they name train.py in
    their related information; editing train.py's buffer (unsaved) to drop a call removes that finding."""
    losses = Document(client, "losses.py", HELPERS["losses.py"], on_disk=HELPERS["losses.py"])
    expected = sorted(expected_findings(HELPERS["losses.py"]))
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:  # the workspace's callers are read in the background after start-up
        before = len(client.published)
        diagnostics = await fresh_diagnostics(losses, 0 if pulls(client) else before - 1)
        found = sorted((d.range.start.line + 1, d.code) for d in diagnostics)
        if found == expected or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.1)
    assert found == expected
    printing = next(d for d in diagnostics if d.code == "JIT501")
    assert [info.location.uri.rsplit("/", 1)[1] for info in printing.related_information] == ["train.py", "train.py"]

    train = Document(client, "train.py", HELPERS["train.py"], on_disk=HELPERS["train.py"])
    before = len(client.published)
    train.change(HELPERS["train.py"].replace("losses.cross_entropy(pred, y) + ", ""))
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        found = sorted((d.range.start.line + 1, d.code) for d in await fresh_diagnostics(losses, before))
        if "JIT501" not in {code for _, code in found} or asyncio.get_running_loop().time() > deadline:
            break
        before = len(client.published)
        await asyncio.sleep(0.1)
    assert found == [item for item in expected if item[1] != "JIT501"]
