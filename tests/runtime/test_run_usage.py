"""`jitlint run` usage errors: a program that is not there is the user's mistake (exit 2), not a crash."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_a_missing_module_is_a_usage_error_like_a_missing_script(tmp_path, run_jitlint):
    module = run_jitlint("run", "-m", "no_such_module_here", cwd=tmp_path)
    assert module.returncode == 2, module.stdout + module.stderr
    assert "jitlint run: error: no module named 'no_such_module_here'" in module.stderr
    script = run_jitlint("run", "no_such_script.py", cwd=tmp_path)
    assert script.returncode == 2 and "no such file" in script.stderr


def test_a_package_whose_own_import_fails_is_the_programs_crash_not_a_missing_module(tmp_path, run_jitlint):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("import not_installed_dependency\n")
    (tmp_path / "pkg" / "main.py").write_text("print('hi')\n")
    result = run_jitlint("run", "-m", "pkg.main", cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # the program's status is reported, not passed through
    said = result.stdout + result.stderr
    assert "crashed" in said and "not_installed_dependency" in said and "no module named 'pkg.main'" not in said
    assert "importlib" not in result.stderr  # the program's traceback, as `python -m pkg.main` shows it
