"""`--fix` and `--add-noqa` write where the file system says and never over a newer edit; a path named
twice is linted, reported and fixed once."""

from __future__ import annotations

import json
import os

import pytest

from jitlint.lint.fixing import write_fixed
from jitlint.lint.results import FileResult

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"


def test_a_fix_is_not_written_over_an_edit_saved_since_the_file_was_read(tmp_path):
    path = tmp_path / "model.py"
    path.write_text("the user's newer text\n")
    before, after = FileResult(str(path), []), FileResult(str(path), [])
    result = write_fixed(str(path), BAD.encode(), after, b"fixed\n", [], before)
    assert result is before and "changed since it was read" in result.fix_error
    assert path.read_text() == "the user's newer text\n"


@pytest.mark.slow
def test_fix_through_a_symbolic_link_fixes_the_target_and_keeps_the_link(tmp_path, run_jitlint):
    (tmp_path / "src").mkdir()
    target = tmp_path / "src" / "model.py"
    target.write_text(BAD)
    (tmp_path / "model.py").symlink_to(target)
    result = run_jitlint("check", "--fix", "model.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "model.py").is_symlink() and "jax.debug.print" in target.read_text()


@pytest.mark.slow
def test_fix_of_a_hard_linked_file_keeps_the_links_shared(tmp_path, run_jitlint):
    one = tmp_path / "one.py"
    one.write_text(BAD)
    os.link(one, tmp_path / "two.py")
    assert run_jitlint("check", "--fix", "one.py", cwd=tmp_path).returncode == 0
    assert "jax.debug.print" in (tmp_path / "two.py").read_text()
    assert os.stat(one).st_ino == os.stat(tmp_path / "two.py").st_ino


@pytest.mark.slow
def test_add_noqa_through_a_symbolic_link_keeps_the_link(tmp_path, run_jitlint):
    target = tmp_path / "real.py"
    target.write_text(BAD)
    (tmp_path / "link.py").symlink_to(target)
    added = run_jitlint("check", "--add-noqa", "link.py", cwd=tmp_path)
    assert added.returncode == 0 and "Added 1 noqa directive" in added.stdout, added.stdout + added.stderr
    assert (tmp_path / "link.py").is_symlink() and "print(x)  # noqa: JIT501" in target.read_text()


@pytest.mark.slow
def test_add_noqa_comments_a_notebooks_cells(tmp_path, run_jitlint):
    cells = ["import jax\n", "@jax.jit\ndef f(x):\n    print(x)\n    return x\n"]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}},
          "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": c.splitlines(keepends=True)} for c in cells]}
    (tmp_path / "nb.ipynb").write_text(json.dumps(nb, indent=1))
    added = run_jitlint("check", "--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert added.returncode == 0 and "Added 1 noqa directive" in added.stdout, added.stdout + added.stderr
    source = json.loads((tmp_path / "nb.ipynb").read_text())["cells"][1]["source"]
    assert source[2] == "    print(x)  # noqa: JIT501\n"
    assert run_jitlint("check", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert "Added 0 noqa directives" in run_jitlint("check", "--add-noqa", "nb.ipynb", cwd=tmp_path).stdout


@pytest.mark.slow
@pytest.mark.parametrize("names", [("a.py", "./a.py"), (".", "a.py"), ("a.py", "a.py")])
def test_a_path_named_twice_is_reported_once(tmp_path, run_jitlint, names):
    (tmp_path / "a.py").write_text(BAD)
    report = run_jitlint("check", "--format", "json", *names, cwd=tmp_path)
    assert [d["code"] for d in json.loads(report.stdout)] == ["JIT501"]
    diff = run_jitlint("check", "--diff", *names, cwd=tmp_path)
    assert diff.stdout.count("+++ ") == 1


def test_ctrl_c_while_fixes_are_written_stops_between_files_and_names_those_written(tmp_path, monkeypatch, capsys):
    """SIGINT after the first fixed file is written: no further file is written, and the user is told
    which files already hold fixes (exit 130)."""
    import signal

    from jitlint.frontends import cli
    from jitlint.project import runner

    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(BAD)
    real = runner.write_fixed

    def write_then_interrupt(*args):
        result = real(*args)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, right after this file
        return result

    monkeypatch.setattr(runner, "write_fixed", write_then_interrupt)
    monkeypatch.chdir(tmp_path)
    code = cli.main(["check", "--no-cache", "--jobs", "1", "--fix", "a.py", "b.py", "c.py"])
    err = capsys.readouterr().err
    assert code == 130
    fixed = [name for name in ("a.py", "b.py", "c.py") if "jax.debug.print" in (tmp_path / name).read_text()]
    assert len(fixed) == 1, fixed
    assert "interrupted; fixes were written to 1 file\n" in err and f"  {fixed[0]}" in err
    assert all((tmp_path / name).read_text() == BAD for name in ("a.py", "b.py", "c.py") if name not in fixed)
