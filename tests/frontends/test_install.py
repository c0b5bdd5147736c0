"""A real, non-editable install in a fresh virtualenv: what a user gets from `pip install .`.

The editable install the other tests use maps `rules/` onto `jitlint.rules` through a finder hook;
this checks that a built wheel ships the whole package (the rules, the runtime mode) and that the
README's first command really works.
"""

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args, cwd=None, timeout=600):
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow  # builds a wheel and installs it in a fresh virtualenv
def test_wheel_in_a_fresh_venv(tmp_path):
    wheels = tmp_path / "wheels"
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, ROOT)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("jitlint-*.whl")

    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    installed = run(python, "-m", "pip", "install", "-q", wheel)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    exe = env / "bin" / "jitlint"

    # The package is the wheel's, not this checkout's.
    where = run(python, "-c", "import jitlint.rules, jitlint.runtime, jitlint; print(jitlint.__file__)", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert str(env) in where.stdout

    check = run(exe, "check", ROOT / "examples")
    assert check.returncode == 1, check.stdout + check.stderr
    codes = {line.split()[1] for line in check.stdout.splitlines() if ": JIT" in line}
    assert {"JIT101", "JIT201", "JIT302", "JIT401", "JIT501", "JIT601"} <= codes

    as_json = run(exe, "check", "--format", "json", ROOT / "examples")
    data = json.loads(as_json.stdout)
    assert data and all({"path", "line", "col", "end_line", "end_col", "code", "message", "severity"} <= set(d)
                        for d in data)

    # SARIF's rule help comes from the generated catalogue, which the wheel must ship.
    sarif = json.loads(run(exe, "check", "--format", "sarif", ROOT / "examples").stdout)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules and all(r["help"]["markdown"].startswith(f"# {r['id']}: {r['name']}") for r in rules)

    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    pass\n", encoding="utf-8")
    syntax = run(exe, "check", broken)
    assert syntax.returncode == 1 and "JIT000" in syntax.stdout and "Traceback" not in syntax.stderr


def test_readme_install_lines_work_from_a_checkout():
    """jitlint is installed from a checkout: every `pip install` the README and the docs show names the
    checkout (`.`) and only extras pyproject.toml declares, never a `jitlint` package from an index."""
    import re
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    shown = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for spec in re.findall(r"pip install (?:-[-\w]+ )*(?:flake8 )?\"?([./\w-]*jitlint[\w\[\],]*|\.[\w\[\],]*)\"?",
                               doc.read_text()):
            shown.append((doc.name, spec))
    assert shown, "the README shows how to install jitlint"
    for doc, spec in shown:
        name, _, extra = spec.partition("[")
        assert name.startswith("."), f"{doc}: `pip install {spec}` installs from an index, where jitlint is not"
        assert all(e in extras for e in extra.rstrip("]").split(",") if e), f"{doc}: unknown extra in {spec}"
