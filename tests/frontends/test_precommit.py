"""The pre-commit hooks (.pre-commit-hooks.yaml), through the real `pre-commit` command.

`pre-commit try-repo` installs the hook repository into a fresh virtualenv with pip (from PyPI) and runs
it on a throwaway git repository, as a user's `.pre-commit-config.yaml` would. It builds that virtualenv
in a temporary store on every call (not in PRE_COMMIT_HOME), so this module keeps the calls few.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml  # a dependency of pre-commit

pytestmark = pytest.mark.slow  # real pre-commit: try-repo builds a virtualenv with pip

ROOT = Path(__file__).resolve().parents[2]

BAD = textwrap.dedent("""\
    import jax


    @jax.jit
    def step(x):
        print(x)
        return x
    """)
GOOD = BAD.replace("print(x)", "jax.debug.print('{}', x)")


def notebook(*cells: str) -> str:
    """A notebook as Jupyter writes it: a markdown cell, then these code cells."""
    return json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]}] + [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": text.splitlines(keepends=True)} for text in cells],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5},
        indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# Cell 1 markdown, cell 2 a magic line and the import, cell 3 the jitted function (its print on line 3).
NB_BAD = notebook("%matplotlib inline\nimport jax\n", BAD.replace("import jax\n\n\n", ""))
NB_GOOD = NB_BAD.replace("print(x)", "jax.debug.print('{}', x)")
PYPROJECT = textwrap.dedent("""\
    [tool.jitlint]
    extend-exclude = ["generated"]
    """)


def precommit_exe() -> str:
    exe = Path(sys.executable).with_name("pre-commit")
    assert exe.exists(), "pre-commit is not installed next to this interpreter; run `pip install -e .[dev]`"
    return str(exe)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """git and pre-commit, isolated from the machine's configuration and from any enclosing git hook."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT")) and k != "SKIP"}
    env.update(
        GIT_AUTHOR_NAME="jitlint tests", GIT_AUTHOR_EMAIL="tests@jitlint.invalid",
        GIT_COMMITTER_NAME="jitlint tests", GIT_COMMITTER_EMAIL="tests@jitlint.invalid",
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
        PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
        PRE_COMMIT_COLOR="never",
    )
    return env


def git(*args, cwd: Path, env: dict[str, str]) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory, env) -> Path:
    """This checkout's working tree, committed to a scratch repository.

    try-repo on the checkout itself would carry over edits to tracked files but not new, untracked ones;
    a snapshot of every file git would track tests exactly the code on disk (in CI: the commit)."""
    assert (ROOT / ".git").exists(), f"{ROOT} is not a git checkout"
    snapshot = tmp_path_factory.mktemp("hook-repo")
    # The user's own git settings here (e.g. safe.directory for a checkout owned by someone else).
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT, env=dict(os.environ))
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file():  # skips files deleted but not yet committed
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / rel)
    assert (snapshot / ".pre-commit-hooks.yaml").is_file()
    git("init", "-q", cwd=snapshot, env=env)
    git("add", "-A", cwd=snapshot, env=env)
    git("commit", "-q", "-m", "snapshot", cwd=snapshot, env=env)
    return snapshot


def make_repo(folder: Path, files: dict[str, str], env: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git("init", "-q", cwd=folder, env=env)
    git("add", "-A", cwd=folder, env=env)
    git("commit", "-q", "-m", "init", cwd=folder, env=env)
    return folder


def try_repo(hook_repo: Path, hook_id: str, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run([precommit_exe(), "try-repo", str(hook_repo), hook_id, "--all-files"], cwd=repo,
                            env=env, capture_output=True, text=True, timeout=600)
    assert "An unexpected error has occurred" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def finding_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if ": JIT" in line]


def test_manifest_is_valid():
    result = subprocess.run([precommit_exe(), "validate-manifest", ".pre-commit-hooks.yaml"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["jitlint"]["entry"] == "jitlint check --force-exclude"
    assert hooks["jitlint-fix"]["entry"] == "jitlint check --fix --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True


def test_jitlint_hook_fails_on_a_finding_skips_excluded_files_and_passes_once_fixed(hook_repo, tmp_path, env):
    repo = make_repo(tmp_path, {
        "pyproject.toml": PYPROJECT,
        "train.py": BAD,
        "notebooks/explore.ipynb": NB_BAD,
        # Excluded by [tool.jitlint]; pre-commit still passes it by name, as it passes every Python file.
        "generated/model_pb.py": BAD,
    }, env)
    # Without the exclusion the generated file has a finding of its own.
    own = subprocess.run([str(Path(sys.executable).with_name("jitlint")), "check", "generated/model_pb.py"],
                         cwd=repo, capture_output=True, text=True, timeout=120)
    assert own.returncode == 1 and "generated/model_pb.py:6:5: JIT501" in own.stdout

    failed = try_repo(hook_repo, "jitlint", repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "- hook id: jitlint" in failed.stdout
    assert [line.split(" ", 2)[:2] for line in finding_lines(failed.stdout)] == [
        ["notebooks/explore.ipynb:cell", "3:3:5:"], ["train.py:6:5:", "JIT501"]]
    assert "notebooks/explore.ipynb:cell 3:3:5: JIT501 `print` of traced value `x`" in failed.stdout

    (repo / "train.py").write_text(GOOD, encoding="utf-8")
    (repo / "notebooks/explore.ipynb").write_text(NB_GOOD, encoding="utf-8")
    passed = try_repo(hook_repo, "jitlint", repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # "Passed", not "(no files to check) Skipped": the hook ran, on train.py and the excluded file.
    assert any(line.startswith("jitlint.") and line.endswith("Passed") for line in passed.stdout.splitlines()), \
        passed.stdout
    assert finding_lines(passed.stdout) == []


def test_jitlint_fix_hook_rewrites_the_file(hook_repo, tmp_path, env):
    repo = make_repo(tmp_path, {"train.py": BAD, "explore.ipynb": NB_BAD}, env)
    result = try_repo(hook_repo, "jitlint-fix", repo, env)
    # pre-commit fails a hook that changed files, so the user reviews the fix before committing.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "- files were modified by this hook" in result.stdout
    fixed = (repo / "train.py").read_text(encoding="utf-8")
    assert fixed == BAD.replace("print(x)", 'jax.debug.print("{!s}", x)')
    # the notebook: only the fixed source line changed
    assert (repo / "explore.ipynb").read_text(encoding="utf-8") == NB_BAD.replace(
        '"    print(x)\\n"', '"    jax.debug.print(\\"{!s}\\", x)\\n"')
    assert finding_lines(result.stdout) == []


# ---- the staged file alone, against the whole project (harness.CROSS_FILE)

LOCAL_HOOK = textwrap.dedent("""\
    repos:
      - repo: local
        hooks:
          - id: jitlint
            name: jitlint
            entry: jitlint check --force-exclude
            language: system
            types_or: [python, pyi]
            require_serial: true
    """)


@pytest.fixture
def staged_call(tmp_path, env) -> tuple[Path, dict[str, str]]:
    """A repository where pkg/model.py (committed, not staged) defines the jitted function, and the only
    staged change is the wrong call in pkg/train.py. pre-commit hands jitlint that one file."""
    from harness import CROSS_FILE, write_project

    good = dict(CROSS_FILE, **{"pkg/train.py": CROSS_FILE["pkg/train.py"].replace("widths=[64, 64]", "widths=(64, 64)"),
                               ".pre-commit-config.yaml": LOCAL_HOOK})
    repo = write_project(tmp_path / "repo", good)
    git("init", "-q", cwd=repo, env=env)
    git("add", "-A", cwd=repo, env=env)
    git("commit", "-q", "-m", "init", cwd=repo, env=env)
    write_project(repo, {"pkg/train.py": CROSS_FILE["pkg/train.py"]})
    git("add", "pkg/train.py", cwd=repo, env=env)
    assert git("diff", "--cached", "--name-only", cwd=repo, env=env).split() == ["pkg/train.py"]
    # the local hook's `language: system` finds the jitlint installed next to this interpreter
    return repo, {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}


def test_local_hook_fails_on_a_call_into_an_unstaged_file(staged_call):
    from harness import CROSS_FILE_FINDING

    repo, env = staged_call
    path, line, code = CROSS_FILE_FINDING
    result = subprocess.run([precommit_exe(), "run"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line_.split(" ", 2)[:2] for line_ in finding_lines(result.stdout)] == [[f"{path}:{line}:38:", code]]
    # and as a git hook: the commit is refused
    subprocess.run([precommit_exe(), "install"], cwd=repo, env=env, capture_output=True, check=True, timeout=120)
    commit = subprocess.run(["git", "commit", "-m", "train with a list"], cwd=repo, env=env, capture_output=True,
                            text=True, timeout=300)
    assert commit.returncode != 0 and f"{path}:{line}:38: {code}" in commit.stdout + commit.stderr
    assert git("rev-list", "--count", "HEAD", cwd=repo, env=env).strip() == "1"


def test_try_repo_fails_on_a_call_into_an_unstaged_file(hook_repo, staged_call):
    from harness import CROSS_FILE_FINDING

    repo, env = staged_call
    path, line, code = CROSS_FILE_FINDING
    result = subprocess.run([precommit_exe(), "try-repo", str(hook_repo), "jitlint"], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=600)
    assert "An unexpected error has occurred" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line_.split(" ", 2)[:2] for line_ in finding_lines(result.stdout)] == [[f"{path}:{line}:38:", code]]
