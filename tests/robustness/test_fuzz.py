"""Generated inputs: programs (hypothesmith) inside jitted functions through `check_source` and `--fix`,
random byte damage to cache files, random LSP edit sequences against `check_source`, and malformed
JSON-RPC framing.

Sized for CI (well under 3 minutes on 2 cores). For a longer run set JITLINT_FUZZ_EXAMPLES, a multiplier
of every test's example count (e.g. `JITLINT_FUZZ_EXAMPLES=50 pytest tests/robustness/test_fuzz.py`, about an
hour); hypothesis' database (.hypothesis/) keeps any failure found for the next run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import textwrap
import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitlint.core.config import Config
from jitlint.lint.pipeline import check_source
from jitlint.lint.results import PARSE_ERROR_CODE
from jitlint.project.runner import lint_paths
from jitlint.core.fixes import compiles

pytestmark = pytest.mark.slow  # fuzzing: hypothesmith programs, cache damage, LSP edit sequences

SCALE = max(1, int(os.environ.get("JITLINT_FUZZ_EXAMPLES", "1")))
ROBUST = Path(__file__).resolve().parents[1] / "fixtures" / "robustness"


def fuzz_settings(examples: int):
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=list(HealthCheck), database=None if SCALE == 1 else settings().database)


def compiles_here(code: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(code, "<gen>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


def in_jitted_function(code: str) -> str:
    """The generated statements as the body of a jitted function that prints a traced value first."""
    body = textwrap.indent(code if code.strip() else "pass\n", "    ")
    return ("import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x, y):\n    print(x)\n    z = jnp.sin(y)\n"
            + body + ("\n" if not body.endswith("\n") else "") + "    return x\n")


def internal_errors(findings) -> list:
    return [f for f in findings if f.code == PARSE_ERROR_CODE and "internal error" in f.message]


programs = hypothesmith.from_grammar(start="file_input").filter(compiles_here)


@fuzz_settings(300)
@given(programs)
def test_generated_programs_lint_without_internal_errors(code):
    source = in_jitted_function(code)
    result = check_source(source, "gen.py")
    assert not internal_errors(result.findings), (source, result.findings)
    if compiles_here(source):  # the print before the generated code is seen (unless the body refuses)
        assert any(f.code == "JIT501" and f.line == 7 for f in result.findings) or any(
            f.code == PARSE_ERROR_CODE for f in result.findings), (source, result.findings)


@fuzz_settings(150)
@given(programs)
def test_generated_programs_fix(tmp_path_factory, code):
    """--fix: every written output compiles here, a second --fix changes nothing, the fixed print is gone."""
    source = in_jitted_function(code)
    if not compiles_here(source):
        return
    folder = tmp_path_factory.mktemp("fix")
    path = folder / "gen.py"
    path.write_text(source, encoding="utf-8")
    first = lint_paths([str(folder)], Config(), fix=True)
    new = path.read_text(encoding="utf-8")
    assert compiles(new), new
    assert not internal_errors(first.findings)
    if first.files[0].fixes_applied:
        assert new != source and "jax.debug.print(\"{!s}\", x" in new
        assert not any(f.code == "JIT501" and f.line == 7 for f in first.findings)
    second = lint_paths([str(folder)], Config(), fix=True)
    assert path.read_text(encoding="utf-8") == new and not second.files[0].fixes_applied
    assert second.findings == first.findings


# ------------------------------------------------------------------------------------------ the cache


@pytest.fixture(scope="module")
def cached_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("cache")
    project = root / "p"
    project.mkdir()
    for name in ("builtins_print.py", "fix_inner_comment.py", "compile_return_outside.py"):
        shutil.copyfile(ROBUST / name, project / name)
    cache = root / "cache"
    clean = lint_paths([str(project)], Config(), cache_dir=cache)
    files = {p.name: p.read_bytes() for p in cache.glob("*/*.json")}
    return project, cache, clean, files


@fuzz_settings(300)
@given(st.data())
def test_damaged_cache_gives_the_same_results(cached_project, data):
    project, cache, clean, files = cached_project
    folder = next(cache.glob("*-py*"))
    for name, content in files.items():
        blob = bytearray(content)
        for _ in range(data.draw(st.integers(0, 6), label=f"damages to {name}")):
            kind = data.draw(st.sampled_from(["flip", "delete", "insert", "truncate", "digit"]))
            at = data.draw(st.integers(0, max(0, len(blob) - 1)))
            if kind == "flip" and blob:
                blob[at] ^= 1 << data.draw(st.integers(0, 7))
            elif kind == "delete":
                del blob[at:at + data.draw(st.integers(1, 20))]
            elif kind == "insert":
                blob[at:at] = data.draw(st.binary(min_size=1, max_size=8) | st.sampled_from(
                    [b"[", b"{", b'"', b"-1", b"true", b"1.5", b"null", b'"3"']))
            elif kind == "truncate":
                del blob[at:]
            elif kind == "digit" and blob:  # a plausible change: a number becomes another number
                digits = [i for i, b in enumerate(blob) if 48 <= b <= 57]
                if digits:
                    blob[digits[at % len(digits)]] = data.draw(st.integers(48, 57))
        (folder / name).write_bytes(bytes(blob))
    run = lint_paths([str(project)], Config(), cache_dir=cache)
    assert [(r.path, r.findings, r.warnings) for r in run.files] == \
        [(r.path, r.findings, r.warnings) for r in clean.files]


# ------------------------------------------------------------------------------------------ the LSP


SNIPPETS = ["print(x)\n", "    print(x)\n", "@jax.jit\n", "def g(x):\n", "if x > 0:\n", "return x\n", "\r", "\x0c",
            "\u2028", "é😀", "(", ")", "\n", "    ", "jax.debug.print('{}', x)\n", "for i in range(x):\n",
            "# noqa\n", "  # noqa: JIT501", "import jax\n", "x = jnp.ones(3)\n", "\"\"\"", "\\\n"]


@fuzz_settings(300)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 30), st.sampled_from(SNIPPETS)), min_size=1, max_size=12))
def test_random_lsp_edits_match_check_source(wire_lsp, edits):
    """The diagnostics pulled after a sequence of edits are what `check_source` says of the final text."""
    wire_lsp.docs += 1
    path = wire_lsp.root / f"doc{wire_lsp.docs}.py"
    uri = path.as_uri()
    text = (ROBUST / "builtins_print.py").read_text()
    wire_lsp.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 0,
                                                         "text": text}})
    for version, (where, cut, snippet) in enumerate(edits, 1):
        at = int(where * len(text))
        text = text[:at] + snippet + text[at + min(cut, len(text) - at):]
        wire_lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                              "contentChanges": [{"text": text}]})
    report = wire_lsp.call("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    wire_lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    expected = check_source(text, str(path), Config(root=wire_lsp.root)).findings
    got = [(d["code"], d["range"]["start"]["line"], d["message"]) for d in report["items"]]
    assert got == [(f.code, f.line - 1, f.message) for f in expected], text


@fuzz_settings(200)
@given(st.lists(st.sampled_from(["header", "length-", "length+", "lf", "garbage", "split", "valid"]),
                min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_malformed_framing_then_a_valid_request_is_answered(wire_lsp, damages, rnd: random.Random):
    from lspwire import frame

    hover = {"textDocument": {"uri": (wire_lsp.root / "none.py").as_uri()}, "position": {"line": 0, "character": 0}}
    raw = b""
    for damage in damages:
        body = json.dumps({"jsonrpc": "2.0", "method": "$/noSuchNotification", "params": {"n": rnd.random()}}).encode()
        if damage == "header":
            raw += b"Content-Type: x\r\n\r\n" + body
        elif damage == "length-":
            raw += b"Content-Length: %d\r\n\r\n" % rnd.randint(0, len(body) - 1) + body
        elif damage == "length+":
            raw += b"Content-Length: %d\r\n\r\n" % (len(body) + rnd.randint(1, 50)) + body
        elif damage == "lf":
            raw += b"Content-Length: %d\n\n" % len(body) + body
        elif damage == "garbage":
            raw += bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 40)))
        elif damage == "split":
            raw += frame(body)[: rnd.randint(1, 10)]
        else:
            raw += frame(body)
    answer, _ = wire_lsp.wait_for(wire_lsp.request("textDocument/hover", hover, raw_prefix=raw), timeout=30)
    assert answer.get("result", "missing") is None


@fuzz_settings(80)
@given(st.one_of(hypothesmith.from_node(), hypothesmith.from_grammar()))
def test_quick_tree_is_libcsts_tree_on_generated_programs(code):
    """Any program CPython and libcst both accept: the quick tree (jitlint.source.fromast) equals libcst's parse
    in what the analysis reads, or the builder leaves the file to libcst (`Unsupported`)."""
    import ast

    from jitlint.source.cstparse import parse_module
    from jitlint.source.fromast import Unsupported, differences, quick_module

    if not compiles_here(code):
        return
    try:
        real = parse_module(code)
    except Exception:  # syntax libcst does not support: `jitlint check` reports it (JIT000)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(code)
    try:
        quick = quick_module(tree, code)
    except Unsupported:
        return
    assert differences(quick, real) == []


# ------------------------------------------------------------------------------------------ odd layouts

ENDINGS = ["\n", "\r\n", "\r"]


@fuzz_settings(150)
@given(programs, st.sampled_from(ENDINGS), st.integers(0, 3), st.booleans(), st.booleans())
def test_odd_layouts_place_findings_where_cpython_reads_them(code, ending, backslashes, form_feed, noqa):
    """Line endings of every kind, lines holding only `\\` before the jitted function (which libcst may read
    otherwise than CPython), a form feed: valid Python is never a syntax error, the print is reported at
    its own line, and a `# noqa` on that line suppresses it."""
    source = in_jitted_function(code)
    lines = source.split("\n")
    at = 4  # the decorator's line (0-based): `\` lines go above it, each joined to the next
    lines[at:at] = ["\\"] * backslashes
    if form_feed:
        lines.insert(1, "\x0c")
    print_line = 7 + backslashes + form_feed
    if noqa:
        lines[print_line - 1] += "  # noqa: JIT501"
    text = ending.join(lines)
    if not compiles_here(text):
        return
    result = check_source(text, "gen.py")
    assert not internal_errors(result.findings), (text, result.findings)
    assert not any(f.code == PARSE_ERROR_CODE and "syntax error" in f.message for f in result.findings), result.findings
    printed = [f for f in result.findings if f.code == "JIT501" and f.line == print_line]
    assert bool(printed) != noqa, (repr(text), result.findings)


# ------------------------------------------------------------------------------------------ links and edits

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"
KINDS = ["plain", "symlink", "hardlink", "edited"]


@fuzz_settings(40)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=5), st.sampled_from(["\n", "\r\n", "\r"]))
def test_fix_writes_through_links_and_never_over_an_edit(tmp_path_factory, monkeypatch, kinds, ending):
    """Files reached through symbolic links, files with a second hard link, files the user saves while
    --fix runs: links stay links (their targets fixed), hard links stay shared, an edit made meanwhile is
    kept, and line endings are the file's own."""
    from jitlint.core import writing

    root = tmp_path_factory.mktemp("links")
    (root / "src").mkdir()
    (root / "lint").mkdir()
    text = BAD.replace("\n", ending)
    edited = {}
    for n, kind in enumerate(kinds):
        name = f"m{n}.py"
        if kind == "symlink":
            (root / "src" / name).write_bytes(text.encode())
            (root / "lint" / name).symlink_to(root / "src" / name)
        else:
            (root / "lint" / name).write_bytes(text.encode())
            if kind == "hardlink":
                os.link(root / "lint" / name, root / "src" / name)
            if kind == "edited":
                edited[str(root / "lint" / name)] = f"# the user's edit {n}\n".encode()
    real = writing.replace_content

    def saved_meanwhile(path, data, *, expected=None):
        if os.fspath(path) in edited:
            Path(path).write_bytes(edited[os.fspath(path)])  # the editor saves just before jitlint writes
        return real(path, data, expected=expected)

    monkeypatch.setattr("jitlint.lint.fixing.replace_content", saved_meanwhile)
    run = lint_paths([str(root / "lint")], Config(), fix="safe")
    by_name = {Path(r.path).name: r for r in run.files}
    for n, kind in enumerate(kinds):
        name = f"m{n}.py"
        here, there = root / "lint" / name, root / "src" / name
        if kind == "edited":
            assert here.read_bytes() == edited[str(here)] and by_name[name].fix_error
            continue
        fixed = here.read_bytes()
        assert b"jax.debug.print" in fixed and fixed.count(ending.encode()) == text.count(ending), fixed
        assert compiles(fixed.decode())
        if kind == "symlink":
            assert here.is_symlink() and there.read_bytes() == fixed
        if kind == "hardlink":
            assert os.path.samefile(here, there) and there.read_bytes() == fixed
