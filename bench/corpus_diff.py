#!/usr/bin/env python3
"""Hold a corpus run against our own labelled list of every finding on the shared corpus.

usage: bench/corpus_diff.py CORPUS [--json RUN.json] [--jitlint EXE] [--labels bench/corpus-labels.tsv]

CORPUS is the folder `../shared/bench/make_corpus.sh CORPUS` builds. Without --json the corpus is linted
with `jitlint check --format json --no-cache` (default selection). The labels file has one row per finding:
path<TAB>line<TAB>code<TAB>severity<TAB>verdict<TAB>reason, verdict TRUE / FALSE / DEBATABLE.

Prints every finding that has no label (to review: read it in its code), every label whose finding is gone,
and the precision figures; exits 1 when a finding is unlabelled or a precision bar is missed (>= 90% of
findings true, >= 95% of warnings and errors true, every error true; DEBATABLE counts as not false).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_jitlint(exe: str, corpus: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "run.json")
        with open(out, "w") as fh:
            subprocess.run([exe, "check", "--format", "json", "--exit-zero", "--no-cache", "."], cwd=corpus,
                           stdout=fh, stderr=subprocess.DEVNULL, timeout=1800, check=False)
        with open(out) as fh:
            return json.load(fh)


def read_labels(path: Path) -> dict[tuple[str, int, str], tuple[str, str, str]]:
    labels = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        file, line, code, severity, verdict, reason = (fields + [""] * 6)[:6]
        labels[(file, int(line), code)] = (severity, verdict, reason)
    return labels


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--json", help="a saved `jitlint check --format json` run of the corpus")
    parser.add_argument("--jitlint", default=str(HERE.parent / ".venv" / "bin" / "jitlint"))
    parser.add_argument("--labels", default=str(HERE / "corpus-labels.tsv"))
    args = parser.parse_args()
    if args.json:
        with open(args.json) as fh:
            found = json.load(fh)
    else:
        found = run_jitlint(args.jitlint, args.corpus)
    labels = read_labels(Path(args.labels))
    seen = set()
    unlabelled = []
    verdicts: Counter = Counter()
    for f in found:
        key = (f["path"], f["line"], f["code"])
        label = labels.get(key)
        if label is None:
            unlabelled.append(f)
            continue
        seen.add(key)
        verdicts[(f["severity"], label[1])] += 1
    for f in unlabelled:
        print(f"unlabelled: {f['path']}\t{f['line']}\t{f['code']}\t{f['severity']}\t{f['message'][:160]}")
    for key in sorted(set(labels) - seen):
        print(f"gone (was labelled {labels[key][1]}): {key[0]}:{key[1]} {key[2]}")

    def share(severities) -> tuple[int, int]:
        total = sum(n for (sev, _), n in verdicts.items() if sev in severities)
        false = sum(n for (sev, v), n in verdicts.items() if sev in severities and v == "FALSE")
        return total - false, total

    ok = not unlabelled
    lines = []
    for name, severities, bar in (("all", ("info", "warning", "error"), 0.90),
                                  ("warning+error", ("warning", "error"), 0.95), ("error", ("error",), 1.0)):
        good, total = share(severities)
        frac = good / total if total else 1.0
        ok = ok and frac >= bar
        lines.append(f"{name}: {good}/{total} not false ({frac:.0%}, bar {bar:.0%})")
    counts = Counter(v for (_, v), n in verdicts.items() for _ in range(n))
    print(f"{len(found)} findings, {len(unlabelled)} unlabelled; " + ", ".join(
        f"{v} {counts[v]}" for v in ("TRUE", "DEBATABLE", "FALSE")) + "; " + "; ".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
