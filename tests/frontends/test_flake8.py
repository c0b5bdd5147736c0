"""The flake8 plugin, through flake8 itself: flake8's Application in this process (as the `flake8` command
runs it: the plugin found through its entry point, the same options and output), and for what is about the
command itself (the installed executable, `-j`, stdin, the whole project) the real `flake8` command, marked slow."""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import jitlint_exe
from harness import fixture_files, project_fixtures

ROOT = Path(__file__).resolve().parents[2]
FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+[0-9]+) (?P<text>.*)$")

BAD = textwrap.dedent("""\
    import jax


    @jax.jit
    def step(x):
        print(x)
        return x
    """)
BAD_LOGGING = textwrap.dedent("""\
    import logging

    import jax


    @jax.jit
    def step(x):
        logging.info("x=%s", x)
        return x
    """)


def flake8_exe() -> str:
    exe = Path(sys.executable).with_name("flake8")
    assert exe.exists(), "flake8 is not installed next to this interpreter; run `pip install -e .[dev]`"
    return str(exe)


def flake8_command(*args, cwd, input=None) -> subprocess.CompletedProcess:
    """The real `flake8` executable installed next to this interpreter."""
    return subprocess.run([flake8_exe(), *map(str, args)], cwd=cwd, input=input, capture_output=True,
                          text=True, timeout=120)


def flake8(*args, cwd) -> subprocess.CompletedProcess:
    """flake8 in this process: its Application run on `args` in `cwd`, as the `flake8` command would run it,
    with stdout, stderr and the exit code it would have. Serial (`-j 1`) unless `args` ask for jobs: forking
    the test process is the real command's job (`flake8_command`); so is stdin, which flake8 reads only once
    per process."""
    from flake8.main.application import Application

    assert "-" not in map(str, args), "stdin: use flake8_command"
    out, err = io.BytesIO(), io.BytesIO()
    stdout, stderr = io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8")
    app = Application()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            app.run(["--jobs", "1", *map(str, args)])
            code = app.exit_code()
        except SystemExit as exc:  # argparse's errors and --version
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            stdout.flush()
            stderr.flush()
    return subprocess.CompletedProcess(["flake8", *map(str, args)], code, out.getvalue().decode("utf-8"),
                                       err.getvalue().decode("utf-8"))


def reported(result: subprocess.CompletedProcess) -> set[tuple[str, int, int, str]]:
    """(path, line, col, code) of every finding flake8 printed; any other stdout line is an error."""
    out = set()
    for line in result.stdout.splitlines():
        m = FLAKE8_LINE.match(line)
        assert m, f"unexpected flake8 output line: {line!r}\nstderr: {result.stderr}"
        out.add((m["path"], int(m["line"]), int(m["col"]), m["code"]))
    return out


def codes(result: subprocess.CompletedProcess) -> set[str]:
    return {code for _, _, _, code in reported(result)}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ parity with the jitlint command


def _without_noqa(fixture: Path, folder: Path) -> Path:
    """flake8 and jitlint read `# noqa` differently by design (flake8 owns noqa under flake8; see
    docs/integrations.md). Parity is about findings, so a fixture with noqa comments is compared on a
    copy (same name, same positions) with them switched off."""
    data = fixture.read_bytes()
    if not re.search(rb"noqa", data, re.IGNORECASE):
        return fixture
    copy = folder / fixture.name
    copy.write_bytes(re.sub(rb"(?i)noqa", b"n_qa", data))
    return copy


@pytest.fixture(scope="module")
def both_tools_on_fixtures(tmp_path_factory):
    """Each tool runs once over all fixtures; the per-fixture tests compare the results."""
    folder = tmp_path_factory.mktemp("fixtures-without-noqa")
    targets = {fixture: _without_noqa(fixture, folder) for fixture in fixture_files()}
    paths = [str(p) for p in targets.values()]
    # --isolated on both: the project's own settings (e.g. setup.cfg excluding tests/fixtures) stay out.
    f8 = flake8("--isolated", "--select", "JIT", *paths, cwd=ROOT)
    assert f8.returncode in (0, 1), f8.stdout + f8.stderr
    jl = subprocess.run([jitlint_exe(), "check", "--isolated", "--select", "ALL", "--format", "json", *paths],
                        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert jl.returncode in (0, 1), jl.stdout + jl.stderr
    from_jitlint = {(f["path"], f["line"], f["col"], f["code"]) for f in json.loads(jl.stdout)}
    assert from_jitlint, "jitlint reports nothing on the fixtures, so the comparison would prove nothing"
    return targets, reported(f8), from_jitlint


@pytest.mark.parametrize("fixture", fixture_files(), ids=lambda p: p.name)
def test_flake8_reports_what_jitlint_reports(fixture, both_tools_on_fixtures):
    targets, from_flake8, from_jitlint = both_tools_on_fixtures
    path = str(targets[fixture])
    got = {f for f in from_flake8 if f[0] == path}
    want = {f for f in from_jitlint if f[0] == path}
    assert got == want, (f"only flake8: {sorted(got - want)}\nonly jitlint: {sorted(want - got)}")


@pytest.mark.parametrize("project", [p.name for p in project_fixtures()])
def test_flake8_sees_calls_into_other_files(project):
    """Cross-file findings (a static parameter defined in another file) need the project index; the
    plugin builds it from the files flake8 is asked to check, so flake8 reports them like jitlint."""
    folder = ROOT / "tests" / "fixtures" / "projects" / project
    f8 = flake8("--isolated", "--select", "JIT", ".", cwd=folder)
    jl = subprocess.run([jitlint_exe(), "check", "--isolated", "--select", "ALL", "--format", "json", "."],
                        cwd=folder, capture_output=True, text=True, timeout=300)
    from_jitlint = {(str(Path(f["path"])), f["line"], f["col"], f["code"]) for f in json.loads(jl.stdout)}
    from_flake8 = {(str(Path(p)), line, col, code) for p, line, col, code in reported(f8)}
    assert from_jitlint and from_flake8 == from_jitlint, (
        f"only flake8: {sorted(from_flake8 - from_jitlint)}\nonly jitlint: {sorted(from_jitlint - from_flake8)}")


def test_columns_are_one_based_and_count_code_points(tmp_path):
    # A non-ASCII character before the finding on the same line: columns count code points.
    src = BAD.replace("    print(x)", '    s = "ñé"; print(x)')
    write(tmp_path, "cols.py", src)
    line = src.splitlines()[5]
    expected_col = line.index("print") + 1
    result = flake8("--select", "JIT", "cols.py", cwd=tmp_path)
    assert result.returncode == 1
    assert reported(result) == {("cols.py", 6, expected_col, "JIT501")}
    assert expected_col == 15  # 4 spaces + `s = "ñé"; ` (10 code points), then `print`


# ------------------------------------------------------------------ flake8's own selection machinery


def test_plugin_codes_are_on_by_default(tmp_path):
    write(tmp_path, "bad.py", BAD)
    result = flake8("bad.py", cwd=tmp_path)
    assert result.returncode == 1
    assert reported(result) == {("bad.py", 6, 5, "JIT501")}


def test_select_other_codes_hides_jit(tmp_path):
    write(tmp_path, "bad.py", BAD.replace("import jax\n", "import jax\nimport os\n"))
    result = flake8("--select", "E,F", "bad.py", cwd=tmp_path)
    assert codes(result) == {"F401"}
    result = flake8("--select", "E", "bad.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""


def test_extend_select(tmp_path):
    write(tmp_path, "bad.py", BAD.replace("import jax\n", "import jax\nimport os\n"))
    result = flake8("--select", "F", "--extend-select", "JIT", "bad.py", cwd=tmp_path)
    assert codes(result) == {"F401", "JIT501"}
    result = flake8("--select", "F", "--extend-select", "JIT502", "bad.py", cwd=tmp_path)
    assert codes(result) == {"F401"}


def test_ignore_and_extend_ignore(tmp_path):
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "b.py", BAD_LOGGING)
    assert codes(flake8("a.py", "b.py", cwd=tmp_path)) == {"JIT501", "JIT502"}
    assert codes(flake8("--ignore", "JIT501", "a.py", "b.py", cwd=tmp_path)) == {"JIT502"}
    assert codes(flake8("--extend-ignore", "JIT502", "a.py", "b.py", cwd=tmp_path)) == {"JIT501"}
    result = flake8("--extend-ignore", "JIT5", "a.py", "b.py", cwd=tmp_path)  # a prefix
    assert result.returncode == 0 and result.stdout == ""


def test_per_file_ignores(tmp_path):
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "scripts/b.py", BAD)
    result = flake8("--per-file-ignores", "scripts/*.py:JIT501", "a.py", "scripts/b.py", cwd=tmp_path)
    assert reported(result) == {("a.py", 6, 5, "JIT501")}


def test_noqa_is_flake8s(tmp_path):
    lines = BAD.splitlines()
    body = {
        "exact": "    print(x)  # noqa: JIT501",
        "prefix": "    print(x)  # noqa: JIT5",
        "no_space": "    print(x)  # noqa:JIT501",
        "other_code": "    print(x)  # noqa: E501",
        "other_jit_code": "    print(x)  # noqa: JIT502",
        "blanket": "    print(x)  # noqa",
        # flake8's quirk: a code list without digits is not a code list, so this is a blanket noqa.
        "letters_only": "    print(x)  # noqa: JIT",
    }
    for name, line in body.items():
        write(tmp_path, f"{name}.py", "\n".join([*lines[:5], line, *lines[6:]]) + "\n")
    result = flake8("--select", "JIT", *(f"{n}.py" for n in body), cwd=tmp_path)
    assert reported(result) == {("other_code.py", 6, 5, "JIT501"), ("other_jit_code.py", 6, 5, "JIT501")}
    # The plugin suppresses nothing itself: with noqa disabled every line is reported.
    result = flake8("--select", "JIT", "--disable-noqa", *(f"{n}.py" for n in body), cwd=tmp_path)
    assert reported(result) == {(f"{n}.py", 6, 5, "JIT501") for n in body}
    # jitlint's own command reports the letters-only form and warns, instead of suppressing everything.
    own = subprocess.run([jitlint_exe(), "check", "--isolated", "letters_only.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert own.returncode == 1 and "letters_only.py:6:5: JIT501" in own.stdout
    assert "`# noqa: JIT` is not a valid code list" in own.stderr


@pytest.mark.slow
def test_parallel_jobs(tmp_path):
    names = []
    for i in range(6):
        names.append(write(tmp_path, f"m{i}.py", BAD if i % 2 else BAD_LOGGING).name)
    serial = flake8("-j", "1", *names, cwd=tmp_path)
    parallel = flake8_command("-j", "2", *names, cwd=tmp_path)
    assert parallel.returncode == 1, parallel.stderr
    assert parallel.stdout == serial.stdout
    assert reported(parallel) == {(f"m{i}.py", 6 if i % 2 else 8, 5, "JIT501" if i % 2 else "JIT502")
                                  for i in range(6)}


@pytest.mark.slow
def test_stdin(tmp_path):
    result = flake8_command("--stdin-display-name", "src/model.py", "-", cwd=tmp_path, input=BAD)
    assert result.returncode == 1, result.stderr
    assert reported(result) == {("src/model.py", 6, 5, "JIT501")}
    result = flake8_command("-", cwd=tmp_path, input=BAD)
    assert reported(result) == {("stdin", 6, 5, "JIT501")}
    # flake8's per-file-ignores see the display name.
    result = flake8_command("--stdin-display-name", "src/model.py", "--per-file-ignores", "src/*:JIT", "-",
                            cwd=tmp_path, input=BAD)
    assert result.returncode == 0 and result.stdout == ""


def test_syntax_error_is_flake8s_e999(tmp_path):
    write(tmp_path, "broken.py", "import jax\n\n@jax.jit\ndef f(x)\n    print(x)\n")
    write(tmp_path, "bad.py", BAD)
    result = flake8("broken.py", "bad.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert {(p, c) for p, _, _, c in reported(result)} == {("broken.py", "E999"), ("bad.py", "JIT501")}


# ------------------------------------------------------------------ jitlint's settings as flake8 options

PYPROJECT = textwrap.dedent("""\
    [tool.jitlint]
    extend-exclude = ["generated"]
    """)


def _project_with_generated_code(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", PYPROJECT)
    write(tmp_path, "src/model.py", BAD)
    write(tmp_path, "generated/model_pb.py", BAD)


@pytest.mark.parametrize("config_file, key", [
    ("setup.cfg", "jitlint-config"),
    ("tox.ini", "jitlint-config"),
    (".flake8", "jitlint-config"),
    ("setup.cfg", "jitlint_config"),
])
def test_jitlint_config_option_from_flake8_config(tmp_path, config_file, key):
    _project_with_generated_code(tmp_path)
    both = {("./src/model.py", 6, 5, "JIT501"), ("./generated/model_pb.py", 6, 5, "JIT501")}
    assert reported(flake8(".", cwd=tmp_path)) == both  # flake8 never reads pyproject.toml by itself
    write(tmp_path, config_file, f"[flake8]\n{key} = ./pyproject.toml\n")
    result = flake8(".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert reported(result) == {("./src/model.py", 6, 5, "JIT501")}
    # The generated file is still flake8's to check: only jitlint's findings are excluded there.
    write(tmp_path, "generated/model_pb.py", BAD.replace("import jax\n", "import jax\nimport os\n"))
    assert codes(flake8("generated/model_pb.py", cwd=tmp_path)) == {"F401"}


@pytest.mark.slow
def test_jitlint_config_on_command_line_with_parallel_jobs(tmp_path):
    _project_with_generated_code(tmp_path)
    for i in range(3):
        write(tmp_path, f"generated/more_{i}.py", BAD)
        write(tmp_path, f"src/more_{i}.py", BAD)
    result = flake8_command("-j", "2", "--jitlint-config", "pyproject.toml", "src", "generated", cwd=tmp_path)
    assert {p for p, *_ in reported(result)} == {"src/model.py", *(f"src/more_{i}.py" for i in range(3))}


def test_jitlint_config_relative_to_the_config_file(tmp_path):
    # `./pyproject.toml` in a config file is relative to that file (flake8's rule for path options),
    # so running from a subfolder still finds it.
    _project_with_generated_code(tmp_path)
    write(tmp_path, "setup.cfg", "[flake8]\njitlint-config = ./pyproject.toml\n")
    result = flake8("../generated", "model.py", cwd=tmp_path / "src")
    assert reported(result) == {("model.py", 6, 5, "JIT501")}


@pytest.mark.slow
def test_jitlint_config_excludes_apply_to_stdin_display_name(tmp_path):
    _project_with_generated_code(tmp_path)
    args = ("--jitlint-config", "pyproject.toml", "-")
    hidden = flake8_command("--stdin-display-name", "generated/x.py", *args, cwd=tmp_path, input=BAD)
    assert hidden.returncode == 0 and hidden.stdout == "", hidden.stderr
    shown = flake8_command("--stdin-display-name", "src/x.py", *args, cwd=tmp_path, input=BAD)
    assert reported(shown) == {("src/x.py", 6, 5, "JIT501")}


def test_bad_jitlint_config_is_a_clear_error(tmp_path):
    write(tmp_path, "bad.py", BAD)
    result = flake8("--jitlint-config", "missing.toml", "bad.py", cwd=tmp_path)
    assert result.returncode != 0
    assert "jitlint-config: missing.toml not found" in result.stdout + result.stderr
    write(tmp_path, "pyproject.toml", "[tool.jitlint]\nno-such-setting = 1\n")
    result = flake8("--jitlint-config", "pyproject.toml", "bad.py", cwd=tmp_path)
    assert result.returncode != 0
    assert "unknown setting(s) no-such-setting" in result.stdout + result.stderr


def test_pyproject_selection_does_not_hide_codes_from_flake8(tmp_path):
    # Selection under flake8 is flake8's: [tool.jitlint] select/ignore do not narrow what the plugin reports.
    write(tmp_path, "pyproject.toml", '[tool.jitlint]\nignore = ["JIT501"]\n')
    write(tmp_path, "bad.py", BAD)
    result = flake8("--jitlint-config", "pyproject.toml", "bad.py", cwd=tmp_path)
    assert reported(result) == {("bad.py", 6, 5, "JIT501")}


@pytest.mark.slow
def test_plugin_registered_twice_does_not_crash(tmp_path):
    # Installed, and also listed as a local plugin: the option must not be registered twice.
    write(tmp_path, "setup.cfg", textwrap.dedent("""\
        [flake8]
        jitlint-config = ./pyproject.toml
        [flake8:local-plugins]
        extension =
            JIT = jitlint.frontends.flake8_plugin:JitlintChecker
        """))
    write(tmp_path, "pyproject.toml", "[tool.jitlint]\n")
    write(tmp_path, "bad.py", BAD)
    result = flake8_command("bad.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr and "critical error" not in result.stdout, result.stdout + result.stderr
    assert reported(result) == {("bad.py", 6, 5, "JIT501")}


# ------------------------------------------------------------------ packaging


@pytest.mark.slow
def test_version_lists_jitlint():
    from jitlint import __version__

    result = flake8_command("--version", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert f"jitlint: {__version__}" in result.stdout


def test_entry_point_name_is_a_valid_flake8_code_prefix():
    from jitlint.rules.registry import all_codes

    eps = [ep for ep in importlib.metadata.distribution("jitlint").entry_points if ep.group == "flake8.extension"]
    assert [(ep.name, ep.value) for ep in eps] == [("JIT", "jitlint.frontends.flake8_plugin:JitlintChecker")]
    prefix = eps[0].name
    assert re.fullmatch(r"[A-Z]{1,3}[0-9]{0,3}", prefix, re.ASCII)
    # flake8 silently drops codes that do not start with the registered prefix.
    assert all(re.fullmatch(prefix + r"[0-9]{3}", code) for code in all_codes()), all_codes()


@pytest.mark.slow
def test_project_lints_itself():
    result = flake8_command("jitlint", "rules", "tests", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


# ------------------------------------------------------------------ the project index behind one file


def test_flake8_on_one_file_sees_the_whole_project(tmp_path):
    """`flake8 pkg/train.py` alone: the jitted function it calls wrongly is in pkg/model.py, which flake8
    was not given; the plugin lints against the index of the whole project, as `jitlint check` does.
    The project's `[tool.jitlint] ignore = ["JIT901"]` (a runtime code) is a valid setting here too."""
    from harness import CROSS_FILE_FINDING, write_project

    project = write_project(tmp_path / "demo")
    path, line, code = CROSS_FILE_FINDING
    alone = flake8(path, cwd=project)
    assert {(p, n, c) for p, n, _, c in reported(alone)} == {CROSS_FILE_FINDING}, alone.stdout + alone.stderr
    write(project, "setup.cfg", "[flake8]\njitlint-config = ./pyproject.toml\n")
    configured = flake8(path, cwd=project)
    assert configured.returncode == 1 and {(p, n, c) for p, n, _, c in reported(configured)} == {CROSS_FILE_FINDING}
    write(project, "pyproject.toml", '[tool.jitlint]\nignore = ["JIT999"]\n')
    bad = flake8(path, cwd=project)
    assert bad.returncode != 0 and "unknown rule selector(s): JIT999" in bad.stdout + bad.stderr
