"""`jitlint lsp` at start-up, through a real client (pytest-lsp): the open file's diagnostics come without
the workspace index, which is built in the background and shown with `$/progress` to clients that support
`window.workDoneProgress` (and to no other)."""

from __future__ import annotations

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import pytest

from harness import CROSS_FILE, CROSS_FILE_FINDING, write_project
from test_lsp import SERVER, TIMEOUT, Document, recording_client, start

pytestmark = pytest.mark.slow  # a `jitlint lsp` server process per test

# a workspace of many files, so that the index has something to report progress on
FILES = {**CROSS_FILE, **{f"pkg/extra_{i}.py": f"import jax\n\n\n@jax.jit\ndef f_{i}(x):\n    return x + {i}\n"
                          for i in range(60)}}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=recording_client),
                    params=["visual_studio_code", "emacs without workDoneProgress"])
async def client(lsp_client: LanguageClient, request, tmp_path):
    write_project(tmp_path, FILES)
    lsp_client.name = request.param
    if request.param == "visual_studio_code":
        await start(lsp_client, request.param, tmp_path)
    else:
        capabilities = client_capabilities("emacs")
        capabilities.window.work_done_progress = False
        await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities,
                                                                   root_uri=tmp_path.as_uri()))
        lsp_client.position_encoding, lsp_client.root = "utf-32", tmp_path
    yield
    await lsp_client.shutdown_session()


async def test_diagnostics_then_the_index_with_progress(client: LanguageClient):
    path, line, code = CROSS_FILE_FINDING
    train = Document(client, path, CROSS_FILE[path], on_disk=CROSS_FILE[path])
    assert isinstance(await train.diagnostics(), list)  # the open file is linted (with or without the index)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    found = []
    while loop.time() < deadline:  # the cross-file finding needs the index: it is built in the background
        mine = [p for p in client.published if p.uri == train.uri]
        found = [(d.range.start.line + 1, d.code) for d in (mine[-1].diagnostics if mine else [])]
        if found:
            break
        await asyncio.sleep(0.05)
    assert found == [(line, code)]
    reports = client.progress_reports
    if client.name != "visual_studio_code":  # no window.workDoneProgress: no progress sent
        assert reports == {}
        return
    while loop.time() < deadline and not any(r and isinstance(r[-1], types.WorkDoneProgressEnd)
                                             for r in reports.values()):
        await asyncio.sleep(0.05)
    [(token, values)] = reports.items()
    assert isinstance(values[0], types.WorkDoneProgressBegin) and "index" in values[0].title
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    middle = values[1:-1]
    assert all(isinstance(v, types.WorkDoneProgressReport) for v in middle)
    percentages = [v.percentage for v in middle]
    assert percentages == sorted(percentages) and all(0 <= p <= 100 for p in percentages)
    assert middle and middle[-1].message.endswith(f"/{len([n for n in FILES if n.endswith('.py')])} files")
