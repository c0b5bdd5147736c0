"""How long an editor waits for `jitlint lsp` diagnostics after an edit (a benchmark, not a test).

Starts the server as an editor does (`python -m jitlint lsp`, stdio, driven by pygls' LSP client), opens
a generated JAX file of about 2,000 lines, then edits it again and again and measures from each
`didChange` to the diagnostics of that version:

- push: a client without pull support; the time includes the server's 200 ms debounce;
- pull: a client that pulls (`textDocument/diagnostic`) right after each change, like Neovim 0.11.

It also times `check_source` alone on the same text, to tell the lint from the server's overhead.

    .venv/bin/python bench/lsp_latency.py [--lines 2000] [--edits 10] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER = [sys.executable, "-m", "jitlint", "lsp"]


def jax_module(lines: int) -> str:
    """Jitted functions with traced prints (JIT501) and a non-ASCII line, until `lines` lines."""
    parts = ["import jax\nimport jax.numpy as jnp\n\n"]
    count, i = 3, 0
    while count < lines:
        parts.append(
            f"@jax.jit\n"
            f"def step_{i}(x, y):\n"
            f"    z = x * {i} + y\n"
            f'    label = "ß→{i}"; print(z)\n'
            f"    w = jnp.sin(z) @ jnp.cos(y)\n"
            f"    return w + 1\n"
            f"\n\n")
        count += 8
        i += 1
    return "".join(parts)


def edited(text: str, n: int) -> str:
    """The n-th edit: a changed constant in the first function, and every other time one print fewer."""
    text = text.replace("z = x * 0 + y", f"z = x * {n + 1000} + y", 1)
    if n % 2:
        text = text.replace('label = "ß→1"; print(z)', 'label = "ß→1"; pass', 1)
    return text


class BenchClient(LanguageClient):
    def __init__(self):
        super().__init__("jitlint-bench", "1")
        self.published: dict[int, float] = {}  # version -> arrival time
        self.counts: dict[int, int] = {}
        self.arrived = asyncio.Event()


async def measure(mode: str, source: str, path: Path, edits: int) -> tuple[list[float], list[int]]:
    client = BenchClient()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams):
        if params.version is not None:
            client.published[params.version] = time.perf_counter()
            client.counts[params.version] = len(params.diagnostics)
            client.arrived.set()

    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities() if mode == "pull" else None))
    await client.start_io(*SERVER)
    await client.initialize_async(types.InitializeParams(capabilities=capabilities, root_uri=path.parent.as_uri()))
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    identifier = types.TextDocumentIdentifier(uri=uri)

    async def diagnostics_of(version: int) -> int:
        if mode == "pull":
            report = await client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=identifier))
            return len(report.items)
        while version not in client.published:
            client.arrived.clear()
            await asyncio.wait_for(client.arrived.wait(), 60)
        return client.counts[version]

    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=source)))
    await diagnostics_of(1)  # warm: imports, rule registry
    latencies, counts = [], []
    for n in range(edits):
        version = n + 2
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited(source, n))]))
        counts.append(await diagnostics_of(version))
        end = client.published.get(version, time.perf_counter()) if mode == "push" else time.perf_counter()
        latencies.append(end - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies, counts


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=10, help="edits per run")
    parser.add_argument("--runs", type=int, default=3, help="server starts per mode")
    args = parser.parse_args()
    source = jax_module(args.lines)
    print(f"{source.count(chr(10))} lines, {args.runs} runs x {args.edits} edits per mode; "
          f"Python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big_model.py"
        path.write_text(source, encoding="utf-8")
        # The engine alone, in this process: what the server adds is the rest.
        from jitlint.engine import check_source

        engine_times = []
        for n in range(3):
            start = time.perf_counter()
            check_source(edited(source, n), str(path))
            engine_times.append(time.perf_counter() - start)
        print(f"engine alone (check_source): median {statistics.median(engine_times) * 1000:.0f} ms")
        for mode in ("push", "pull"):
            medians, everything, counts = [], [], set()
            for _ in range(args.runs):
                latencies, found = await measure(mode, source, path, args.edits)
                medians.append(statistics.median(latencies))
                everything += latencies
                counts.update(found)
            print(f"{mode}: median {statistics.median(everything) * 1000:.0f} ms "
                  f"(per run: {', '.join(f'{m * 1000:.0f}' for m in medians)} ms; "
                  f"min {min(everything) * 1000:.0f}, max {max(everything) * 1000:.0f} ms); "
                  f"diagnostics per version: {sorted(counts)}")


if __name__ == "__main__":
    asyncio.run(main())
