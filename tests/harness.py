"""The fixture harness: each fixture marks its expected findings inline with `# expect: CODE[, CODE]`.

A test fails on any expected finding that is missing *and* on any finding that is not expected.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_FIXTURES = FIXTURES / "projects"  # one folder per small multi-file project
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JIT\d{3}(?:\s*,\s*JIT\d{3})*)")


def expected_findings(source: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            for code in re.split(r"\s*,\s*", m.group("codes")):
                out.add((lineno, code))
    return out


def project_fixtures() -> list[Path]:
    """The project fixtures: each folder under tests/fixtures/projects/."""
    return sorted(p for p in PROJECT_FIXTURES.iterdir() if p.is_dir())


def fixture_files() -> list[Path]:
    """Single-file fixtures (project fixtures are folders and have their own tests)."""
    return sorted(p for p in FIXTURES.glob("*.py"))


def compare(expected: set[tuple[int, str]], actual: set[tuple[int, str]]) -> str:
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    lines = []
    if missing:
        lines.append("missing (expected but not reported): " + ", ".join(f"line {l} {c}" for l, c in missing))
    if extra:
        lines.append("extra (reported but not expected): " + ", ".join(f"line {l} {c}" for l, c in extra))
    return "\n".join(lines)


# ---- running fixtures under real JAX (shared by the tests that hold fixtures to JAX's behaviour)


def innermost_line(exc: BaseException, path: Path) -> int | None:
    """The line of the innermost traceback frame in `path`: for errors raised deep inside jax.numpy
    (slicing, `jnp.zeros`, `.item()`), jax frames sit below the user's line, so not `tb[-1]`."""
    import traceback

    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line


def describe_exception(exc: BaseException) -> str:
    first = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:160]}"


# ---- a project whose one file calls a jitted function of another wrongly (the Project tests, every front end)

CROSS_FILE = {
    "pyproject.toml": '[tool.jitlint]\nignore = ["JIT901"]  # a runtime code: valid for check, run, flake8, LSP\n',
    "pkg/__init__.py": "",
    "pkg/model.py": (
        "from functools import partial\n"
        "\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "\n"
        "\n"
        '@partial(jax.jit, static_argnames=("widths",))\n'
        "def train_step(params, widths):\n"
        "    for _ in widths:\n"
        "        params = jnp.tanh(params)\n"
        "    return params\n"
    ),
    "pkg/train.py": (
        "import jax.numpy as jnp\n"
        "\n"
        "from pkg.model import train_step\n"
        "\n"
        "\n"
        "def train():\n"
        "    params = jnp.ones(3)\n"
        "    return train_step(params, widths=[64, 64])\n"
    ),
    "run_train.py": "from pkg.train import train\n\ntrain()\n",
}
CROSS_FILE_FINDING = ("pkg/train.py", 8, "JIT304")  # a list for a static argument: ValueError at the call


def write_project(folder: Path, files: dict[str, str] = CROSS_FILE) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


# ---- snapshots: the whole of every finding (positions, code, severity, message, the fix's result)

SNAPSHOTS = Path(__file__).parent / "snapshots"


def copied_project(tmp_path: Path, name: str) -> Path:
    """A copy of tests/fixtures/projects/NAME under tmp_path, configured to select every rule."""
    import shutil

    copy = tmp_path / name
    shutil.copytree(PROJECT_FIXTURES / name, copy)
    (copy / "pyproject.toml").write_text("[tool.jitlint]\nselect = [\"ALL\"]\n", encoding="utf-8")
    return copy


@contextlib.contextmanager
def imported(project: str, *modules: str):
    """The modules of tests/fixtures/projects/PROJECT imported as its scripts import each other (its folder
    first on sys.path), in order; removed from sys.modules afterwards."""
    import importlib
    import sys

    folder = str(PROJECT_FIXTURES / project)
    sys.path.insert(0, folder)
    try:
        yield [importlib.import_module(m) for m in modules]
    finally:
        sys.path.remove(folder)
        for m in modules:
            sys.modules.pop(m, None)


def snapshot_text(findings, sources: dict[str, str], title: str) -> str:
    """Findings as reviewable text: `line:col-end_line:end_col CODE severity`, the message, its witness, and for a fix its
    title and the lines it changes (a unified diff of the file with that fix alone applied)."""
    import difflib

    from jitlint.core.fixes import apply_edits

    out = [f"# {title}", "# Regenerate with `pytest tests/rules/test_fixtures.py --update-snapshots`, then review the diff.", ""]
    for f in sorted(findings):
        out.append(f"{f.path}:{f.line}:{f.col}-{f.end_line}:{f.end_col} {f.code} {f.severity.value}")
        out.append(f"    {f.message}")
        for step in f.witness:  # the path that makes it true, entry first
            out.append(f"    via {step.path}:{step.line}:{step.col} {step.message}")
        if f.fix is not None:
            source = sources[f.path]
            fixed = apply_edits(source, f.fix.edits)
            out.append(f"    fix ({f.fix.applicability.value}): {f.fix.title}")
            diff = difflib.unified_diff(source.splitlines(), fixed.splitlines(), lineterm="", n=0)
            out += [f"    {line}" for line in diff if not line.startswith(("---", "+++"))]
    return "\n".join(out) + "\n"


def check_snapshot(name: str, text: str, update: bool) -> str:
    """'' when `text` is the committed snapshot `name` (or it was just rewritten); else what differs."""
    import difflib

    path = SNAPSHOTS / name
    if update:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return ""
    if not path.is_file():
        return f"no snapshot {path}: run `pytest tests/rules/test_fixtures.py --update-snapshots`"
    committed = path.read_text(encoding="utf-8")
    if committed == text:
        return ""
    return "\n".join(difflib.unified_diff(committed.splitlines(), text.splitlines(), f"{name} (committed)",
                                          f"{name} (now)", lineterm=""))


_COUNTING = """\
import collections, json, sys
import jax
counts = collections.Counter()
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: counts.update([kw.get("fun_name")])
    if event == "/jax/core/compile/backend_compile_duration" else None)
exec(compile(sys.stdin.read(), sys.argv[1], "exec"), {"__name__": "__main__"})
print(json.dumps(counts))
"""


def script_compiles(script: str, filename: str) -> dict[str, int]:
    """Run `script` as `python filename` runs it (a fresh interpreter, JAX on CPU) and count the XLA compiles
    of each function it jits, by JAX's `fun_name` (`jit(step)`)."""
    import json  # (only the tests under JAX need these)
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _COUNTING, filename], input=script, capture_output=True,
                          text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": ""})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
