"""Any file gives findings or a clear JIT000, never a traceback."""

import pytest

from jitlint.lint.pipeline import check_source, lint_source


def codes(findings):
    return [(f.line, f.col, f.code) for f in findings]


def test_syntax_error_position():
    findings = lint_source("x = 1\ndef f(:\n    pass\n", "a.py")
    assert len(findings) == 1
    f = findings[0]
    assert f.code == "JIT000" and f.line == 2 and "syntax error" in f.message


def test_undecodable_bytes():
    findings = lint_source(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "latin.py")
    assert findings == []  # valid latin-1 with a cookie
    bad = lint_source(b"x = '\xff\xfe\xfa'\n", "bad.py")
    assert [f.code for f in bad] == ["JIT000"] and "decode" in bad[0].message


def test_unknown_coding_cookie():
    bad = lint_source(b"# -*- coding: no-such-codec -*-\nx = 1\n", "c.py")
    assert [f.code for f in bad] == ["JIT000"]


def test_bom_and_crlf():
    text = "\ufeffimport jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    print(x)\r\n    return x\r\n"
    findings = lint_source(text.encode("utf-8"), "bom.py")
    assert codes(findings) == [(5, 5, "JIT501")]


def test_nul_bytes():
    findings = lint_source(b"x = 1\x00\n", "nul.py")
    assert [f.code for f in findings] == ["JIT000"]


def test_deeply_nested_expression():
    text = "import jax\n\n@jax.jit\ndef f(x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    findings = lint_source(text, "deep.py")
    assert all(f.code == "JIT000" for f in findings)


def test_long_operator_chain():
    text = "import jax\n\n@jax.jit\ndef f(a):\n    return " + " + ".join(["a"] * 20000) + "\n"
    findings = lint_source(text, "chain.py")
    assert [f.code for f in findings] == ["JIT000"] and "deeply nested" in findings[0].message


def test_deeply_nested_blocks():
    body = "import jax\n\n@jax.jit\ndef f(x):\n"
    indent = "    "
    for i in range(90):
        body += indent * (i + 1) + "if True:\n"
    body += indent * 91 + "print(x)\n"
    findings = lint_source(body, "nested.py")
    assert [f.code for f in findings] in (["JIT501"], ["JIT000"])


class _TooManyWalks(BaseException):  # not an Exception: nothing in the engine turns it into a finding
    pass


def _lint_counting_walks(monkeypatch, text: str, limit: int = 200_000):
    """The findings for `text`, and how many simple statements the evaluator walked for them; past `limit`
    (as the old 2**depth walks of a loop nest went) it stops the lint rather than hang the suite."""
    from jitlint.analysis.eval import Evaluator

    count = 0
    small = Evaluator.small

    def counted(self, node):
        nonlocal count
        count += 1
        if count > limit:
            raise _TooManyWalks(f"over {limit} statement walks")
        small(self, node)

    monkeypatch.setattr(Evaluator, "small", counted)
    findings = lint_source(text, "loops.py")
    return findings, count


def _loop_nest(depth: int, kind: str, where: str) -> str:
    """`depth` nested loops around `x = x + 1`: in a jitted function, a method, or module-level code,
    where CPython's limit of 20 nested blocks is passed by a class body (a block of its own) halfway."""
    head = "for i{n} in range(3):" if kind == "for" else "while x < {n}:"
    lines = ["import jax", "", "g = jax.jit(abs)", "x = 0"]
    if where == "jit":
        lines += ["@jax.jit", "def f(x):"]
    elif where == "method":
        lines += ["class M:", "    def run(self, x):"]
    indent = {"jit": 1, "method": 2, "module": 0}[where]
    for n in range(depth):
        if where == "module" and n == depth // 2:
            lines.append("    " * indent + "class Inner:")
            indent += 1
        lines.append("    " * indent + head.format(n=n))
        indent += 1
    lines.append("    " * indent + ("x = x + 1" if where == "jit" else "x = g(x) + 1"))
    if where == "method":
        lines += ["        return x", "", "M().run(1)"]
    elif where == "jit":
        lines.append("    return x")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["jit", "method", "module"])
@pytest.mark.parametrize("kind", ["for", "while"])
def test_deep_loop_nests_cost_polynomial_work(monkeypatch, kind, where):
    """Each loop body is walked twice so that late assignments flow back to its top; nested loops
    multiplied that to 2**depth walks (18 loops: 19 s, 20: minutes). The deepest nests CPython accepts
    (20 blocks in a function; 30 loops through a class body at module level) are walked a few
    thousand times, and one more loop adds a few walks rather than doubling them."""
    deepest = 30 if where == "module" else 20
    text = _loop_nest(deepest, kind, where)
    compile(text, "loops.py", "exec")  # valid Python, so linted for real
    _, shallower = _lint_counting_walks(monkeypatch, _loop_nest(deepest - 1, kind, where))
    findings, walks = _lint_counting_walks(monkeypatch, text)
    assert walks < 1.5 * shallower and walks < 20_000, (shallower, walks)
    # every `while x < n` on the tracer is reported; eager loops have nothing to report
    assert [f.code for f in findings] == (["JIT401"] * deepest if (kind, where) == ("while", "jit") else [])


def test_too_many_nested_blocks_is_jit000():
    """Deeper than CPython compiles: the compiler's message, without walking the loops."""
    text = _loop_nest(30, "for", "jit")
    with pytest.raises(SyntaxError):
        compile(text, "loops.py", "exec")
    findings = lint_source(text, "loops.py")
    assert [f.code for f in findings] == ["JIT000"] and "too many statically nested blocks" in findings[0].message


@pytest.mark.parametrize("depth", [1, 2, 6, 7, 8, 20])
def test_late_assignment_in_deep_loop_flows_back(monkeypatch, depth):
    """`if y:` at the top of the innermost loop body reads the tracer that `y = x * 2` assigns later in
    that body (from the second iteration on), and `if z:` the one the outermost loop's last line assigns:
    both found at every depth, within and past FULL_LOOP_DEPTH (6), up to the 20 CPython allows."""
    lines = ["import jax", "", "@jax.jit", "def f(x):", "    y = 0", "    z = 0"]
    for n in range(depth):
        lines.append("    " * (n + 1) + f"for i{n} in range(3):")
    pad = "    " * (depth + 1)
    lines += [pad + "if y:", pad + "    x = x + 1", pad + "if z:", pad + "    x = x - 1", pad + "y = x * 2",
              "        z = x * 3", "    return x"]
    text = "\n".join(lines) + "\n"
    if_y, if_z = depth + 7, depth + 9
    findings, _ = _lint_counting_walks(monkeypatch, text)
    assert [(f.line, f.code) for f in findings] == [(if_y, "JIT401"), (if_z, "JIT401")], text


def test_huge_file_is_linted():
    chunk = "import jax\n\n@jax.jit\ndef f{i}(x):\n    print(x)\n    return x\n\n"
    text = "".join(chunk.format(i=i) for i in range(2000))
    findings = lint_source(text, "huge.py")
    assert len(findings) == 2000 and {f.code for f in findings} == {"JIT501"}


def test_empty_and_whitespace_files():
    assert lint_source("", "empty.py") == []
    assert lint_source("\n\n   \n", "ws.py") == []


def test_git_lfs_pointers_are_not_linted(tmp_path):
    """A checkout without its LFS content holds pointers in place of notebooks and modules: not broken files
    (fresh set BH: 54 notebooks of a docs build kept in LFS). A notebook that is not JSON still is."""
    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 16494\n"
    assert check_source(pointer, "example.ipynb").findings == []
    assert check_source(pointer.encode(), "module.py").findings == []
    (tmp_path / "example.ipynb").write_text(pointer)
    (tmp_path / "module.py").write_text(pointer)
    (tmp_path / "broken.ipynb").write_text("not json")
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert [line.split(":")[0] for line in proc.stdout.splitlines() if "JIT000" in line] == ["broken.ipynb"]


def test_file_level_suppression():
    text = "# jitlint: noqa\nimport jax\n\n@jax.jit\ndef f(x):\n    print(x)\n"
    assert lint_source(text, "skip.py") == []


def test_warnings_for_malformed_noqa():
    text = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)  # noqa: JIT\n"
    result = check_source(text, "w.py")
    assert [f.code for f in result.findings] == ["JIT501"]
    assert result.warnings and "w.py:5: warning" in result.warnings[0]


# ------------------------------------------------------------------------------------------ issue 16
# Each failure of the reliability pass, with its input as a file under tests/fixtures/robustness/.

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from conftest import jitlint_exe  # noqa: E402
from jitlint.core.config import Config  # noqa: E402
from jitlint.project.runner import lint_paths  # noqa: E402
from jitlint.project.project import Project  # noqa: E402


def lint_one(path: Path):
    """One file, as `jitlint check FILE` lints it (no project around the robustness inputs, no cache)."""
    [result] = Project(None, Config(), cache=False).lint([str(path)]).files
    return result

ROBUST = Path(__file__).resolve().parents[1] / "fixtures" / "robustness"
_EXPECT = re.compile(r"#\s*expect:\s*(JIT\d{3}(?:\s*,\s*JIT\d{3})*)")


def expected(path: Path) -> set[tuple[int, str]]:
    """`# expect:` markers, with lines counted as Python counts them (\\n, \\r\\n, \\r only)."""
    text = path.read_bytes().decode("utf-8")
    return {(n, code) for n, line in enumerate(re.split(r"\r\n|\r|\n", text), 1)
            for m in _EXPECT.finditer(line) for code in re.split(r"\s*,\s*", m.group(1))}


def fix_copy(tmp_path: Path, name: str, *extra) -> tuple[Path, subprocess.CompletedProcess]:
    target = tmp_path / name
    shutil.copyfile(ROBUST / name, target)
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "--fix", *extra, str(target)],
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return target, proc


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fix_lone_cr.py", "fix_one_cr.py"])
def test_fix_with_lone_cr_line_ends_rewrites_the_print_line(tmp_path, name):
    """1: line starts counted at \\r too: the print is replaced, nothing else."""
    original = (ROBUST / name).read_bytes()
    target, proc = fix_copy(tmp_path, name)
    assert "applied 1 fix" in proc.stderr
    new = target.read_bytes()
    assert new == original.replace(b"print(x)", b'jax.debug.print("{!s}", x)')
    assert b"return x" in new and compile(new, name, "exec")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fix_fstring_quotes.py", "fix_inner_comment.py", "fix_shadowed_jax.py",
                                  "fix_shadowed_jax_module.py"])
def test_fixes_that_would_be_wrong_are_not_written(tmp_path, name):
    """2: a fixed text this Python does not compile; 3: a comment inside the call; 4: `jax` rebound.
    The finding stays, the file is unchanged."""
    original = (ROBUST / name).read_bytes()
    target, proc = fix_copy(tmp_path, name)
    assert target.read_bytes() == original
    assert "applied" not in proc.stderr and "JIT501" in proc.stdout


def test_comment_or_rebound_jax_means_no_fix_offered():
    for name in ("fix_inner_comment.py", "fix_shadowed_jax.py", "fix_shadowed_jax_module.py"):
        findings = lint_one(ROBUST / name)
        assert [f.code for f in findings.findings] == ["JIT501"] and findings.findings[0].fix is None, name


@pytest.mark.slow
def test_fix_in_a_read_only_folder_is_reported_per_file(world_tmp):
    """5: a PermissionError from the temporary file becomes a message; the other file is fixed."""
    tmp_path = world_tmp
    locked, free = tmp_path / "locked", tmp_path / "free"
    locked.mkdir(), free.mkdir()
    for folder in (locked, free):
        shutil.copyfile(ROBUST / "builtins_print.py", folder / "a.py")
    os.chmod(free, 0o777)
    for folder in (locked, free):
        os.chmod(folder / "a.py", 0o666)
    os.chmod(locked, 0o555)
    try:
        proc = run_unprivileged([jitlint_exe(), "check", "--no-cache", "--fix", str(locked), str(free)])
    finally:
        os.chmod(locked, 0o755)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert f"jitlint: error: {locked / 'a.py'}: cannot write the fixes: Permission denied" in proc.stderr
    assert f"{free / 'a.py'}: applied 2 fixes" in proc.stderr
    assert (locked / "a.py").read_bytes() == (ROBUST / "builtins_print.py").read_bytes()
    assert "builtins.print" not in (free / "a.py").read_text()
    assert proc.stdout.count("JIT501") == 2 and proc.returncode == 1  # the unfixed file's findings


def run_unprivileged(cmd, **kwargs):
    """Run as a user that file permissions apply to (root ignores them): `nobody` when we are root."""
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to test permissions as root"
        cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture
def world_tmp():
    """A folder `nobody` can reach (pytest's tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="jitlint-robust-"))
    os.chmod(folder, 0o777)
    yield folder
    for root, dirs, _ in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(folder, ignore_errors=True)


def test_fix_relints_in_the_workers(tmp_path):
    """6: fixing and re-linting happen in pass 2's workers; the findings reported are those after it."""
    padding = "# padding, so that the files are worth two processes\n" * 60  # 3 KB each
    for i in range(40):
        (tmp_path / f"m{i}.py").write_text((ROBUST / "builtins_print.py").read_text() + padding)
    run = lint_paths([str(tmp_path)], Config(), jobs=2, fix=True)
    fixed = [r for r in run.files if r.fixes_applied]
    assert run.stats.workers == 2 and len(fixed) == 40
    assert all(r.fixes_applied == 2 and r.findings == [] for r in fixed)
    again = lint_paths([str(tmp_path)], Config(), jobs=2, fix=True)
    assert not any(r.fixes_applied for r in again.files)


@pytest.mark.slow
def test_unreadable_folder_is_reported(world_tmp):
    """7: a folder that cannot be listed (in a tree, and given itself) is reported, once, as a path named
    twice is; the rest is linted."""
    shutil.copyfile(ROBUST / "builtins_print.py", world_tmp / "ok.py")
    locked = world_tmp / "locked"
    locked.mkdir()
    shutil.copyfile(ROBUST / "builtins_print.py", locked / "hidden.py")
    os.chmod(locked, 0o000)
    proc = run_unprivileged([jitlint_exe(), "check", "--no-cache", str(world_tmp), str(locked)])
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.count("cannot read folder: Permission denied") == 1, proc.stdout
    assert proc.stdout.count("ok.py:") == 2 and proc.returncode == 1


@pytest.mark.slow
@pytest.mark.parametrize("config, message", [
    ("tool_jitlint_int.toml", "`tool.jitlint` must be a table"),
    ("tool_jitlint_list.toml", "`tool.jitlint` must be a table"),
    ("tool_int.toml", "`tool` must be a table"),
    ("malformed.toml", "cannot read settings"),
])
@pytest.mark.parametrize("how", ["discovered", "--config"])
def test_bad_pyproject_is_a_clear_error(tmp_path, config, message, how):
    """8: wrong types are errors, not TypeError/AttributeError; discovery says so as --config does."""
    shutil.copyfile(ROBUST / "configs" / config, tmp_path / "pyproject.toml")
    shutil.copyfile(ROBUST / "builtins_print.py", tmp_path / "a.py")
    extra = ["--config", str(tmp_path / "pyproject.toml")] if how == "--config" else []
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", *extra, "a.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("jitlint: error: ") and message in proc.stderr, proc.stderr


@pytest.mark.slow
def test_fifo_device_link_and_size_limit(tmp_path):
    """9: only regular files are read (a FIFO would block, /dev/zero never ends), up to max-file-size."""
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink("/dev/zero", tmp_path / "zero.py")
    shutil.copyfile(ROBUST / "builtins_print.py", tmp_path / "big.py")
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr
    assert "pipe.py:1:1: JIT000 cannot read file: not a regular file" in proc.stdout
    assert "zero.py:1:1: JIT000 cannot read file: not a regular file" in proc.stdout
    assert proc.stdout.count("big.py:") == 2
    shutil.copyfile(ROBUST / "configs" / "max_file_size_100.toml", tmp_path / "pyproject.toml")
    for args in (["."], ["--isolated", "--max-file-size", "100", "."]):
        proc = subprocess.run([jitlint_exe(), "check", "--no-cache", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert "big.py:1:1: JIT000 cannot read file: file is larger than the 100-byte limit" in proc.stdout


def test_damaged_cache_records_are_misses(tmp_path):
    """10: a deeply nested cache document, and cached findings of the wrong types: results as without
    the cache, on every run."""
    project = tmp_path / "p"
    project.mkdir()
    shutil.copyfile(ROBUST / "builtins_print.py", project / "a.py")
    cache_dir = tmp_path / "cache"
    clean = lint_paths([str(project)], Config(), cache_dir=cache_dir).findings
    assert len(clean) == 2
    from jitlint.project.cache import _write_json, read_file

    lint_file = next(cache_dir.glob("*/lint-*.json"))
    good = read_file(lint_file)
    corruptions = json.loads((ROBUST / "cache_records.json").read_text())
    for name, change in corruptions.items():
        data = json.loads(json.dumps(good))
        for entry in data["entries"].values():
            record = entry["findings"][0]
            record.update(change)
        _write_json(lint_file, data)  # signed: the record itself is what is damaged
        assert lint_paths([str(project)], Config(), cache_dir=cache_dir).findings == clean, name
    for path in cache_dir.glob("*/*.json"):
        path.write_text("[" * 100_000 + "]" * 100_000)
    first = lint_paths([str(project)], Config(), cache_dir=cache_dir)  # ignored, rewritten at the end
    assert first.findings == clean and first.stats.cached == 0
    second = lint_paths([str(project)], Config(), cache_dir=cache_dir)
    assert second.findings == clean and second.stats.cached == 1


@pytest.mark.slow
def test_deep_nesting_that_cpython_accepts_is_linted():
    """13: 199 nested calls, and 2,900 nested unary operators, in a file with a finding."""
    for name in ("deep_call_nesting_199.py", "deep_unary_2900.py"):
        path = ROBUST / name
        # CPython accepts it (at a script's top level: pytest's own frames would use up the limit here)
        subprocess.run([sys.executable, "-c", "import sys; p = sys.argv[1]; compile(open(p).read(), p, 'exec')",
                        str(path)], check=True, timeout=60)
        found = {(f.line, f.code) for f in lint_one(path).findings}
        assert found == expected(path), name


def test_a_structure_nesting_itself_on_every_walk_settles():
    """16: a custom JVP rule calling its own primal with `*primals` nested the primal's arguments one level
    deeper on every walk (jax-sn, fresh set BB: the run never ended, its memory grew without bound). The
    analysis settles within its budget and reports what is there; the positions of nested containers are
    kept a few levels deep only."""
    from jitlint.analysis.values import MAX_ELEMENT_DEPTH, Taint

    path = ROBUST / "jvp_rule_calls_primal.py"
    # (in a process of its own: were the walks never to settle again, the test fails instead of hanging)
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "--format", "json", str(path)],
                          capture_output=True, text=True, timeout=300, encoding="utf-8")
    assert {(f["line"], f["code"]) for f in json.loads(proc.stdout)} == expected(path)
    leaf = Taint(2, "x", is_array=True)
    nested = leaf
    for _ in range(MAX_ELEMENT_DEPTH + 3):
        nested = Taint(2, "x", container=True, elements=(nested, leaf))
    depth, value = 0, nested
    while value is not None and value.elements is not None:
        depth, value = depth + 1, value.elements[0]
    assert 1 <= depth <= MAX_ELEMENT_DEPTH


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in ROBUST.glob("show_source_*.py")))
def test_show_source_counts_lines_as_python(name):
    """14: \\x0c, \\x85, \\u2028, \\u2029, \\x1c are not line breaks for Python."""
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "--show-source", str(ROBUST / name)],
                          capture_output=True, text=True, timeout=60, encoding="utf-8")
    [(line, code)] = expected(ROBUST / name)
    lines = proc.stdout.splitlines()
    assert f":{line}:5: {code}" in lines[0]
    assert lines[1] == "        print(x)  # expect: JIT501" and lines[2] == "        ^^^^^^^^"


@pytest.mark.parametrize("name", sorted(p.name for p in ROBUST.glob("compile_*.py")))
def test_what_the_compiler_refuses_is_jit000(name):
    """15: refused after parsing (future import, return/await outside a function, nonlocal at module level)."""
    path = ROBUST / name
    with pytest.raises(SyntaxError) as refused:
        compile(path.read_bytes(), name, "exec", dont_inherit=True)
    findings = lint_one(path).findings
    assert [(f.line, f.code) for f in findings] == sorted(expected(path))
    assert findings[0].message == f"syntax error: {refused.value.msg}"


@pytest.mark.slow
def test_stdlib_sample_jit000_exactly_where_compile_refuses():
    """15 (and the whole standard library, bench/stdlib_check.py): a sample of CPython's own test files."""
    import sysconfig

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from stdlib_check import compare

    lib = Path(sysconfig.get_paths()["stdlib"])
    sample = [p for p in [lib / "test" / "test_future_stmt", lib / "test" / "tokenizedata",
                          lib / "lib2to3" / "tests" / "data", lib / "json", lib / "ast.py"] if p.exists()]
    if not sample:
        pytest.skip("this Python has no standard library sources")  # e.g. a stripped install
    out = compare(sample)
    assert "Traceback" not in out["stderr"] and out["returncode"] in (0, 1)
    assert out["refused"] and out["flagged"] == set(out["refused"])


def test_builtins_print_is_print():
    """16: `builtins.print(x)` and `from builtins import print as p` in jitted code."""
    path = ROBUST / "builtins_print.py"
    assert {(f.line, f.code) for f in lint_one(path).findings} == expected(path)


@pytest.mark.slow
def test_names_are_escaped_in_text_output(tmp_path):
    """17: a newline or an escape sequence in a file name (or --stdin-filename) is not printed raw."""
    name = "evil\n\x1b[31mred.py"
    shutil.copyfile(ROBUST / "builtins_print.py", tmp_path / name)
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert "\x1b" not in proc.stdout and proc.stdout.count("\n") == 3  # two findings and the summary
    assert "evil\\n\\x1b[31mred.py:9:5: JIT501" in proc.stdout
    proc = subprocess.run([jitlint_exe(), "check", "--no-cache", "--stdin-filename", name, "-"],
                          input=(ROBUST / "builtins_print.py").read_text(), capture_output=True, text=True,
                          timeout=60)
    assert "\x1b" not in proc.stdout and "evil\\n\\x1b[31mred.py:10:5: JIT501" in proc.stdout


# ------------------------------------------------------------------------------------------ the LSP

def _hover(root: Path) -> dict:
    return {"textDocument": {"uri": (root / "a.py").as_uri()}, "position": {"line": 0, "character": 0}}


@pytest.mark.slow
@pytest.mark.parametrize("case", ["no_content_length", "length_too_small", "length_too_large", "lf_only",
                                  "garbage"])
def test_lsp_recovers_after_a_framing_error(tmp_path, case):
    """11: after a malformed message the server answers the next request (and says what was wrong)."""
    from lspwire import WireClient

    client = WireClient(cwd=tmp_path)
    try:
        client.initialize(tmp_path)
        body = json.dumps({"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover",
                           "params": _hover(tmp_path)}).encode()
        bad = {"no_content_length": b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body,
               "length_too_small": b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body,
               "length_too_large": b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body,
               "lf_only": b"Content-Length: %d\n\n" % len(body) + body,
               "garbage": b"\x00\xffnot a header\r\n"}[case]
        answer, before = client.wait_for(client.request("textDocument/hover", _hover(tmp_path), raw_prefix=bad),
                                         timeout=30)
        assert answer == {"jsonrpc": "2.0", "id": client._next_id, "result": None}
        errors = [m["error"] for m in before if m.get("id", 0) is None and "error" in m]
        answered_900 = [m for m in before if m.get("id") == 900]
        if case == "lf_only":  # LF line ends are read as the header they are
            assert answered_900 and not errors
        elif case == "garbage":
            assert not answered_900
        else:
            assert not answered_900 and len(errors) == 1 and errors[0]["code"] == -32700
        assert client.call("textDocument/hover", _hover(tmp_path))["result"] is None  # and stays in step
    finally:
        client.close()


async def test_lsp_forgets_notification_futures():
    """12: pygls 2.1.1 kept a future per notification; the server's protocol drops them once done.
    (bench/lsp_memory.py shows the resident memory over 10,000 edits.)"""
    import asyncio

    from jitlint.frontends.lsp.server import create_server

    server = create_server()
    protocol = server.protocol
    futures = protocol._request_futures

    async def handler(params):
        return None

    def plain(params):
        return None

    for _ in range(200):
        protocol._execute_handler("n-" + os.urandom(4).hex(), handler, protocol._check_handler_result, args=(None,))
        protocol._execute_handler("s-" + os.urandom(4).hex(), plain, protocol._check_handler_result, args=(None,))
    await asyncio.sleep(0.05)
    for _ in range(100):
        if not futures:
            break
        await asyncio.sleep(0.05)
    assert futures == {}


@pytest.mark.slow
def test_sentinel_file_is_never_executed(tmp_path):
    """Static mode reads, never runs: a file that writes a sentinel when imported, decorated, called or
    run as a script is linted by `jitlint check`, flake8 and the LSP, and no sentinel appears."""
    from lspwire import WireClient

    sentinel = tmp_path / "SENTINEL"
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(ROBUST / "sentinel.py", project / "sentinel.py")
    (project / "__init__.py").write_text("")
    env = {**os.environ, "JITLINT_SENTINEL": str(sentinel)}
    check = subprocess.run([jitlint_exe(), "check", "--no-cache", "--fix", "."], cwd=project, env=env,
                           capture_output=True, text=True, timeout=120)
    assert "applied 1 fix" in check.stderr, check.stderr
    shutil.copyfile(ROBUST / "sentinel.py", project / "sentinel.py")
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "JIT", "."], cwd=project, env=env,
                            capture_output=True, text=True, timeout=120)
    assert "JIT501" in flake8.stdout, flake8.stdout + flake8.stderr
    client = WireClient(cwd=project, env={"JITLINT_SENTINEL": str(sentinel)})
    try:
        client.initialize(project)
        uri = (project / "sentinel.py").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": (project / "sentinel.py").read_text()}})
        report = client.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert [d["code"] for d in report["result"]["items"]] == ["JIT501"]
    finally:
        client.close()
    assert not sentinel.exists() and not (project / "sentinel-written").exists()
    assert sentinel.parent.exists() and os.access(sentinel.parent, os.W_OK)  # it could have been written
    # the control: run, the same file does write it
    subprocess.run([sys.executable, str(ROBUST / "sentinel.py")], env=env, check=True, timeout=120,
                   capture_output=True)
    assert sentinel.read_text() == "called"
