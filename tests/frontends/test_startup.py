"""A fast start: `jitlint --version` and a fully cached `jitlint check` never import libcst; the code
catalog they use instead matches the rule registry; the progress bar shows on terminals only."""

from __future__ import annotations

import io
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import jitlint_exe
from harness import FIXTURES
from jitlint.catalog import NAMES, unknown_selectors
from jitlint.output.progress import Progress
from jitlint.rules.registry import all_rules


def test_catalog_is_generated_from_the_rules_and_runtime_codes():
    from jitlint.catalog.codes import CODES
    from jitlint.frontends.docs import CATALOG, catalog_source
    from jitlint.runtime.codes import RUNTIME_CODES

    assert CATALOG.read_text(encoding="utf-8") == catalog_source(), "run `jitlint docs`"
    expected = {"JIT000": "file-not-linted", **{r.code: r.name for r in all_rules()},
                **{c.code: c.name for c in RUNTIME_CODES}}
    assert NAMES == expected
    assert {code for code, entry in CODES.items() if entry[1] == "runtime"} == {c.code for c in RUNTIME_CODES}


def test_selectors():
    assert unknown_selectors(["JIT", "JIT5", "JIT501", "JIT000", "JIT9", "JIT901", "JIT907", "ALL"]) == []
    assert unknown_selectors(["JIT999", "E501", "JIT7", "JIT908"]) == ["JIT999", "E501", "JIT7", "JIT908"]


def imported_modules(*args, cwd=None) -> tuple[set[str], subprocess.CompletedProcess]:
    """Run the installed `jitlint` script under `python -X importtime`: the modules it imported."""
    env = {k: v for k, v in os.environ.items() if k != "JITLINT_CONFIG"}
    result = subprocess.run([sys.executable, "-X", "importtime", jitlint_exe(), *args], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=120)
    modules = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
               if line.startswith("import time:")}
    return modules, result


@pytest.mark.slow
def test_version_does_not_import_libcst():
    modules, result = imported_modules("--version")
    assert result.returncode == 0 and result.stdout.startswith("jitlint ")
    assert "jitlint.frontends.cli" in modules and "libcst" not in modules


@pytest.mark.slow
def test_cached_check_does_not_import_libcst(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    cold, first = imported_modules("check", "--statistics", ".", cwd=tmp_path)
    warm, second = imported_modules("check", "--statistics", ".", cwd=tmp_path)
    assert "libcst" in cold and "libcst" not in warm
    assert second.stdout == first.stdout and "JIT401" in second.stdout and second.returncode == 1
    shown, third = imported_modules("check", "--select", "JIT5", ".", cwd=tmp_path)  # another config
    assert "libcst" in shown and "JIT501" in third.stdout  # not cached yet: linted
    again, _ = imported_modules("check", "--select", "JIT5", ".", cwd=tmp_path)
    assert "libcst" not in again
    # SARIF's rule metadata (names, help pages) comes from the generated catalogue, not the rules.
    sarif, fourth = imported_modules("check", "--select", "JIT5", "--format", "sarif", "-o", "r.sarif", ".", cwd=tmp_path)
    assert "libcst" not in sarif and "jitlint.catalog.pages" in sarif and fourth.returncode == 1
    assert '"name": "print-traced-value"' in (tmp_path / "r.sarif").read_text(encoding="utf-8")


@pytest.mark.slow
def test_progress_bar_draws_and_erases_itself():
    out = io.StringIO()
    bar = Progress(out, delay=0, interval=0)
    bar.start("linting", 4)
    bar.advance(2)
    bar.advance(2)
    bar.done()
    text = out.getvalue()
    assert "\rlinting  [" in text and "2/4 files" in text and "4/4 files" in text
    assert text.endswith("\r\x1b[K")


@pytest.mark.slow
def test_progress_bar_waits_before_drawing():
    out = io.StringIO()
    bar = Progress(out, delay=60)
    bar.start("linting", 4)
    bar.advance(4)
    bar.done()
    assert out.getvalue() == ""


def _run_with_stderr_on_a_terminal(args, cwd) -> tuple[str, str]:
    controller, terminal = pty.openpty()
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen([jitlint_exe(), *args], cwd=cwd, stdout=stdout, stderr=terminal,
                                stdin=subprocess.DEVNULL)
        os.close(terminal)
        seen = b""
        while True:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal closed: the command is done
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=120)
        os.close(controller)
        stdout.seek(0)
        return stdout.read().decode(), seen.decode(errors="replace")


@pytest.mark.slow
def test_progress_on_a_terminal_only_and_not_with_quiet(tmp_path):
    for copy in "abc":  # a run long enough to pass the bar's delay
        shutil.copytree(FIXTURES, tmp_path / copy)
    args = ["check", "--no-cache", "-j", "1", "--exit-zero", "."]
    stdout, terminal = _run_with_stderr_on_a_terminal(args, tmp_path)
    assert "files" in terminal and "\x1b[K" in terminal and "\r" in terminal
    assert "\r" not in stdout and "[" not in stdout.splitlines()[0]
    _, quiet = _run_with_stderr_on_a_terminal([*args, "-q"], tmp_path)
    assert "files" not in quiet
    piped = subprocess.run([jitlint_exe(), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert piped.stderr == "" and piped.stdout == stdout
