"""The language server's re-lint after an edit, on real files: incremental against a full lint (a benchmark,
not a test).

bench/lsp_latency.py measures the server on generated modules. Real code is structured otherwise (test
classes holding every test, Flax and Equinox modules, 200-line kernels, two-space indentation), so this
times the engine alone, as the server's lint thread runs it, on the real files of a corpus:

- files: the `.py` files of DIR (default: the corpus staging tree of bench/compare.py) of 300-3,000
  lines that refer to a transform (`prefilter.mentions_trace_token`) and have a finding (all rules
  selected; `--any`: with or without one), a seeded random sample of them;
- edits: each inserts one statement at the top of a random function's body (`_edit_marker = k`),
  typed into the previous text, as a user types into one open document;
- incremental: `check_source(text, state=doc)` with the document's state kept from the previous edit;
  full: `check_source` of the same edit with another constant, without state (no memo can answer it);
- whole: edits where the incremental lint gave up and linted the text whole (`Document.whole`).

    .venv/bin/python bench/incremental_real.py [DIR] [--files 40] [--edits 5] [--seed 2026] [--any] [--list]

Figures are CPU time of this process (`time.process_time`), so load from other jobs counts less.
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jitlint.core.config import Config  # noqa: E402
from jitlint.lint.pipeline import check_source  # noqa: E402
from jitlint.project.incremental import Document  # noqa: E402
from jitlint.analysis.prefilter import mentions_trace_token  # noqa: E402

ALL = Config(select=("ALL",))


def candidates(root: Path, rng: random.Random, count: int, any_file: bool) -> list[tuple[Path, str]]:
    found = []
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if 300 <= text.count("\n") <= 3000 and mentions_trace_token(text) and (
                    any_file or check_source(text, str(path), ALL).findings):
                found.append((path, text))
    found.sort()
    return rng.sample(found, min(count, len(found)))


def edits(text: str, rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(the edited text, the same edit with another constant) for `count` edits typed one after another."""
    out = []
    for k in range(count):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            break
        bodies = [f.body[0] for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and f.body[0].lineno > f.lineno]
        if not bodies:
            break
        head = rng.choice(bodies)
        lines = text.split("\n")
        line = lines[head.lineno - 1]
        indent = line[:len(line) - len(line.lstrip())]
        if len(indent) != head.col_offset:
            continue

        def typed(value: int) -> str:
            return "\n".join(lines[:head.lineno - 1] + [f"{indent}_edit_marker = {value}"] + lines[head.lineno - 1:])

        text = typed(k)
        out.append((text, typed(k + 1000)))
    return out


def cpu(call) -> tuple[float, object]:
    start = time.process_time()
    result = call()
    return time.process_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", nargs="?", default=str(Path(tempfile.gettempdir()) / "jitlint-bench" / "tree"))
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--edits", type=int, default=5, help="edits per file")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--any", action="store_true", help="files without findings too")
    parser.add_argument("--list", action="store_true", help="a line per file")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = candidates(Path(args.root), rng, args.files, args.any)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {load}; {len(files)} files of "
          f"{args.root}, {args.edits} edits each")
    incremental, full, whole, rows = [], [], 0, []
    for path, text in files:
        doc = Document()
        check_source(text, str(path), ALL, state=doc)
        mine, theirs = [], []
        for edited, other in edits(text, rng, args.edits):
            doc.whole = False
            spent, result = cpu(lambda: check_source(edited, str(path), ALL, state=doc))
            mine.append(spent)
            whole += doc.whole
            spent_full, expected = cpu(lambda: check_source(other, str(path), ALL))
            theirs.append(spent_full)
            assert len(result.findings) == len(expected.findings), path
        if mine:
            incremental += mine
            full += theirs
            rows.append((statistics.median(mine), statistics.median(theirs), text.count("\n"), path))
    if not incremental:
        sys.exit("no file to edit")
    if args.list:
        for mine, theirs, lines, path in sorted(rows, reverse=True):
            print(f"{lines:5d} lines  incremental {mine * 1000:6.1f} ms  full {theirs * 1000:6.1f} ms  "
                  f"{os.path.relpath(path, args.root)}")

    def quantiles(values: list[float]) -> str:
        ordered = sorted(values)
        return (f"median {statistics.median(ordered) * 1000:.1f} ms, p90 {ordered[int(0.9 * (len(ordered) - 1))] * 1000:.1f} "
                f"ms, max {ordered[-1] * 1000:.1f} ms")

    print(f"incremental: {quantiles(incremental)}")
    print(f"full:        {quantiles(full)}")
    ratios = [theirs / mine for mine, theirs, _, _ in rows if mine > 0]
    print(f"full / incremental, median of per-file medians: {statistics.median(ratios):.2f}x; "
          f"{len(incremental)} edits, {whole} linted whole")


if __name__ == "__main__":
    main()
