#!/usr/bin/env python3
"""The language server's memory over a long editing session: N `didChange` notifications on one open
buffer, the server's resident set size (VmRSS, Linux) read after every 1,000 (each time after a request
round trip, so that every edit before it was handled).

    python bench/lsp_memory.py [--edits 10000]

pygls 2.1.1 kept one future per notification for ever (about 3 KB per edit: openlawlibrary/pygls#608,
#611); jitlint.frontends.lsp.protocol.JitlintProtocol drops them. Prints the RSS series and the growth from the first
sample to the last; exit status 1 when it grew by more than --limit-kb per 1,000 edits on average.
Not a timed test: it needs a quiet machine to say anything about speed, and it says nothing about it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from lspwire import WireClient  # noqa: E402

TEXT = "import jax\n\n\n@jax.jit\ndef step(x):\n    print(x)\n    return x * {n}\n"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--limit-kb", type=int, default=300, help="allowed growth per 1,000 edits (KB)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="jitlint-lsp-memory-"))
    uri = (root / "model.py").as_uri()
    client = WireClient(cwd=root)
    client.initialize(root)
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 0,
                                                            "text": TEXT.format(n=0)}})
    hover = {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 5}}
    samples = []
    for n in range(1, args.edits + 1):
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": n},
                                                 "contentChanges": [{"text": TEXT.format(n=n)}]})
        if n % 1000 == 0:
            client.call("textDocument/hover", hover, timeout=120)
            samples.append((n, rss_kb(client.proc.pid)))
            print(f"{n:>6} edits: {samples[-1][1] / 1024:7.1f} MiB", flush=True)
    client.close()
    (first_n, first), (last_n, last) = samples[0], samples[-1]
    per_1000 = (last - first) / max(1, (last_n - first_n) / 1000)
    print(f"growth from {first_n} to {last_n} edits: {(last - first) / 1024:+.1f} MiB "
          f"({per_1000:+.0f} KB per 1,000 edits)")
    return 0 if per_1000 <= args.limit_kb else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
