"""Files whose lines end in a lone \\r (old Mac files, some generators): `# noqa` is read and added
where Python's lines are, and `--diff` is a patch that `patch` applies."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jitlint.core.fixes import unified_diff
from jitlint.core.noqa import LineComments, add_noqa, comments_by_line

LONE_CR = "import jax\r@jax.jit\rdef f(x):\r    print(x)  # noqa: JIT501\r    return x\r"


def test_a_noqa_comment_is_found_on_its_own_line():
    assert comments_by_line(LONE_CR) == {4: "# noqa: JIT501"}
    assert LineComments(LONE_CR).comments == {4: "# noqa: JIT501"}


def test_add_noqa_is_idempotent_and_keeps_the_line_endings():
    assert add_noqa(LONE_CR, {4: ["JIT501"]}) == (LONE_CR, 0, [])
    added, n, _ = add_noqa(LONE_CR, {5: ["JIT501"]})
    assert n == 1 and added == LONE_CR.replace("    return x\r", "    return x  # noqa: JIT501\r")
    assert add_noqa(added, {5: ["JIT501"]})[1] == 0


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"])
def test_diffs_of_any_line_ending_are_applied_by_patch(tmp_path, ending):
    files = {"a.py": ("x = 1{e}y = 2{e}", "x = 1{e}y = 3{e}"), "b.py": ("p = 1{e}q = 2", "p = 1{e}q = 5")}
    diff = ""
    for name, (old, new) in files.items():
        old, new = old.format(e=ending), new.format(e=ending)
        (tmp_path / name).write_bytes(old.encode())
        diff += unified_diff(name, old, new)
    applied = subprocess.run(["patch", "-p0", "--binary"], input=diff.encode(), cwd=tmp_path, capture_output=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    for name, (_, new) in files.items():
        assert (tmp_path / name).read_bytes() == new.format(e=ending).encode()
