"""How long an editor waits for `jitlint lsp` diagnostics, side by side with `ruff server` (a benchmark,
not a test).

Starts each server as an editor does (stdio, a bare JSON-RPC client), opens a generated realistic JAX
module (`jax_module`: helpers, initialisers, a class, losses, jitted steps, a jitted `lax.scan`, an eager
loop; about 8 findings in 2,000 lines), then edits it again and again, as typing does:

- first diagnostics: from starting the server process to the diagnostics of the opened file (pulled;
  also without the first-lint helper process, `JITLINT_LSP_HELPER=0`, to show what it saves);
- edit -> diagnostics, pull: a client that pulls (`textDocument/diagnostic`) right after each change, like
  Neovim 0.11: no debounce is involved;
- edit -> diagnostics, push (jitlint only): a client without pull support; the time includes the server's
  200 ms debounce.

Rounds are interleaved (each round runs every server once, in a new random order) so that load from
other jobs hits both alike; the ratios are medians of per-round ratios. It also times the engine alone
in this process: a full `check_source`, and an incremental one (`jitlint.project.incremental.Document`).

    .venv/bin/python bench/lsp_latency.py [--lines 2000 500] [--edits 20] [--runs 3] [--ruff PATH]
    .venv/bin/python bench/lsp_latency.py --file REAL.py [...]   # real files: each edit types a statement
                                                                 # at the top of a random function's body

`ruff` (0.17.6, pinned like bench/compare.py) comes from bench/compare.py's peers venv (created on first
use) unless --ruff names one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


HEADER = """\
\"\"\"A training module: models, losses, jitted steps and an eager loop (generated for the benchmark).\"\"\"

from __future__ import annotations

import dataclasses
import functools
import logging
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

logger = logging.getLogger(__name__)
LEARNING_RATE = 1e-3
HIDDEN = 128


@dataclasses.dataclass
class Config:
    steps: int = 100
    batch: int = 32
    seed: int = 0


class Batch(NamedTuple):
    x: jax.Array
    y: jax.Array


"""

BLOCK = """\
def init_params_{i}(key, sizes=(HIDDEN, HIDDEN)):
    \"\"\"Glorot-initialised weights for a small MLP.\"\"\"
    keys = jax.random.split(key, len(sizes))
    params = []
    for k, (n_in, n_out) in zip(keys, zip(sizes[:-1], sizes[1:])):
        scale = np.sqrt(2.0 / (n_in + n_out))
        params.append((scale * jax.random.normal(k, (n_in, n_out)), jnp.zeros(n_out)))
    return params


def mlp_{i}(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn_{i}(params, batch):
    pred = mlp_{i}(params, batch.x)
    return jnp.mean((pred - batch.y) ** 2)


@jax.jit
def train_step_{i}(params, batch):
    loss, grads = jax.value_and_grad(loss_fn_{i})(params, batch)
    params = jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)
{finding}    return params, loss


@functools.partial(jax.jit, static_argnames=("length",))
def rollout_{i}(params, x, length):
    def body(carry, _):
        y = mlp_{i}(params, carry)
        return y, jnp.sum(y)

    final, sums = lax.scan(body, x, None, length=length)
    return final, sums


class Normalizer{i}:
    def __init__(self, mean, std):
        self.mean = mean
        self.std = std

    def __call__(self, x):
        return (x - self.mean) / (self.std + 1e-6)


def summarize_{i}(history):
    values = np.asarray(history)
    return {{"mean": float(values.mean()), "max": float(values.max())}}


"""

FINDINGS = ["    print(\"loss\", loss)\n", "    if loss > 1.0:\n        loss = loss * 0.5\n",
            "    logger.info(\"loss %s\", loss)\n", "    scale = float(loss)\n"]

FOOTER = """\
def main(config: Config = Config()):
    key = jax.random.PRNGKey(config.seed)
    params = init_params_0(key)
    history = []
    for step in range(config.steps):
        batch = Batch(jnp.ones((config.batch, HIDDEN)), jnp.zeros((config.batch, HIDDEN)))
        params, loss = train_step_0(params, batch)
        final, _ = rollout_0(params, batch.x, step)
        history.append(loss)
    return summarize_0(history)


if __name__ == "__main__":
    main()
"""


def jax_module(lines: int) -> str:
    """A realistic JAX training module of about `lines` lines: helpers, initialisers, a class, losses,
    jitted steps with `value_and_grad`, a jitted `lax.scan` rollout with a static length, an eager loop
    calling them; one finding in every block of ~60 lines that falls on a multiple of 4 (about 8 in
    2,000 lines), plus a loop-varying static argument in `main` (JIT301)."""
    parts = [HEADER]
    count, i = HEADER.count("\n") + FOOTER.count("\n"), 0
    while count < lines:
        finding = FINDINGS[(i // 4) % len(FINDINGS)] if i % 4 == 0 else ""
        block = BLOCK.format(i=i, finding=finding)
        parts.append(block)
        count += block.count("\n")
        i += 1
    parts.append(FOOTER)
    return "".join(parts)


def edited(text: str, n: int) -> str:
    """The n-th edit, as typing does: a changed constant in one function's body, and every other time a
    print added to another jitted step (a new finding)."""
    text = text.replace("scale = np.sqrt(2.0 / (n_in + n_out))", f"scale = np.sqrt({n + 2}.0 / (n_in + n_out))", 1)
    if n % 2:
        text = text.replace("    return params, loss\n", "    print(loss)\n    return params, loss\n", 2)
    return text


def body_edits(source: str, seed: int):
    """For a real file (`--file`): the n-th edit types `_edit_marker = n` at the top of the body of a
    function picked at random (seeded), each edit of the original text, as `edited` does."""
    import ast

    lines = source.split("\n")
    heads = [f.body[0] for f in ast.walk(ast.parse(source)) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             and f.body[0].lineno > f.lineno]
    heads = [h for h in heads if len(lines[h.lineno - 1]) - len(lines[h.lineno - 1].lstrip()) == h.col_offset]
    if not heads:
        raise SystemExit("no function body to edit")
    rng = random.Random(seed)
    picks = [rng.choice(heads) for _ in range(1000)]

    def edit(text: str, n: int) -> str:
        head = picks[n % len(picks)]
        indent = lines[head.lineno - 1][:head.col_offset]
        return "\n".join(lines[:head.lineno - 1] + [f"{indent}_edit_marker = {n}"] + lines[head.lineno - 1:])

    return edit


class RawClient:
    """A bare JSON-RPC client over stdio (pygls' client cannot read ruff's `initialize` result): requests,
    notifications, and the arrival time and size of every publishDiagnostics by document version."""

    def __init__(self) -> None:
        self.pending: dict[int, asyncio.Future] = {}
        self.published: dict[int, tuple[float, int]] = {}  # version -> (arrival, diagnostics)
        self.arrived = asyncio.Event()
        self.ids = 0

    async def start(self, command: list[str], cwd: Path, env: dict | None = None) -> None:
        self.proc = await asyncio.create_subprocess_exec(*command, cwd=cwd, stdin=asyncio.subprocess.PIPE,
                                                         stdout=asyncio.subprocess.PIPE,
                                                         stderr=asyncio.subprocess.DEVNULL,
                                                         env={**os.environ, **(env or {})})
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = await out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            message = json.loads(await out.readexactly(length))
            now = time.perf_counter()
            if "method" not in message:
                future = self.pending.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message.get("result"))
            elif "id" in message:  # a request from the server (configuration, registration): answer null
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message["method"] == "textDocument/publishDiagnostics":
                params = message["params"]
                if params.get("version") is not None:
                    self.published[params["version"]] = (now, len(params["diagnostics"]))
                    self.arrived.set()

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)

    async def request(self, method: str, params: dict | None = None):
        self.ids += 1
        future = self.pending[self.ids] = asyncio.get_running_loop().create_future()
        self._send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}})
        return await asyncio.wait_for(future, 120)

    def notify(self, method: str, params: dict | None = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    async def stop(self) -> None:
        try:
            await self.request("shutdown")
            self.notify("exit")
            await asyncio.wait_for(self.proc.wait(), 10)
        except Exception:
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


async def measure(server: list[str], mode: str, source: str, path: Path, edits: int, env: dict | None = None,
                  edit=edited):
    """(first diagnostics s, [edit -> diagnostics s], [diagnostics per version]) for one server start."""
    client = RawClient()
    capabilities = {"textDocument": {"publishDiagnostics": {"versionSupport": True},
                                     **({"diagnostic": {}} if mode == "pull" else {})},
                    "general": {"positionEncodings": ["utf-16"]}}
    started = time.perf_counter()
    await client.start(server, path.parent, env)
    await client.request("initialize", {"processId": None, "rootUri": path.parent.as_uri(),
                                        "capabilities": capabilities})
    client.notify("initialized")
    uri = path.as_uri()

    async def diagnostics_of(version: int) -> int:
        if mode == "pull":
            report = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            return len(report.get("items", []))
        while version not in client.published:
            client.arrived.clear()
            await asyncio.wait_for(client.arrived.wait(), 60)
        return client.published[version][1]

    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": source}})
    counts = [await diagnostics_of(1)]
    first = (client.published[1][0] if mode == "push" else time.perf_counter()) - started
    latencies = []
    for n in range(edits):
        version = n + 2
        start = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"text": edit(source, n)}]})
        counts.append(await diagnostics_of(version))
        end = client.published[version][0] if mode == "push" else time.perf_counter()
        latencies.append(end - start)
    await client.stop()
    return first, latencies, counts


def find_ruff(given: str | None) -> str:
    if given:
        return given
    sys.path.insert(0, str(Path(__file__).parent))
    from compare import ensure_peers

    _, ruff = ensure_peers(Path(tempfile.gettempdir()) / "jitlint-bench" / "peers-venv")
    return str(ruff)


def engine_alone(source: str, path: Path, edits: int, edit=edited) -> tuple[float, float]:
    """Median ms of a full `check_source` and of an incremental one, on the same edits."""
    from jitlint.lint.pipeline import check_source
    from jitlint.project.incremental import Document

    full, incremental = [], []
    doc = Document()
    check_source(source, str(path), state=doc)
    for n in range(edits):
        text = edit(source, n)
        start = time.perf_counter()
        a = check_source(text, str(path), state=doc)
        middle = time.perf_counter()
        b = check_source(text, str(path))
        full.append(time.perf_counter() - middle)
        incremental.append(middle - start)
        assert a.findings == b.findings
    return statistics.median(full) * 1000, statistics.median(incremental) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, nargs="+", default=[2000, 500])
    parser.add_argument("--edits", type=int, default=20, help="edits per server start")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds (server starts per mode)")
    parser.add_argument("--ruff", help="the ruff executable (default: bench/compare.py's pinned one)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--file", nargs="+", default=[], help="real files to open and edit instead (--lines ignored)")
    args = parser.parse_args()
    servers = {"jitlint": [sys.executable, "-m", "jitlint", "lsp"], "ruff": [find_ruff(args.ruff), "server"]}
    version = subprocess.run([servers["ruff"][0], "--version"], capture_output=True, text=True).stdout.strip()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, load {load}; {version}; "
          f"{args.runs} interleaved rounds x {args.edits} edits")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        modules = [(Path(f).read_text(encoding="utf-8"), Path(f).name, body_edits) for f in args.file] or [
            (jax_module(lines), f"model_{lines}.py", lambda source, seed: edited) for lines in args.lines]
        for source, name, edits_of in modules:
            path = Path(folder) / name
            path.write_text(source, encoding="utf-8")
            edit = edits_of(source, args.seed)
            full, incremental = engine_alone(source, path, min(args.edits, 10), edit)
            print(f"\n{source.count(chr(10))} lines: engine alone, median full check_source {full:.0f} ms, "
                  f"incremental {incremental:.0f} ms")
            # (server, mode, environment): the last, jitlint without the helper process that does its first
            # lints while the server loads (jitlint.frontends.lsp.first_lint), shows what that helper saves
            runs = {"jitlint pull": ("jitlint", "pull", None), "ruff pull": ("ruff", "pull", None),
                    "jitlint push": ("jitlint", "push", None),
                    "jitlint pull, no first-lint helper": ("jitlint", "pull", {"JITLINT_LSP_HELPER": "0"})}
            results: dict[str, list] = {label: [] for label in runs}
            for _ in range(args.runs):
                order = list(results)
                rng.shuffle(order)
                for label in order:
                    name, mode, env = runs[label]
                    results[label].append(await measure(servers[name], mode, source, path, args.edits, env, edit))
            print("| server | first diagnostics (median s) | edit -> diagnostics median ms | min-max ms "
                  "| diagnostics per version |")
            print("|---|---:|---:|---:|---|")
            for label, rounds in results.items():
                everything = [x for _, lat, _ in rounds for x in lat]
                counts = sorted({c for _, _, cs in rounds for c in cs})
                print(f"| {label}{' (incl. 200 ms debounce)' if 'push' in label else ''} | "
                      f"{statistics.median(f for f, _, _ in rounds):.3f} | "
                      f"{statistics.median(everything) * 1000:.0f} | {min(everything) * 1000:.0f}-"
                      f"{max(everything) * 1000:.0f} | {counts} |")
            per_round = [statistics.median(j[1]) / statistics.median(r[1])
                         for j, r in zip(results["jitlint pull"], results["ruff pull"])]
            firsts = [j[0] / r[0] for j, r in zip(results["jitlint pull"], results["ruff pull"])]
            print(f"jitlint / ruff, median of per-round ratios: edit -> diagnostics {statistics.median(per_round):.1f}x, "
                  f"first diagnostics {statistics.median(firsts):.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
