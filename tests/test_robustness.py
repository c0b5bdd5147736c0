"""Any file gives findings or a clear JIT000, never a traceback."""

from jitlint.engine import check_source, lint_source


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


def test_huge_file_is_linted():
    chunk = "import jax\n\n@jax.jit\ndef f{i}(x):\n    print(x)\n    return x\n\n"
    text = "".join(chunk.format(i=i) for i in range(2000))
    findings = lint_source(text, "huge.py")
    assert len(findings) == 2000 and {f.code for f in findings} == {"JIT501"}


def test_empty_and_whitespace_files():
    assert lint_source("", "empty.py") == []
    assert lint_source("\n\n   \n", "ws.py") == []


def test_file_level_suppression():
    text = "# jitlint: noqa\nimport jax\n\n@jax.jit\ndef f(x):\n    print(x)\n"
    assert lint_source(text, "skip.py") == []


def test_warnings_for_malformed_noqa():
    text = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)  # noqa: JIT\n"
    result = check_source(text, "w.py")
    assert [f.code for f in result.findings] == ["JIT501"]
    assert result.warnings and "w.py:5: warning" in result.warnings[0]
