"""The installed `jitlint` command, run as a user runs it, in a subprocess."""

import json
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test runs the installed jitlint command

ROOT = Path(__file__).resolve().parents[2]

BAD = textwrap.dedent("""\
    import jax

    @jax.jit
    def step(x):
        print(x)
        return x
    """)
GOOD = "import jax\n\n@jax.jit\ndef step(x):\n    return x * 2\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_findings_text_and_exit_code(tmp_path, run_jitlint):
    write(tmp_path, "bad.py", BAD)
    result = run_jitlint("check", "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("bad.py:5:5: JIT501 ")
    assert "Found 1 finding" in result.stdout


def test_clean_exit_zero(tmp_path, run_jitlint):
    write(tmp_path, "good.py", GOOD)
    result = run_jitlint("check", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "All checks passed!\n"


def test_json_format(tmp_path, run_jitlint):
    write(tmp_path, "bad.py", BAD)
    result = run_jitlint("check", "--format", "json", "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert len(data) == 1
    item = data[0]
    for key in ("path", "line", "col", "end_line", "end_col", "code", "message", "severity"):
        assert key in item
    assert (item["line"], item["col"], item["end_line"], item["end_col"]) == (5, 5, 5, 13)
    assert item["code"] == "JIT501" and item["severity"] == "warning"
    assert item["fix"]["edits"][0]["new_text"] == 'jax.debug.print("{!s}", x)'
    assert item["fix"]["applicability"] == "safe"


def test_syntax_error_is_a_finding_not_a_traceback(tmp_path, run_jitlint):
    write(tmp_path, "broken.py", "def f(x)\n    return x\n")
    write(tmp_path, "bad.py", BAD)
    result = run_jitlint("check", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert any(l.startswith("broken.py:1:9: JIT000 syntax error: expected ':'") for l in lines), lines
    assert any(l.startswith("bad.py:5:5: JIT501") for l in lines), "other files are still linted"


TEMPLATE = """import jax.numpy as jnp


class {{ context.class_name }}:
{% for name in context.states %}
    {{ name }} = jnp.zeros(())
{% endfor %}
"""


def test_a_template_named_py_is_said_not_linted_as_info(tmp_path, run_jitlint):
    """A code generator's Jinja template named `.py` is no broken Python: one info JIT000 that says what it
    is, the same from the cache; a broken file next to it keeps its error."""
    write(tmp_path, "channel.py", TEMPLATE)
    write(tmp_path, "broken.py", "def f(x)\n    return x\n")
    for _ in range(2):  # cold, then from the cache
        result = run_jitlint("check", "--format", "json", ".", cwd=tmp_path)
        found = {f["path"]: f for f in json.loads(result.stdout)}
        assert found["channel.py"]["code"] == "JIT000" and found["channel.py"]["severity"] == "info"
        assert found["channel.py"]["line"] == 4 and "template, not Python" in found["channel.py"]["message"]
        assert found["broken.py"]["severity"] == "error" and "syntax error" in found["broken.py"]["message"]


def test_a_console_transcript_named_py_is_said_not_linted_as_info(tmp_path, run_jitlint):
    """A terminal session saved as `.py` (jax-pytree-example's gradient transcripts, fresh set BZ: comments,
    then `cat a.py b.py > main.py`; or a prompt first) is no broken Python: one info JIT000 that says what
    it is. A shell command after code, or indented in a def, is a syntax error of a Python file."""
    write(tmp_path, "session.py", "# how it was run:\n\ncat ops.py engine.py > main.py\n\npython -i main.py\n")
    write(tmp_path, "prompt.py", "(base) C:\\work\\proj>python -i main.py\n>>> grad(f)(x)\n")
    write(tmp_path, "late.py", "import jax\n\ncat a.py\n")
    write(tmp_path, "indented.py", "def f(x):\n    cat x.py\n")
    result = run_jitlint("check", "--format", "json", ".", cwd=tmp_path)
    found = {f["path"]: f for f in json.loads(result.stdout)}
    for name, line in (("session.py", 3), ("prompt.py", 1)):
        assert (found[name]["code"], found[name]["severity"], found[name]["line"]) == ("JIT000", "info", line)
        assert "console transcript, not Python" in found[name]["message"]
    for name in ("late.py", "indented.py"):
        assert found[name]["severity"] == "error" and "syntax error" in found[name]["message"]


def test_missing_path_is_reported(tmp_path, run_jitlint):
    result = run_jitlint("check", "nope.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "nope.py:1:1: JIT000 no such file or directory" in result.stdout


def test_select_ignore_and_exit_zero(tmp_path, run_jitlint):
    write(tmp_path, "bad.py", BAD)
    assert run_jitlint("check", "--ignore", "JIT5", "bad.py", cwd=tmp_path).returncode == 0
    assert run_jitlint("check", "--select", "JIT0", "bad.py", cwd=tmp_path).returncode == 0
    assert run_jitlint("check", "--select", "JIT0", "--extend-select", "JIT501", "bad.py", cwd=tmp_path).returncode == 1
    assert run_jitlint("check", "--exit-zero", "bad.py", cwd=tmp_path).returncode == 0
    bad_selector = run_jitlint("check", "--select", "XYZ1", "bad.py", cwd=tmp_path)
    assert bad_selector.returncode == 2 and "unknown rule selector" in bad_selector.stderr


def test_bad_option_is_usage_error(run_jitlint):
    result = run_jitlint("check", "--bogus")
    assert result.returncode == 2


def test_statistics_and_show_source(tmp_path, run_jitlint):
    write(tmp_path, "bad.py", BAD)
    stats = run_jitlint("check", "--statistics", "bad.py", cwd=tmp_path)
    assert stats.stdout.split() == ["1", "JIT501", "print-traced-value"]
    shown = run_jitlint("check", "--show-source", "bad.py", cwd=tmp_path)
    lines = shown.stdout.splitlines()
    assert lines[1] == "        print(x)"
    assert lines[2] == "        ^^^^^^^^"


def test_noqa(tmp_path, run_jitlint):
    text = BAD.replace("print(x)", "print(x)  # noqa: JIT501")
    write(tmp_path, "a.py", text)
    assert run_jitlint("check", "a.py", cwd=tmp_path).returncode == 0
    write(tmp_path, "b.py", BAD.replace("print(x)", "print(x)  # noqa: JIT5"))
    assert run_jitlint("check", "b.py", cwd=tmp_path).returncode == 0
    write(tmp_path, "c.py", BAD.replace("print(x)", "print(x)  # noqa"))
    assert run_jitlint("check", "c.py", cwd=tmp_path).returncode == 0
    write(tmp_path, "d.py", BAD.replace("print(x)", "print(x)  # noqa: JIT401"))
    assert run_jitlint("check", "d.py", cwd=tmp_path).returncode == 1
    # A malformed code list is not a blanket: it suppresses nothing and says so.
    write(tmp_path, "e.py", BAD.replace("print(x)", "print(x)  # noqa: JIT"))
    malformed = run_jitlint("check", "e.py", cwd=tmp_path)
    assert malformed.returncode == 1
    assert "e.py:5: warning:" in malformed.stderr and "suppresses nothing" in malformed.stderr


def test_pyproject_config(tmp_path, run_jitlint):
    write(tmp_path, "pkg/bad.py", BAD)
    write(tmp_path, "pkg/gen/generated.py", BAD)
    write(tmp_path, "tests/test_x.py", BAD)
    write(tmp_path, "pyproject.toml", textwrap.dedent("""\
        [tool.jitlint]
        extend-exclude = ["pkg/gen"]
        per-file-ignores = { "tests/*" = ["JIT5"] }
        """))
    result = run_jitlint("check", ".", cwd=tmp_path)
    assert result.returncode == 1
    paths = {line.split(":")[0] for line in result.stdout.splitlines() if ": JIT" in line}
    assert paths == {"pkg/bad.py"}
    # Command-line flags override the file.
    assert run_jitlint("check", "--ignore", "JIT501", ".", cwd=tmp_path).returncode == 0
    assert run_jitlint("check", "--isolated", ".", cwd=tmp_path).returncode == 1


def test_bad_config_is_reported(tmp_path, run_jitlint):
    write(tmp_path, "a.py", GOOD)
    write(tmp_path, "pyproject.toml", "[tool.jitlint]\nselekt = ['JIT']\n")
    result = run_jitlint("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and "unknown setting" in result.stderr and "Traceback" not in result.stderr


def test_default_excludes_and_venvs(tmp_path, run_jitlint):
    for folder in (".git", "build", "docs/_build/html/_sources", "__pycache__", "lib/site-packages", "env"):
        write(tmp_path, f"{folder}/bad.py", BAD)
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    result = run_jitlint("check", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout


def test_force_exclude_applies_to_explicit_files(tmp_path, run_jitlint):
    write(tmp_path, "gen/bad.py", BAD)
    write(tmp_path, "pyproject.toml", "[tool.jitlint]\nextend-exclude = ['gen']\n")
    assert run_jitlint("check", "gen/bad.py", cwd=tmp_path).returncode == 1
    assert run_jitlint("check", "--force-exclude", "gen/bad.py", cwd=tmp_path).returncode == 0


def test_stdin(tmp_path, run_jitlint):
    result = run_jitlint("check", "-", "--stdin-filename", "pkg/mod.py", input=BAD, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("pkg/mod.py:5:5: JIT501")


def test_fix_rewrites_atomically_and_only_valid_code(tmp_path, run_jitlint):
    path = write(tmp_path, "bad.py", BAD)
    result = run_jitlint("check", "--fix", "bad.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'jax.debug.print("{!s}", x)' in path.read_text()
    assert result.stdout == "Found 1 finding (1 fixed, 0 remaining).\n"
    assert not list(tmp_path.glob(".*jitlint-tmp"))


def test_version_and_rules(run_jitlint):
    from jitlint import __version__

    version = run_jitlint("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"jitlint {__version__}"
    rules = run_jitlint("rules")
    assert "JIT501" in rules.stdout and "JIT502" in rules.stdout
    data = json.loads(run_jitlint("rules", "--format", "json").stdout)
    assert {"code", "name", "severity", "summary"} <= set(data[0])


def test_python_dash_m(tmp_path):
    import subprocess
    import sys

    write(tmp_path, "bad.py", BAD)
    result = subprocess.run([sys.executable, "-m", "jitlint", "check", "bad.py"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 1 and "JIT501" in result.stdout


def test_version_does_not_import_libcst():
    import subprocess
    import sys

    code = "import sys; from jitlint.frontends.cli import main\ntry: main(['--version'])\nexcept SystemExit: pass\nprint('libcst' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert out.strip().endswith("False")


def test_github_annotations(tmp_path, run_jitlint):
    write(tmp_path, "a,b.py", BAD.replace("print(x)", "print(x)  # 100% traced"))
    write(tmp_path, "err.py", "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    result = run_jitlint("check", "--format", "github", ".", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # Properties escape ',' and ':' (the file name has a comma); severities map to GitHub's levels.
    assert lines[0].startswith("::warning title=jitlint (JIT501),file=a%2Cb.py,line=5,endLine=5,col=5,endColumn=13::"
                               "JIT501 `print` of traced value `x`")
    assert lines[1].startswith("::error title=jitlint (JIT401),file=err.py,line=5,endLine=5,col=8,")
    assert len(lines) == 2  # no summary line in a machine format


def test_a_clean_run_says_so_unless_quiet(tmp_path, run_jitlint):
    write(tmp_path, "good.py", GOOD)
    assert run_jitlint("check", "good.py", cwd=tmp_path).stdout == "All checks passed!\n"
    assert run_jitlint("check", "-q", "good.py", cwd=tmp_path).stdout == ""


def test_statistics_with_show_source_prints_both(tmp_path, run_jitlint):
    write(tmp_path, "bad.py", BAD)
    out = run_jitlint("check", "--statistics", "--show-source", "bad.py", cwd=tmp_path).stdout
    assert "bad.py:5:5: JIT501" in out and "    print(x)" in out  # the finding with its source line
    assert out.rstrip().splitlines()[-1].split()[:2] == ["1", "JIT501"]  # then the table


def test_maintainer_docs_command_is_hidden_and_stays_in_the_source_tree(tmp_path, run_jitlint):
    helptext = run_jitlint("--help").stdout
    assert "check" in helptext and " docs " not in helptext and "docs" not in helptext.split("positional")[0]
    result = run_jitlint("docs", cwd=tmp_path)
    assert result.returncode == 2 and "jitlint's own source tree" in result.stderr
    assert not (tmp_path / "docs").exists()
    check_help = " ".join(run_jitlint("check", "--help").stdout.split())
    assert "--ignore IGNORE codes or prefixes not to report (over the configured selection)" in check_help


def test_rule_links_are_real_or_configured(tmp_path):
    """The LSP's codeDescription and hover link a rule page that exists (the checkout's page, as a file)
    or the one `docs-url` names; never a made-up address."""
    from jitlint.core.config import ConfigError, config_from_table
    from jitlint.catalog.links import rule_docs_url

    page = rule_docs_url("JIT501")
    assert page.startswith("file://") and Path(page[len("file://"):]).is_file()
    assert rule_docs_url("JIT999") is None
    config = config_from_table({"docs-url": "https://docs.example.org/jitlint/{code}.html"}, tmp_path, "pyproject")
    assert rule_docs_url("JIT501", config.docs_url) == "https://docs.example.org/jitlint/JIT501.html"
    with pytest.raises(ConfigError):
        config_from_table({"docs-url": "https://docs.example.org/"}, tmp_path, "pyproject")
