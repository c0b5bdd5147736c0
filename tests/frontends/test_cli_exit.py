"""Exit codes say what the run found, however the output is read."""

from __future__ import annotations

import subprocess

import pytest

from conftest import jitlint_exe

pytestmark = pytest.mark.slow


def test_a_reader_that_stops_early_does_not_turn_findings_into_a_clean_exit(tmp_path):
    # enough findings to fill the pipe: `jitlint check . | head -1` under `set -o pipefail`
    body = "".join(f"    print(x + {n})\n" for n in range(3000))
    (tmp_path / "noisy.py").write_text(f"import jax\n\n@jax.jit\ndef f(x):\n{body}    return x\n")
    shell = subprocess.run(["bash", "-c", f"set -o pipefail; '{jitlint_exe()}' check noisy.py | head -1"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert shell.returncode == 1, shell.stderr
    assert shell.stdout.count("\n") == 1 and "JIT501" in shell.stdout
    assert "Traceback" not in shell.stderr and "BrokenPipeError" not in shell.stderr
