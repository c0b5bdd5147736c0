"""Rule selection across sources, as ruff resolves it: the config file's selection, then the command
line's over it; within one source the most specific selector decides (on a tie, ignore wins)."""

from __future__ import annotations

import textwrap

import pytest

from jitlint.catalog import CODES
from jitlint.core.config import Overrides, resolve_config, selection_warnings


def _config(tmp_path, table: str, **overrides):
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\n" + textwrap.dedent(table))
    return resolve_config(tmp_path, overrides=Overrides(**overrides))


@pytest.mark.parametrize("flags", [{"extend_select": ("JIT101",)}, {"select": ("JIT101",)}])
def test_the_command_line_selects_what_the_config_ignores(tmp_path, flags):
    config = _config(tmp_path, 'ignore = ["JIT101"]\n', **flags)
    assert config.is_enabled("JIT101")


def test_a_command_line_extend_select_keeps_the_rest_of_the_config(tmp_path):
    config = _config(tmp_path, 'ignore = ["JIT1", "JIT5"]\n', extend_select=("JIT101",))
    assert config.is_enabled("JIT101") and not config.is_enabled("JIT102") and not config.is_enabled("JIT501")
    assert config.is_enabled("JIT401")


def test_a_command_line_ignore_adds_to_the_configured_ignores(tmp_path):
    config = _config(tmp_path, 'ignore = ["JIT4"]\n', ignore=("JIT5",))
    assert not config.is_enabled("JIT401") and not config.is_enabled("JIT501") and config.is_enabled("JIT101")


def test_a_command_line_select_replaces_the_configured_selection(tmp_path):
    config = _config(tmp_path, 'select = ["JIT4"]\n', select=("JIT5",))
    assert config.is_enabled("JIT501") and not config.is_enabled("JIT401")


def test_within_one_source_the_more_specific_selector_wins(tmp_path):
    config = _config(tmp_path, 'select = ["JIT101"]\nignore = ["JIT1"]\n')
    assert config.is_enabled("JIT101") and not config.is_enabled("JIT102")
    tie = _config(tmp_path, 'select = ["JIT1"]\n', ignore=("JIT1",), select=("JIT1",))
    assert not tie.is_enabled("JIT101")


def test_per_file_ignores_still_apply_under_a_command_line_selection(tmp_path):
    config = _config(tmp_path, 'per-file-ignores = { "tests/*" = ["JIT5"] }\n', extend_select=("JIT",))
    assert not config.is_enabled("JIT501", str(tmp_path / "tests" / "a.py"))
    assert config.is_enabled("JIT501", str(tmp_path / "a.py"))


def test_a_selection_that_cancels_out_is_said(tmp_path):
    config = _config(tmp_path, "", select=("JIT101",), ignore=("JIT101",))
    assert selection_warnings(config) == ["`JIT101` selects no rule: every code it matches is ignored"]
    # a selector replaced by a later `select` is not cancelled, and one that keeps a code is not either
    assert selection_warnings(_config(tmp_path, 'select = ["JIT5"]\n', select=("JIT4",))) == []
    assert selection_warnings(_config(tmp_path, "", select=("JIT1",), ignore=("JIT101",))) == []
    assert all(code in CODES for code in ("JIT101", "JIT501"))


@pytest.mark.slow
def test_the_command_prints_the_warning_and_obeys_the_flag(tmp_path, run_jitlint):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT101"]\n')
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import jax

        for step in range(10):
            f = jax.jit(lambda x: x + step)
            f(1.0)
        """))
    assert run_jitlint("check", "train.py", cwd=tmp_path).returncode == 0
    flagged = run_jitlint("check", "--extend-select", "JIT101", "train.py", cwd=tmp_path)
    assert flagged.returncode == 1 and "JIT101" in flagged.stdout and flagged.stderr == ""
    cancelled = run_jitlint("check", "--select", "JIT101", "--ignore", "JIT101", "train.py", cwd=tmp_path)
    assert cancelled.returncode == 0
    assert "warning: `JIT101` selects no rule: every code it matches is ignored" in cancelled.stderr
