"""Same text, same findings: on generated programs with odd layouts (a line holding only `\\`, CRLF endings,
a statement written twice, identifiers NFKC respells, type parameters of Python 3.12, a syntax error),
`jitlint check` on the files, `check -` on each text, the real `flake8` and the language server (each text
opened fresh, and the same texts reached by editing one buffer) report the same findings at the same
places."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from conftest import jitlint_exe

pytestmark = pytest.mark.slow  # processes: jitlint, flake8 and a language server

SEED, COUNT = 20261202, 14
TIMEOUT = 30.0

BLOCKS = [
    "@jax.jit\ndef {name}(x):\n    print(x)\n    return x\n",
    "@jax.jit\ndef {name}(x):\n    if x > 0:\n        return x\n    return -x\n",
    "@jax.jit\ndef {name}(x):\n    return x[x > 0]\n",
    "jax.lax.fori_loop(0, 3, lambda i, c: print(c), 0)\n",
    "def {name}_helper(x):\n    print(x)\n    return x\n\n\n@jax.jit\ndef {name}(x):\n    return {name}_helper(x)\n",
    "def {name}(x):\n    return x + 1\n",
    "def {name}(xs):\n    for x in xs:\n        jax.jit(lambda y: y + 1)(x)\n",
    "@jax.jit\ndef {name}(x):\n    return x  # noqa: JIT501\n",
]


def program(rng: random.Random, n: int) -> str:
    parts = ["import jax\nimport jax.numpy as jnp\n"]
    for k in range(rng.randint(2, 5)):
        block = rng.choice(BLOCKS)
        name = f"f{n}_{k}"
        if rng.random() < 0.25:
            name = "ﬁ" + name[1:]  # NFKC: `fi...`
        text = block.format(name=name)
        if rng.random() < 0.2:
            text = text.replace("@jax.jit", "@jax.ｊｉｔ")
        if rng.random() < 0.2:
            text = text.replace(f"def {name}(", f"def {name}[T](", 1)  # Python 3.12 type parameters
        if rng.random() < 0.3 and text.startswith(("@", "def", "jax")):
            text = "\\\n" + text  # a line holding only `\`: joined to the next
        if rng.random() < 0.2:
            text += text  # the same statements twice
        parts.append(text)
    if rng.random() < 0.1:
        parts.append("def broken(x)\n    return x\n")
    text = "\n\n".join(parts)
    return text.replace("\n", "\r\n") if rng.random() < 0.25 else text


PROGRAMS = [program(random.Random(SEED + n), n) for n in range(COUNT)]


def _compiles(text: str) -> bool:
    try:
        compile(text, "p.py", "exec")
        return True
    except SyntaxError:
        return False


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("same-text")
    for n, text in enumerate(PROGRAMS):
        (folder / f"p{n}.py").write_bytes(text.encode("utf-8"))
    return folder


def _check_files(folder: Path) -> dict[str, set]:
    run = subprocess.run([jitlint_exe(), "check", "--isolated", "--no-cache", "--format", "json", "."],
                         cwd=folder, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    out: dict[str, set] = {f"p{n}.py": set() for n in range(COUNT)}
    for f in json.loads(run.stdout):
        out[f["path"]].add((f["line"], f["col"], f["code"]))
    return out


def test_check_stdin_and_flake8_agree(written):
    files = _check_files(written)
    assert any(files.values()), "nothing reported: the comparison would prove nothing"
    assert any(len({c for _, _, c in found}) > 1 for found in files.values())
    for n, text in enumerate(PROGRAMS):
        name = f"p{n}.py"
        run = subprocess.run([jitlint_exe(), "check", "--isolated", "--no-cache", "--format", "json", "-",
                              "--stdin-filename", name], cwd=written, input=text.encode("utf-8"),
                             capture_output=True, timeout=120)
        assert run.returncode in (0, 1), run.stderr
        assert {(f["line"], f["col"], f["code"]) for f in json.loads(run.stdout)} == files[name], name
    flake8 = Path(sys.executable).with_name("flake8")
    run = subprocess.run([str(flake8), "--isolated", "--select", "JIT", "."], cwd=written, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    seen: dict[str, set] = {}
    for line in run.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        seen.setdefault(Path(path).name, set()).add((int(row), int(col), rest.split()[0]))
    for n, text in enumerate(PROGRAMS):
        name = f"p{n}.py"
        if _compiles(text):  # (flake8 itself reports E999 for the rest; its plugins do not run)
            assert seen.get(name, set()) == files[name], name


def versioned_client() -> LanguageClient:
    """pytest-lsp's client, also keeping the document version of each uri's last diagnostics."""
    client = LanguageClient(converter_factory=default_converter)
    client.versions = {}

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.versions[params.uri] = params.version

    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        return None

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                                   types.CLIENT_REGISTER_CAPABILITY: register_capability})
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "jitlint", "lsp"],
                                              client_factory=versioned_client))
async def emacs(lsp_client: LanguageClient, written):
    # Emacs counts columns in code points (utf-32), as jitlint does
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("emacs"), root_uri=written.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=written.as_uri(), name="same-text")]))
    lsp_client.root = written
    yield
    await lsp_client.shutdown_session()


async def _published(client: LanguageClient, uri: str, version: int) -> set:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        got = client.diagnostics.get(uri)
        if got is not None and client.versions.get(uri) == version:
            return {(d.range.start.line + 1, d.range.start.character + 1, d.code) for d in got}
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for version {version} of {uri}")


async def test_the_language_server_agrees_opened_fresh_and_after_edits(emacs: LanguageClient, written):
    lsp_client = emacs
    files = _check_files(written)

    edited = (written / "edited.py").as_uri()
    lsp_client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=edited, language_id="python", version=1, text="x = 1\n")))
    await _published(lsp_client, edited, 1)
    for n, text in enumerate(PROGRAMS):
        name = f"p{n}.py"
        uri = (written / name).as_uri()
        lsp_client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=text)))
        assert await _published(lsp_client, uri, 1) == files[name], f"{name}, opened"
        lsp_client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=edited, version=n + 2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        assert await _published(lsp_client, edited, n + 2) == files[name], f"{name}, reached by an edit"
