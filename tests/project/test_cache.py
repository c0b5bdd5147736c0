"""The cache of `jitlint check` (.jitlint_cache/), through the real command.

A cached run must print exactly what a fresh run prints: after an edit of the file, of the config, of a
file that defines a jitted function the file calls, after a version change, and with a damaged cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import jitlint
from jitlint.project.cache import _write_json, read_file
from jitlint.core.config import Config
from jitlint.project.runner import lint_paths

pytestmark = pytest.mark.slow  # the jitlint command, run again and again on one project

BAD = "import jax\n\n@jax.jit\ndef step(x):\n    print(x)\n    return x\n"
GOOD = "import jax\n\n@jax.jit\ndef step(x):\n    return x * 2\n"
MODEL = textwrap.dedent("""\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("depth",))
    def forward(x, depth):
        return x * depth


    def helper(x, n):
        return x * n
    """)
# No jax word at all: only the project index makes these files worth linting.
TRAIN = "from pkg.model import forward\n\n\ndef run(x):\n    for i in range(10):\n        x = forward(x, depth=i)\n    return x\n"
TUNE = "from pkg import model\n\n\ndef tune(x):\n    for n in range(10):\n        x = model.helper(x, n=n)\n    return x\n"


def has(path: str, line: int, code: str) -> set:
    """Use as `has(...) <= lines(out)`: the finding's location and code, whatever its column."""
    return {(path, line, code)}


def lines(out: str) -> set:
    found = set()
    for text in out.splitlines():
        parts = text.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit():
            found.add((parts[0], int(parts[1]), parts[3].split()[0]))
    return found


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/model.py", MODEL)
    write(tmp_path, "pkg/train.py", TRAIN)
    write(tmp_path, "pkg/tune.py", TUNE)
    return tmp_path


def check(run_jitlint, root: Path, *args):
    """The real command, twice when the cache is in play: both must agree with a run without cache."""
    result = run_jitlint("check", *args, ".", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def fresh(run_jitlint, root: Path, *args):
    return check(run_jitlint, root, "--no-cache", *args)


def cache_files(root: Path) -> list[Path]:
    return sorted((root / ".jitlint_cache").glob("*/*.json"))


def test_cached_run_prints_the_same(project, run_jitlint):
    first = check(run_jitlint, project)
    assert "bad.py:5:5: JIT501" in first and has("pkg/train.py", 6, "JIT301") <= lines(first)
    names = {p.name for p in cache_files(project)}
    assert "facts.json" in names and any(n.startswith("lint-") for n in names)
    assert check(run_jitlint, project) == first == fresh(run_jitlint, project)
    assert (project / ".jitlint_cache" / "CACHEDIR.TAG").is_file()
    assert (project / ".jitlint_cache" / ".gitignore").read_text().strip().endswith("*")
    assert not list((project / ".jitlint_cache").rglob("*.jitlint-tmp"))


def test_no_cache_and_cache_dir(project, run_jitlint, tmp_path_factory):
    fresh(run_jitlint, project)
    assert not (project / ".jitlint_cache").exists()
    elsewhere = tmp_path_factory.mktemp("cache")
    out = check(run_jitlint, project, "--cache-dir", str(elsewhere))
    assert not (project / ".jitlint_cache").exists() and list(elsewhere.glob("*/facts.json"))
    assert check(run_jitlint, project, "--cache-dir", str(elsewhere)) == out


def test_cache_lives_next_to_the_config(project, run_jitlint):
    write(project, "pyproject.toml", "[tool.jitlint]\nignore = []\n")
    sub = project / "pkg"
    result = run_jitlint("check", ".", cwd=sub)
    assert has("train.py", 6, "JIT301") <= lines(result.stdout)
    assert (project / ".jitlint_cache").is_dir() and not (sub / ".jitlint_cache").exists()


def test_content_change_invalidates(project, run_jitlint):
    assert "bad.py:5:5: JIT501" in check(run_jitlint, project)
    write(project, "bad.py", GOOD)
    out = check(run_jitlint, project)
    assert "bad.py" not in out and out == fresh(run_jitlint, project)
    write(project, "bad.py", "\n" + BAD)  # the finding moves down a line
    out = check(run_jitlint, project)
    assert "bad.py:6:5: JIT501" in out and out == fresh(run_jitlint, project)


def test_config_change_invalidates(project, run_jitlint):
    assert "JIT501" in check(run_jitlint, project)
    out = check(run_jitlint, project, "--ignore", "JIT501")
    assert "JIT501" not in out and "JIT301" in out
    write(project, "pyproject.toml", '[tool.jitlint]\nper-file-ignores = { "pkg/*" = ["JIT3"] }\n')
    out = check(run_jitlint, project)
    assert "JIT501" in out and "JIT301" not in out and out == fresh(run_jitlint, project)
    (project / "pyproject.toml").unlink()
    assert check(run_jitlint, project) == fresh(run_jitlint, project)


def test_editing_the_defining_file_updates_the_callers(project, run_jitlint):
    """train.py and tune.py are unchanged, but what they call changed: their cached results must not be."""
    before = check(run_jitlint, project)
    assert has("pkg/train.py", 6, "JIT301") <= lines(before) and "tune.py" not in before
    # forward loses its static parameter: the loop-varying static argument is gone.
    write(project, "pkg/model.py", MODEL.replace('@partial(jax.jit, static_argnames=("depth",))', "@jax.jit"))
    out = check(run_jitlint, project)
    assert "train.py" not in out and out == fresh(run_jitlint, project)
    # helper becomes jitted with a static `n`: tune.py, pre-filtered until now, has a finding.
    write(project, "pkg/model.py", MODEL.replace(
        "def helper", '@partial(jax.jit, static_argnames=("n",))\ndef helper'))
    out = check(run_jitlint, project)
    assert has("pkg/tune.py", 6, "JIT301") <= lines(out) and has("pkg/train.py", 6, "JIT301") <= lines(out)
    assert out == fresh(run_jitlint, project)
    # A re-export on the way: callers of `pkg.forward` resolve through pkg/__init__.py.
    write(project, "pkg/train.py", TRAIN.replace("from pkg.model import forward", "from pkg import forward"))
    out = check(run_jitlint, project)
    assert "train.py" not in out
    write(project, "pkg/__init__.py", "from .model import forward\n")
    out = check(run_jitlint, project)
    assert has("pkg/train.py", 6, "JIT301") <= lines(out) and out == fresh(run_jitlint, project)


def test_version_change_invalidates(project, monkeypatch):
    cache = project / "cache"
    monkeypatch.chdir(project)
    first = lint_paths(["."], Config(), cache_dir=cache)
    again = lint_paths(["."], Config(), cache_dir=cache)
    assert again.stats.indexed == 0 and again.stats.cached == first.stats.analysed > 0
    monkeypatch.setattr(jitlint, "__version__", "99.0.0")
    other = lint_paths(["."], Config(), cache_dir=cache)
    assert other.stats.indexed == first.stats.indexed and other.stats.cached == 0
    assert other.findings == first.findings
    assert [p.name.split("-")[0] for p in cache.iterdir() if p.is_dir()] == ["99.0.0"]  # the old one is gone


def _damage_each(root: Path, damage) -> None:
    for path in cache_files(root):
        damage(path)


def _replace_entries(path: Path, change) -> None:
    data = read_file(path)
    for entry in data["entries"].values():
        change(entry)
    _write_json(path, data)  # signed: the records themselves are what is damaged


def _edit_text(path: Path, old: str, new: str) -> None:
    _write_json(path, json.loads(json.dumps(read_file(path), separators=(",", ":")).replace(old, new)))


DAMAGES = {
    "garbage": lambda p: p.write_bytes(b"\x00\xffnot json at all{{{"),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "wrong-shape": lambda p: _write_json(p, [1, 2, 3]),
    "unsigned": lambda p: p.write_text(json.dumps(read_file(p))),
    "flipped-bit": lambda p: p.write_bytes(p.read_bytes().replace(b"print", b"prinu")),
    "foreign-version": lambda p: _edit_text(p, '"engine":"', '"engine":"0.0.0-other'),
    "foreign-format": lambda p: _edit_text(p, '"format":1', '"format":99'),
    "bad-entries": lambda p: _replace_entries(p, lambda e: e.update(
        facts={"refs": 5, "error": None, "suppressed": "no", "trace": 1, "summary": None},
        findings=[{"line": "x"}], hits=[])),
    "bad-summaries": lambda p: _replace_entries(p, lambda e: e.get("facts", {}).get("summary") and e["facts"][
        "summary"].update(imports={"forward": 5}, jitted={"forward": {"qualname": 1}})),
    "findings-for-other-content": lambda p: _replace_entries(p, lambda e: e.update(hash="0" * 40)),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=str)
def test_damaged_cache_is_ignored_and_rebuilt(project, run_jitlint, damage):
    expected = fresh(run_jitlint, project)
    check(run_jitlint, project)
    _damage_each(project, DAMAGES[damage])
    assert check(run_jitlint, project) == expected
    for path in cache_files(project):  # rewritten whole, and trusted again
        data = read_file(path)
        assert data["format"] == 1 and data["engine"].startswith(jitlint.__version__)
    assert check(run_jitlint, project) == expected


def test_entry_of_a_deleted_file_is_dropped(project, run_jitlint):
    check(run_jitlint, project)
    (project / "bad.py").unlink()
    out = check(run_jitlint, project)
    assert "bad.py" not in out
    for path in cache_files(project):
        assert "bad.py" not in read_file(path)["entries"]


def test_unwritable_cache_warns_and_still_lints(project, run_jitlint):
    blocker = project / "blocker"
    blocker.write_text("a file where the cache folder should be")
    result = run_jitlint("check", "--cache-dir", str(blocker / "sub"), ".", cwd=project)
    assert result.returncode == 1 and "JIT501" in result.stdout
    assert "cannot write the cache" in result.stderr and "Traceback" not in result.stderr


def test_fully_cached_run_parses_nothing_and_skips_libcst(project, monkeypatch):
    code = ("import sys\nfrom jitlint.frontends.cli import main\nrc = main(sys.argv[1:])\n"
            "sys.stderr.write('LIBCST=%s\\n' % ('libcst' in sys.modules))\nsys.exit(rc)")
    args = [sys.executable, "-c", code, "check", "--statistics", "."]
    env = {k: v for k, v in os.environ.items() if k != "JITLINT_CONFIG"}
    cold = subprocess.run(args, cwd=project, capture_output=True, text=True, env=env, timeout=120)
    warm = subprocess.run(args, cwd=project, capture_output=True, text=True, env=env, timeout=120)
    assert "LIBCST=True" in cold.stderr and "LIBCST=False" in warm.stderr, warm.stderr
    assert warm.stdout == cold.stdout and "JIT301" in warm.stdout
    # pass 1 did not run either: the in-process run reads every file's facts from the cache
    monkeypatch.chdir(project)  # the same paths as the command's (the cache is keyed by the reported path)
    stats = lint_paths(["."], Config(), cache_dir=project / ".jitlint_cache").stats
    assert stats.indexed == 0 and stats.analysed == 0 and stats.cached > 0


MEMO_UTIL = "import functools\n\n\ndef memo(fn):\n    return functools.lru_cache(maxsize=None)(fn)\n"
MEMO_LOOP = textwrap.dedent("""\
    import jax

    from util import memo


    @memo
    def make_step(scale):
        return jax.jit(lambda x: x * scale)


    def run(xs):
        for x in xs:
            x = make_step(2)(x)
        return x
    """)


def test_a_result_that_asked_whether_another_file_memoizes_is_cached_and_invalidated(tmp_path, run_jitlint,
                                                                                      monkeypatch):
    """loop.py's answer depends on whether util.memo memoizes (a jit under a memoized factory runs once
    per key): the result is cached, and re-linted when util.py stops memoizing."""
    write(tmp_path, "util.py", MEMO_UTIL)
    write(tmp_path, "loop.py", MEMO_LOOP)
    assert "JIT101" not in check(run_jitlint, tmp_path)
    monkeypatch.chdir(tmp_path)
    stats = lint_paths(["."], Config(), cache_dir=tmp_path / ".jitlint_cache").stats
    assert stats.analysed == 0 and stats.cached == 1
    write(tmp_path, "util.py", "def memo(fn):\n    return fn\n")
    out = check(run_jitlint, tmp_path)
    assert has("loop.py", 8, "JIT101") <= lines(out) and out == fresh(run_jitlint, tmp_path)
