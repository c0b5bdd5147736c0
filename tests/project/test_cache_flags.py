"""`--no-cache` means no cache, even with a folder named for it (`--cache-dir`), as in ruff."""

from __future__ import annotations

import pytest

from jitlint.project.project import Project


def test_no_cache_wins_over_a_cache_folder(tmp_path):
    assert Project(tmp_path, cache=False, cache_dir=tmp_path / "elsewhere").cache_dir is None
    assert Project(tmp_path, cache_dir=tmp_path / "elsewhere").cache_dir == tmp_path / "elsewhere"


@pytest.mark.slow
def test_the_command_writes_no_cache_with_both_flags(tmp_path, run_jitlint):
    (tmp_path / "ok.py").write_text("x = 1\n")
    result = run_jitlint("check", "--no-cache", "--cache-dir", "c", "ok.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "c").exists() and not (tmp_path / ".jitlint_cache").exists()
