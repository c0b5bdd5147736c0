"""Fix safety, --diff, --show-fixes and --add-noqa through the real `jitlint` command, on real files."""

from __future__ import annotations

import shutil
import subprocess

import pytest

pytestmark = pytest.mark.slow  # the jitlint command on real files

# One safe fix (a print in a jitted function) and one unsafe (a print in a helper: who traces it, and
# whether under `eval_shape`, where jax.debug.print prints nothing, is not known).
MIXED = """import jax


def helper(v):
    print("helper", v)
    return v


@jax.jit
def step(x):
    print("x", x)
    return helper(x)
"""
SAFE_LINE = '    jax.debug.print("x {!s}", x)\n'
UNSAFE_LINE = '    jax.debug.print("helper {!s}", v)\n'


def write(folder, name, text, newline=None):
    path = folder / name
    with open(path, "w", encoding="utf-8", newline=newline) as fh:
        fh.write(text)
    return path


def test_fix_applies_the_safe_fixes_and_says_what_is_left(tmp_path, run_jitlint):
    path = write(tmp_path, "m.py", MIXED)
    listed = run_jitlint("check", "--isolated", "--no-cache", "--show-fixes", "m.py", cwd=tmp_path)
    assert listed.returncode == 1
    assert listed.stdout.splitlines()[-4:] == [
        "Available fixes:",
        "- m.py:5:5: JIT501 unsafe fix: Use jax.debug.print (needs --unsafe-fixes)",
        "- m.py:11:5: JIT501 safe fix: Use jax.debug.print (applied by --fix)",
        "Found 2 findings (1 fixable with `jitlint check --fix`; 1 more fix available with `--unsafe-fixes`).",
    ]
    assert path.read_text() == MIXED  # listing writes nothing

    fixed = run_jitlint("check", "--isolated", "--no-cache", "--fix", "--show-fixes", "m.py", cwd=tmp_path)
    assert fixed.returncode == 1  # one finding is left
    assert fixed.stdout.splitlines()[1:] == [
        "Fixed 1 finding:",
        "- m.py:",
        "    1 \u00d7 JIT501 (print-traced-value)",
        "Found 2 findings (1 fixed, 1 remaining). 1 more fix available with `--unsafe-fixes`.",
    ]
    assert fixed.stdout.startswith("m.py:5:5: JIT501 ")
    text = path.read_text()
    assert SAFE_LINE in text and '    print("helper", v)\n' in text

    both = run_jitlint("check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (both.returncode, both.stdout) == (0, "Found 1 finding (1 fixed, 0 remaining).\n")
    assert UNSAFE_LINE in path.read_text()
    again = run_jitlint("check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "All checks passed!\n")


def test_unsafe_fixes_from_the_config_and_overridden(tmp_path, run_jitlint):
    write(tmp_path, "pyproject.toml", "[tool.jitlint]\nunsafe-fixes = true\n")
    path = write(tmp_path, "m.py", MIXED)
    kept = run_jitlint("check", "--no-cache", "--fix", "--no-unsafe-fixes", "m.py", cwd=tmp_path)
    assert kept.stdout.endswith("(1 fixed, 1 remaining). 1 more fix available with `--unsafe-fixes`.\n")
    assert UNSAFE_LINE not in path.read_text()
    result = run_jitlint("check", "--no-cache", "--fix", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "Found 1 finding (1 fixed, 0 remaining).\n")
    assert UNSAFE_LINE in path.read_text()

    write(tmp_path, "pyproject.toml", '[tool.jitlint]\nunsafe-fixes = "yes"\n')
    bad = run_jitlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert bad.returncode == 2 and "`unsafe-fixes` must be true or false" in bad.stderr


def test_diff_prints_what_fix_would_write_and_writes_nothing(tmp_path, run_jitlint):
    from conftest import jitlint_exe

    path = write(tmp_path, "m.py", MIXED, newline="\r\n")
    before = path.read_bytes()
    # bytes, not text: the diff keeps the file's line endings
    result = subprocess.run([jitlint_exe(), "check", "--isolated", "--no-cache", "--diff", "m.py"], cwd=tmp_path,
                            capture_output=True, timeout=120)
    assert result.returncode == 1
    assert result.stdout == (
        b"--- m.py\n"
        b"+++ m.py\n"
        b"@@ -8,5 +8,5 @@\n"
        b" \r\n"
        b" @jax.jit\r\n"
        b" def step(x):\r\n"
        b'-    print("x", x)\r\n'
        b'+    jax.debug.print("x {!s}", x)\r\n'
        b"     return helper(x)\r\n")
    assert result.stderr == b"Would fix 1 finding (1 more fix available with `--unsafe-fixes`).\n"
    assert path.read_bytes() == before
    if shutil.which("patch"):  # the diff is one `patch` applies, line endings and all
        subprocess.run(["patch", "-p0", "--binary", "-s"], input=result.stdout, cwd=tmp_path, check=True)
        assert path.read_bytes() == before.replace(b'print("x", x)', b'jax.debug.print("x {!s}", x)')

    write(tmp_path, "clean.py", "x = 1\n")
    clean = run_jitlint("check", "--isolated", "--no-cache", "--diff", "clean.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "No fixes available.\n")


def test_fixes_that_share_an_edit_apply_together(tmp_path, run_jitlint):
    """Two prints in a module without `import jax`: both fixes add it; it is added once."""
    path = write(tmp_path, "m.py", '"""Doc."""\nfrom jax import jit\n\n\n@jit\ndef f(x):\n    print(x)\n'
                                   '    print(x + 1)\n    return x\n')
    result = run_jitlint("check", "--isolated", "--no-cache", "--fix", "m.py", cwd=tmp_path)
    assert result.stdout == "Found 2 findings (2 fixed, 0 remaining).\n"
    assert path.read_text() == ('"""Doc."""\nimport jax\nfrom jax import jit\n\n\n@jit\ndef f(x):\n'
                                '    jax.debug.print("{!s}", x, ordered=True)\n'
                                '    jax.debug.print("{!s}", x + 1, ordered=True)\n    return x\n')


NOQA = (
    "import jax\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def step(x):\n"
    "    print(x)  # noqa: JIT502\n"
    "    print(x)  # noqa\n"
    "    print(x)  # keep this comment\n"
    "    print(\n"
    "        x,\n"
    "    )\n"
    '    print("""a\n'
    '""", x)\n'
    "    if x.sum() > 0 and x.max() > 1:\n"
    "        pass\n"
    "    return x\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_add_noqa(tmp_path, run_jitlint, newline):
    path = write(tmp_path, "m.py", "\ufeff" + NOQA, newline=newline)
    result = run_jitlint("check", "--isolated", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "Added 4 noqa directives.\n")
    assert result.stderr == ("jitlint: warning: m.py:12: cannot carry a `# noqa` comment (the line ends inside a "
                             "string, or continues with `\\`)\n")
    data = path.read_bytes()
    assert data.startswith("\ufeff".encode()) and data.count(b"\r\n") == (16 if newline == "\r\n" else 0)
    lines = data.decode("utf-8-sig").split(newline)
    assert lines[5:9] == ["    print(x)  # noqa: JIT502, JIT501", "    print(x)  # noqa",
                          "    print(x)  # keep this comment  # noqa: JIT501", "    print(  # noqa: JIT501"]
    assert lines[13] == "    if x.sum() > 0 and x.max() > 1:  # noqa: JIT401"  # two findings, one code
    again = run_jitlint("check", "--isolated", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert again.stdout == "Added 0 noqa directives.\n" and path.read_bytes() == data
    left = run_jitlint("check", "--isolated", "--no-cache", "m.py", cwd=tmp_path)
    assert [line.split(" ")[0:2] for line in left.stdout.splitlines()[:-1]] == [["m.py:12:5:", "JIT501"]]
    refused = run_jitlint("check", "--isolated", "--no-cache", "--add-noqa", "--fix", "m.py", cwd=tmp_path)
    assert refused.returncode == 2 and "--add-noqa cannot be combined with --fix" in refused.stderr
