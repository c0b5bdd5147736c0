"""The one write path (jitlint.core.writing): links stay links, hard links stay shared, streams are written
as streams, and a file that changed since it was read is not overwritten."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from jitlint.core.writing import FileChanged, replace_content


def test_a_symbolic_link_stays_a_link_and_its_target_gets_the_content(tmp_path):
    target = tmp_path / "real.py"
    target.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    replace_content(link, b"new\n", expected=b"old\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new\n"


def test_a_chain_of_links_reaches_the_last_target(tmp_path):
    target = tmp_path / "real.json"
    (tmp_path / "a").symlink_to(target)
    (tmp_path / "b").symlink_to(tmp_path / "a")
    replace_content(tmp_path / "b", b"{}")  # a new file behind two links
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink() and target.read_bytes() == b"{}"


def test_hard_links_keep_sharing_one_file(tmp_path):
    one = tmp_path / "one.py"
    one.write_bytes(b"x = 1\n")
    two = tmp_path / "two.py"
    os.link(one, two)
    replace_content(one, b"x = 2\n", expected=b"x = 1\n")
    assert two.read_bytes() == b"x = 2\n" and os.stat(one).st_ino == os.stat(two).st_ino


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path):
    path = tmp_path / "model.py"
    path.write_bytes(b"edited by the user\n")
    with pytest.raises(FileChanged):
        replace_content(path, b"fixed\n", expected=b"as read\n")
    assert path.read_bytes() == b"edited by the user\n"
    assert [p.name for p in tmp_path.iterdir()] == ["model.py"]  # no temporary file left


def test_a_hard_linked_file_changed_since_it_was_read_is_not_overwritten(tmp_path):
    path = tmp_path / "model.py"
    path.write_bytes(b"edited\n")
    os.link(path, tmp_path / "other.py")
    with pytest.raises(FileChanged):
        replace_content(path, b"fixed\n", expected=b"as read\n")
    assert path.read_bytes() == b"edited\n"


def test_the_mode_is_kept_and_a_new_file_gets_the_umask(tmp_path):
    path = tmp_path / "script.py"
    path.write_bytes(b"a\n")
    path.chmod(0o751)
    replace_content(path, b"b\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    mask = os.umask(0o022)
    try:
        replace_content(tmp_path / "new.json", b"{}")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644


def test_a_pipe_is_written_as_a_stream(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    replace_content(fifo, b"report")
    reader.join(10)
    assert got == [b"report"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_dev_fd_name_is_written_to_its_descriptor_at_its_offset(tmp_path):
    # /dev/stdout is /dev/fd/1: the descriptor gets the report where it stands, even in a regular file
    out = tmp_path / "report.json"
    with open(out, "wb") as fh:
        fh.write(b"earlier output\n")
        fh.flush()
        replace_content(f"/dev/fd/{fh.fileno()}", b"the report\n")
        fh.write(b"the summary\n")
    assert out.read_bytes() == b"earlier output\nthe report\nthe summary\n"
