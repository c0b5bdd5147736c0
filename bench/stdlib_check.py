#!/usr/bin/env python3
"""`jitlint check` over CPython's standard library (its test/ folder included): no traceback, and JIT000
for exactly the files the running interpreter's `compile()` refuses.

    python bench/stdlib_check.py [LIBDIR]      (default: this interpreter's standard library)

Every .py/.pyi file under LIBDIR but site-packages/ (installed packages, not the standard library) is
linted (`--exclude site-packages`: none of the other default excludes, so no `build/`-named folder is
skipped), with `--no-cache -q --format json`. Exit status 0 when the
two sets agree and stderr holds no traceback; the differences are listed otherwise.
tests/robustness/test_robustness.py runs the same comparison on a sample (`compare`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path


def python_files(root: Path) -> list[Path]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "site-packages"))
        out += [Path(folder, f) for f in sorted(files) if f.endswith((".py", ".pyi"))]
    return out


def compile_refuses(path: Path) -> str | None:
    """Why `compile()` refuses the file's bytes (the coding cookie honoured), or None."""
    try:
        data = path.read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, str(path), "exec", dont_inherit=True)
    except Exception as exc:  # SyntaxError, ValueError (NUL), UnicodeDecodeError, RecursionError ...
        return f"{type(exc).__name__}: {exc}"
    return None


def jitlint_exe() -> str:
    exe = Path(sys.executable).with_name("jitlint")
    return str(exe) if exe.exists() else "jitlint"


def compare(paths: list[Path], cwd: Path | None = None, jobs: int | None = None) -> dict:
    """Run `jitlint check` on `paths`; the files with JIT000, those compile() refuses, and stderr."""
    cmd = [jitlint_exe(), "check", "--no-cache", "-q", "--format", "json", "--exit-zero", "--exclude", "site-packages",
           *(["-j", str(jobs)] if jobs else []), *map(str, paths)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    seconds = time.perf_counter() - start
    findings = json.loads(proc.stdout) if proc.stdout.strip() else []
    flagged = {os.path.abspath(os.path.join(cwd or ".", f["path"])) for f in findings if f["code"] == "JIT000"}
    files = [p for root in paths for p in (python_files(root) if root.is_dir() else [root])]
    refused = {os.path.abspath(p): why for p in files if (why := compile_refuses(p)) is not None}
    return {"files": len(files), "flagged": flagged, "refused": refused, "stderr": proc.stderr,
            "returncode": proc.returncode, "seconds": seconds,
            "messages": {os.path.abspath(os.path.join(cwd or ".", f["path"])): f["message"]
                         for f in findings if f["code"] == "JIT000"}}


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(sysconfig.get_paths()["stdlib"])
    out = compare([root])
    flagged, refused = out["flagged"], set(out["refused"])
    print(f"{root}: {out['files']} files, jitlint check took {out['seconds']:.0f} s (exit {out['returncode']})")
    print(f"compile() refuses {len(refused)} files; jitlint reports JIT000 for {len(flagged)}")
    for path in sorted(refused):
        print(f"  {os.path.relpath(path, root)}: {out['refused'][path]}")
        print(f"      jitlint: {out['messages'].get(path, '(no JIT000)')}")
    bad = False
    if "Traceback" in out["stderr"] or out["returncode"] not in (0, 1):
        print("jitlint failed:\n" + out["stderr"])
        bad = True
    for path in sorted(flagged - refused):
        print(f"JIT000 but compile() accepts it: {path}: {out['messages'][path]}")
        bad = True
    for path in sorted(refused - flagged):
        print(f"compile() refuses it but no JIT000: {path}: {out['refused'][path]}")
        bad = True
    print("FAIL" if bad else "OK: JIT000 exactly for the files compile() refuses, no traceback")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
