"""What `jitlint check` writes goes where the user's file system says: through links, into streams, and
never over an edit made while it ran (jitlint.core.writing is the one write path)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

pytestmark = pytest.mark.slow

BAD = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"


def test_an_output_file_that_is_a_link_stays_a_link(tmp_path, run_jitlint):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "reports").mkdir()
    (tmp_path / "report.json").symlink_to(tmp_path / "reports" / "latest.json")
    result = run_jitlint("check", "--format", "json", "-o", "report.json", "bad.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "report.json").is_symlink()
    assert [d["code"] for d in json.loads((tmp_path / "reports" / "latest.json").read_text())] == ["JIT501"]


def test_output_to_dev_stdout_redirected_to_a_file_leaves_dev_stdout_alone(tmp_path):
    from conftest import jitlint_exe

    (tmp_path / "bad.py").write_text(BAD)
    was_link = os.path.islink("/dev/stdout")
    with open(tmp_path / "report.json", "wb") as out:
        result = subprocess.run([jitlint_exe(), "check", "--format", "json", "-o", "/dev/stdout", "bad.py"],
                                cwd=tmp_path, stdout=out, stderr=subprocess.PIPE, timeout=120)
    assert result.returncode == 1, result.stderr
    assert os.path.islink("/dev/stdout") == was_link
    assert [d["code"] for d in json.loads((tmp_path / "report.json").read_text())] == ["JIT501"]
