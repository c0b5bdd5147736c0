#!/usr/bin/env python3
"""jitlint against flake8 and ruff on the pinned corpus of real JAX projects, in one interleaved run.

    python bench/compare.py [--corpus DIR] [--runs 5] [--json results.json]

* The corpus (17 JAX projects' sdists, 2,501 .py files) is built with the shared script
  ../shared/bench/make_corpus.sh into DIR (default: a folder under the system temp dir, kept for the
  next run). It is never copied into the project.
* Only the *.py files are copied into a fresh staging tree, so that every tool sees the same files with
  its default settings (no pyproject.toml, setup.cfg or .gitignore from the projects).
* flake8 and ruff run from their own virtual environment (pinned: flake8 7.5.0 with only its default
  plugins pyflakes/pycodestyle/mccabe, ruff 0.17.6, the versions of ../shared/docs/performance-anchors.md),
  created with pip on first use: the project's venv has jitlint's flake8 plugin installed, and flake8
  runs every installed plugin whatever `--select` says.
* Commands (all in the staging tree, output to /dev/null):
    jitlint cold     jitlint check --no-cache --exit-zero -q .        (all cores: the default -j)
    jitlint before   the same with --jitlint-before EXE (another checkout's jitlint, e.g. main's); its
                     `--format json` output must equal this one's
    jitlint cached   jitlint check --exit-zero -q .                   (the warm-up round fills the cache)
    flake8 -j2       flake8 --isolated -j 2 --exit-zero .             (defaults: E, F, W, C90)
    ruff             ruff check --isolated --no-cache --exit-zero .   (defaults)
    ruff cached      ruff check --isolated --cache-dir D --exit-zero .
* One warm-up round, then --runs rounds; each round runs every command once in a new random order, so
  noise from other jobs on the machine hits all of them alike. Wall time from perf_counter, CPU (user +
  sys, children included) and peak RSS from os.wait4. Ratios are medians of the per-round ratios.
* Then, once: jitlint's findings per rule (`--statistics`), its JIT000 count, and how many files it
  parsed with libcst, skipped or read from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAKE_CORPUS = REPO.parent / "shared" / "bench" / "make_corpus.sh"
PEER_PINS = ["flake8==7.5.0", "ruff==0.17.6"]


def log(message: str) -> None:
    print(f"# {message}", file=sys.stderr, flush=True)


def ensure_corpus(folder: Path, make_corpus: Path) -> Path:
    if folder.is_dir() and any(folder.rglob("*.py")):
        return folder
    log(f"building the corpus in {folder} with {make_corpus}")
    subprocess.run(["bash", str(make_corpus), str(folder)], check=True,
                   env={**os.environ, "PIP": f"{sys.executable} -m pip"})
    return folder


def ensure_peers(venv: Path) -> tuple[Path, Path]:
    flake8, ruff = venv / "bin" / "flake8", venv / "bin" / "ruff"
    if not (flake8.exists() and ruff.exists()):
        log(f"creating {venv} with {' '.join(PEER_PINS)}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", *PEER_PINS], check=True)
    return flake8, ruff


def stage(corpus: Path, dest: Path) -> dict:
    """Copy the *.py files (only) into dest; return counts."""
    if dest.exists():
        shutil.rmtree(dest)
    files = lines = size = 0
    for path in sorted(corpus.rglob("*.py")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        target = dest / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files += 1
        size += len(data)
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return {"files": files, "lines": lines, "bytes": size}


def run_once(argv: list[str], cwd: Path) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")[-500:]
    proc.stderr.close()
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
            "rc": os.waitstatus_to_exitcode(status), "stderr": err,
            "load1": float(Path("/proc/loadavg").read_text().split()[0])}


def jitlint_facts(jitlint: Path, tree: Path) -> dict:
    """Findings per rule and how the files were handled, from a cold and a cached in-process run."""
    stats = subprocess.run([str(jitlint), "check", "--no-cache", "--statistics", "--exit-zero", "."], cwd=tree,
                           capture_output=True, text=True, check=True).stdout
    per_rule = [line.split(None, 2) for line in stats.splitlines() if line.strip()]
    code = ("import json, sys\nfrom dataclasses import asdict\nfrom jitlint.core.config import Config\n"
            "from jitlint.project.runner import lint_paths, default_jobs\n"
            "cold = lint_paths(['.'], Config(), jobs=default_jobs())\n"
            "print(json.dumps(asdict(cold.stats)))\n")
    python = jitlint.parent / "python"
    run = json.loads(subprocess.run([str(python), "-c", code], cwd=tree, capture_output=True, text=True,
                                    check=True).stdout)
    return {"per_rule": [{"count": int(n), "code": c, "name": rest} for n, c, rest in per_rule], "run": run,
            "jit000": sum(int(n) for n, c, _ in per_rule if c == "JIT000")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path(tempfile.gettempdir()) / "jitlint-bench" / "corpus",
                    help="corpus folder (built there with make_corpus.sh when missing)")
    ap.add_argument("--make-corpus", type=Path, default=MAKE_CORPUS)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "jitlint-bench",
                    help="staging tree, caches and the peers' venv go here")
    ap.add_argument("--jitlint", type=Path, default=Path(sys.executable).with_name("jitlint"))
    ap.add_argument("--jitlint-before", type=Path, metavar="EXE",
                    help="another jitlint (e.g. main's) to run cold side by side, and whose findings must match")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", help="comma-separated labels to run (default: all)")
    ap.add_argument("--json", type=Path, help="write every measurement here")
    args = ap.parse_args()

    corpus = ensure_corpus(args.corpus.resolve(), args.make_corpus)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    flake8, ruff = ensure_peers(work / "peers-venv")
    tree = work / "tree"
    counts = stage(corpus, tree)
    ruff_cache = work / "ruff-cache"
    shutil.rmtree(ruff_cache, ignore_errors=True)
    shutil.rmtree(tree / ".jitlint_cache", ignore_errors=True)
    jitlint = str(args.jitlint)
    commands = {
        "jitlint cold": [jitlint, "check", "--no-cache", "--exit-zero", "-q", "."],
        "jitlint cached": [jitlint, "check", "--exit-zero", "-q", "."],
        "flake8 -j2": [str(flake8), "--isolated", "-j", "2", "--exit-zero", "."],
        "ruff": [str(ruff), "check", "--isolated", "--no-cache", "--exit-zero", "."],
        "ruff cached": [str(ruff), "check", "--isolated", "--cache-dir", str(ruff_cache), "--exit-zero", "."],
    }
    if args.jitlint_before:
        commands["jitlint before"] = [str(args.jitlint_before), "check", "--no-cache", "--exit-zero", "-q", "."]
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        commands = {k: v for k, v in commands.items() if k in wanted}
    versions = {
        "jitlint": subprocess.run([jitlint, "--version"], capture_output=True, text=True).stdout.strip(),
        "flake8": " ".join(subprocess.run([str(flake8), "--version"], capture_output=True, text=True).stdout.split()),
        "ruff": subprocess.run([str(ruff), "--version"], capture_output=True, text=True).stdout.strip(),
    }
    load_start = Path("/proc/loadavg").read_text().split()[:3]
    log(f"{counts['files']} files, {counts['lines']:,} lines; {os.cpu_count()} CPUs; load {' '.join(load_start)}")
    rng = random.Random(args.seed)
    runs: dict[str, list[dict]] = {label: [] for label in commands}
    for round_no in range(args.warmup + args.runs):
        order = list(commands)
        rng.shuffle(order)
        if round_no < args.warmup:  # fill the caches before the cached commands run
            order.sort(key=lambda label: "cached" in label)
        for label in order:
            result = run_once(commands[label], tree)
            tag = "warm-up" if round_no < args.warmup else f"run {round_no - args.warmup + 1}"
            log(f"{tag:8} {label:15} wall {result['wall']:7.2f}s  cpu {result['cpu']:7.2f}s  "
                f"rss {result['rss_mib']:5.0f} MiB  rc {result['rc']}  load {result['load1']}")
            if result["rc"] not in (0,):
                log(f"  stderr: {result['stderr']}")
            if round_no >= args.warmup:
                runs[label].append(result)
    load_end = Path("/proc/loadavg").read_text().split()[:3]

    def paired(label: str, ref: str, key: str = "wall") -> float | None:
        if ref not in runs or label not in runs:
            return None
        return statistics.median(a[key] / b[key] for a, b in zip(runs[label], runs[ref]))

    print(f"\n{counts['files']} files, {counts['lines']:,} lines; {args.runs} interleaved rounds after "
          f"{args.warmup} warm-up; {platform.python_version()}, {os.cpu_count()} CPUs; "
          f"load average {' '.join(load_start)} -> {' '.join(load_end)}")
    print("; ".join(f"{k} {v}" for k, v in versions.items()))
    print("\n| command | wall median s | wall min-max s | CPU median s | peak RSS MiB | x flake8 -j2 (wall) "
          "| x ruff cached (wall) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, results in runs.items():
        if not results:
            continue
        walls = [r["wall"] for r in results]
        ratios = [paired(label, "flake8 -j2"), paired(label, "ruff cached")]
        x_flake8, x_ruff = (f"{x:.3f}" if x is not None else "-" for x in ratios)
        print(f"| {label} | {statistics.median(walls):.2f} | {min(walls):.2f}-{max(walls):.2f} | "
              f"{statistics.median(r['cpu'] for r in results):.2f} | "
              f"{statistics.median(r['rss_mib'] for r in results):.0f} | {x_flake8} | {x_ruff} |")
    goals = {}
    before = paired("jitlint before", "jitlint cold")
    if before is not None:
        goals["jitlint before wall / jitlint cold wall"] = round(before, 3)
    speedup = paired("flake8 -j2", "jitlint cold")
    if speedup is not None:
        goals["cold: flake8 -j2 wall / jitlint cold wall (goal >= 5)"] = round(speedup, 2)
    cached = paired("jitlint cached", "ruff cached")
    if cached is not None:
        goals["cached: jitlint cached wall / ruff cached wall (goal <= 1)"] = round(cached, 3)
    for k, v in goals.items():
        print(f"{k}: {v}")

    if args.jitlint_before:  # the same findings, byte for byte
        same = [subprocess.run([str(exe), "check", "--no-cache", "--exit-zero", "--format", "json", "."], cwd=tree,
                               capture_output=True, text=True).stdout for exe in (args.jitlint, args.jitlint_before)]
        goals["findings identical to jitlint before (--format json)"] = same[0] == same[1]
        print(f"findings identical to jitlint before (--format json): {same[0] == same[1]}")
    facts = jitlint_facts(args.jitlint, tree)
    print(f"\njitlint on the corpus: {facts['run']}")
    print(f"JIT000 (files not linted): {facts['jit000']}")
    print("| findings | code | rule |\n|---:|---|---|")
    for row in facts["per_rule"]:
        print(f"| {row['count']} | {row['code']} | {row['name']} |")
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "versions": versions, "load": [load_start, load_end],
                                         "runs": runs, "goals": goals, "jitlint": facts}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
