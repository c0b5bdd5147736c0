"""The language server's first lints in a helper process (jitlint.frontends.lsp.first_lint): `jitlint lsp` starts it before
importing pygls, it lints the documents opened while the server's engine loads, and it ends once the engine
has loaded or the server ends. Its findings are the engine's, and anything wrong with it means linting
in the server."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import CROSS_FILE, CROSS_FILE_FINDING, write_project
from jitlint.lint import pipeline
from jitlint.frontends.lsp.first_lint import FirstLints
from jitlint.project.project import Project
from lspwire import WireClient

pytestmark = pytest.mark.slow  # `jitlint lsp` server and first-lint helper processes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SOURCE = (FIXTURES / "JIT501_frameworks.py").read_text()
EDITED = SOURCE + "\n\n@jax.jit\ndef added(x):\n    print(x)\n    return x\n"

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table in /proc")


def expected(text: str, path: Path) -> list[tuple[int, int, str]]:
    return [(f.line - 1, f.col - 1, f.code) for f in pipeline.check_source(text, str(path)).findings]


def diagnostics(client: WireClient, uri: str) -> list[tuple[int, int, str]]:
    report = client.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"])
                  for d in report["items"])


def helpers_of(pid: int) -> list[int]:
    """The running first-lint helpers whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z" and b"jitlint.frontends.lsp.first_lint" in cmdline:
            found.append(int(entry.name))
    return found


def wait_until(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@linux_only
def test_the_helper_lints_the_first_document_then_ends(tmp_path: Path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    client = WireClient(cwd=tmp_path, args=("-v",))
    try:
        assert wait_until(lambda: helpers_of(client.proc.pid))  # started with the server
        client.initialize(tmp_path)
        uri = path.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": SOURCE}})
        first = diagnostics(client, uri)
        assert first == sorted(expected(SOURCE, path)) and first
        # edits typed right away: the helper lints them too, incrementally (its own state per document)
        for version, text in enumerate([SOURCE + "\n", SOURCE.replace("print(", "jax.debug.print("), SOURCE], 2):
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": text}]})
            assert diagnostics(client, uri) == sorted(expected(text, path))
        # ... it came from the helper, which ends once the server's own engine has loaded
        assert wait_until(lambda: any(b"in the first-lint helper" in line for line in client.stderr))
        assert wait_until(lambda: not helpers_of(client.proc.pid))
        # then the server lints the edits itself, from the state it built for the text the helper linted
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 9},
                                                 "contentChanges": [{"text": EDITED}]})
        assert diagnostics(client, uri) == sorted(expected(EDITED, path)) != first
        assert not any(b"disagree" in line or b"helper failed" in line for line in client.stderr)
    finally:
        client.close()


@linux_only
def test_the_helper_ends_with_a_killed_server(tmp_path: Path):
    client = WireClient(cwd=tmp_path)
    try:
        assert wait_until(lambda: helpers_of(client.proc.pid))
        helpers = helpers_of(client.proc.pid)
    finally:
        client.proc.kill()
        client.proc.wait()
    # its input closes with the server: it exits (and is reaped by init), it is never left running
    assert wait_until(lambda: not any(Path(f"/proc/{pid}/cmdline").exists()
                                      and b"jitlint.frontends.lsp.first_lint" in Path(f"/proc/{pid}/cmdline").read_bytes()
                                      for pid in helpers))


def test_switched_off_the_server_lints_alone(tmp_path: Path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    client = WireClient(cwd=tmp_path, env={"JITLINT_LSP_HELPER": "0"}, args=("-v",))
    try:
        if sys.platform.startswith("linux"):
            assert not helpers_of(client.proc.pid)
        client.initialize(tmp_path)
        uri = path.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": SOURCE}})
        assert diagnostics(client, uri) == sorted(expected(SOURCE, path))
        assert not any(b"first-lint helper" in line for line in client.stderr)
    finally:
        client.close()


def test_the_helper_answers_as_the_engine_does(tmp_path: Path):
    path = tmp_path / "model.py"
    project = Project(None, cache=False)
    project.update(str(path), SOURCE)  # an open buffer's entry in the index travels with the project
    helper = FirstLints.start()
    assert helper is not None
    try:
        findings = helper.lint(project, SOURCE, str(path), project.config, False)
        assert findings == project.lint_text(SOURCE, str(path), build=False).findings and findings
        assert [f.fix for f in findings] == [f.fix for f in project.lint_text(SOURCE, str(path), build=False).findings]
        assert helper.lint(project, "x = (\n", str(path), project.config, False)[0].code == "JIT000"
    finally:
        helper.close()
    assert helper.process.poll() is not None and not helper.usable and not helper.failed
    assert helper.lint(project, SOURCE, str(path), project.config, False) is None  # closed: never asked again


def test_the_helper_applies_the_index_updates_the_server_has_not_made(tmp_path: Path):
    # the server leaves the open buffers' index entries to the helper while it lints (one parse of the
    # text for both): a call into a buffer's jitted function is checked as with the entry made here
    write_project(tmp_path)
    model, train = tmp_path / "pkg/model.py", tmp_path / "pkg/train.py"
    edited_model = CROSS_FILE["pkg/model.py"].replace('static_argnames=("widths",)', 'static_argnames=()')
    helper = FirstLints.start()
    try:
        for model_text in (CROSS_FILE["pkg/model.py"], edited_model):
            project = Project(None, cache=False)
            updates = {str(model): model_text, str(train): CROSS_FILE["pkg/train.py"]}
            findings = helper.lint(project, CROSS_FILE["pkg/train.py"], str(train), project.config, False,
                                   ("uri", 0), updates)
            for path, text in updates.items():
                project.update(path, text)
            assert findings == project.lint_text(CROSS_FILE["pkg/train.py"], str(train), build=False).findings
            if model_text is edited_model:
                assert not [f for f in findings if f.code == "JIT304"]
            else:
                assert [(f.line, f.code) for f in findings] == [(CROSS_FILE_FINDING[1], "JIT304")]
    finally:
        helper.close()


@pytest.mark.parametrize("program", [
    "",  # exits at once
    "import sys; sys.stdin.buffer.read(4); sys.stdout.buffer.write(b'garbage!'); sys.stdout.flush()",
    "import pickle, struct, sys; sys.stdin.buffer.read(4); d = pickle.dumps(('error', 'boom'));"
    " sys.stdout.buffer.write(struct.pack('>I', len(d)) + d); sys.stdout.flush(); sys.stdin.read()",
])
def test_a_failing_helper_gives_none_and_is_stopped(program: str):
    process = subprocess.Popen([sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    helper = FirstLints(process)
    project = Project(None, cache=False)
    assert helper.lint(project, SOURCE, "model.py", project.config, False) is None
    assert not helper.usable and helper.failed
    assert process.poll() is not None  # stopped (and reaped)


def test_the_off_switch(monkeypatch):
    monkeypatch.setenv("JITLINT_LSP_HELPER", "0")
    assert FirstLints.start() is None
    monkeypatch.setenv("JITLINT_LSP_HELPER", "1")
    helper = FirstLints.start()
    try:
        assert helper is not None and helper.usable
    finally:
        helper.close()


def test_shutdown_while_requests_are_running_is_answered(tmp_path: Path):
    # pygls cancels the requests still running at `shutdown` by iterating its dict of them while their
    # done callbacks remove them from it; the server cancels them first, so `shutdown` is answered
    path = tmp_path / "model.py"
    big = SOURCE * 20
    for pulls in range(3):
        client = WireClient(cwd=tmp_path)
        try:
            client.initialize(tmp_path)
            uri = path.as_uri()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                    "version": 1, "text": big}})
            for _ in range(pulls + 1):  # pulls still being answered when `shutdown` comes
                client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            answer = client.call("shutdown", timeout=60)
            assert "error" not in answer and answer.get("result") is None
            client.notify("exit")
            assert client.proc.wait(timeout=30) == 0
        finally:
            if client.proc.poll() is None:
                client.close()
