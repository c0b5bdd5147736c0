#!/usr/bin/env python3
"""Check the quick tree (jitlint.source.fromast) against libcst's parse on real code, and time both.

usage: bench/quick_tree.py DIR [--all] [--limit N]

For every `.py` file under DIR that `jitlint check` would parse in pass 2 (`--all`: every file that
CPython parses), builds the quick tree from CPython's parse and libcst's tree from the text, and
compares them (`fromast.differences`: node classes, names, literal values, operators, the order and
number of children). Prints the files that differ (the first differences of each), the syntax the
quick tree left to libcst, and the CPU time of `ast.parse`, of building the quick tree and of libcst's
parse. Exits 1 when any file differs. Static: nothing it reads is imported or run.
"""
from __future__ import annotations

import argparse
import ast
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jitlint.source.cstparse import parse_module  # noqa: E402
from jitlint.project.discovery import module_name_for  # noqa: E402
from jitlint.source.reading import decode_source, read_source  # noqa: E402
from jitlint.source.fromast import Unsupported, differences, quick_module  # noqa: E402


def relevant_texts(root: Path, every: bool) -> list[tuple[Path, str]]:
    """The decoded files under `root` pass 2 would lint (against the index of all of them)."""
    from jitlint.analysis.index import ProjectIndex
    from jitlint.analysis.prefilter import file_facts, is_relevant

    files = []
    for path in sorted(root.rglob("*.py")):
        try:
            text = decode_source(read_source(path))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            continue
        module, package = module_name_for(path)
        files.append((path, text, file_facts(text, str(path), module, package)))
    index = ProjectIndex([f.summary for _, _, f in files if f.summary is not None])
    return [(p, t) for p, t, f in files if f.error is None and (every or is_relevant(f, index))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--all", action="store_true", help="every file CPython parses, not only pass 2's")
    parser.add_argument("--limit", type=int, default=3, help="differences shown per file")
    args = parser.parse_args()
    texts = relevant_texts(args.dir, args.all)
    unsupported: Counter = Counter()
    differing = 0
    clock = Counter()
    lines = Counter()
    for path, text in texts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.process_time()
            tree = ast.parse(text)
        t1 = time.process_time()
        try:
            quick = quick_module(tree, text)
        except Unsupported as exc:
            unsupported[str(exc)] += 1
            lines["unsupported"] += text.count("\n")
            continue
        t2 = time.process_time()
        real = parse_module(text)
        t3 = time.process_time()
        clock["ast.parse"] += t1 - t0
        clock["quick tree"] += t2 - t1
        clock["libcst"] += t3 - t2
        lines["built"] += text.count("\n")
        found = differences(quick, real, limit=args.limit)
        if found:
            differing += 1
            print(f"{path}:")
            for line in found:
                print(f"    {line}")
    print(f"{len(texts)} files: {len(texts) - sum(unsupported.values())} built ({lines['built']:,} lines), "
          f"{differing} differing from libcst's tree; left to libcst: {sum(unsupported.values())} files "
          f"({lines['unsupported']:,} lines)" + "".join(f", {n} {why}" for why, n in unsupported.most_common()))
    print("CPU on the built files: " + ", ".join(f"{k} {v:.2f} s" for k, v in clock.items()))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
