"""The one way jitlint writes a file: reports (`-o`), fixes, `--add-noqa`, and its cache's own files.

What the user's file system holds stays as the user made it:
* a symbolic link stays a link: its target gets the new content;
* a file with other hard links is written in place, so every name still sees one file;
* a name of this process's own descriptor (`-o /dev/stdout`, `/dev/fd/3`) is written to that descriptor, and
  a pipe or a device as a stream: never replaced;
* anything else is replaced atomically (a temporary file in the same folder, renamed over it), so a reader
  sees the old content or the new, never a part; the file keeps its mode, a new file gets the umask's;
* `expected`: the bytes the new content was computed from. When the file no longer holds them (an editor
  saved it meanwhile), nothing is written and `FileChanged` says so.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path


class FileChanged(OSError):
    """The file changed after jitlint read it: writing would lose that change."""

    def __init__(self, path: str | os.PathLike):
        super().__init__(f"{os.fspath(path)} changed since it was read; not written")
        self.strerror = "the file changed since it was read (not written)"


def replace_content(path: str | os.PathLike, data: bytes, *, expected: bytes | None = None) -> None:
    """Give the file at `path` the content `data` (see the module's docstring). OSError (a read-only
    folder, a full disk, FileChanged) leaves the file as it was and no temporary file behind."""
    name = os.fspath(path)
    fd = own_descriptor(name)
    if fd is not None:  # `-o /dev/stdout`: this process's own stream, at its own offset
        _write_descriptor(fd, data)
        return
    if _is_stream_name(name):
        with open(name, "ab") as out:  # reopening a descriptor's file must not truncate what it holds (`>>`)
            out.write(data)
        return
    target = Path(os.path.realpath(name))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(target, "wb") as out:  # a FIFO or a device: there is nothing to replace
            out.write(data)
        return
    if st is not None and st.st_nlink > 1:
        _write_in_place(target, data, expected)
        return
    if expected is not None:
        _check_unchanged(target, expected)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".jitlint-tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, st.st_mode & 0o7777 if st is not None else 0o666 & ~_umask())
        if expected is not None:  # once more, as late as can be: an editor may have saved while we wrote
            _check_unchanged(target, expected)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)")


def own_descriptor(name: str) -> int | None:
    """The descriptor of this process a name stands for (`/dev/stdout`, `/dev/fd/3`), if it does."""
    absolute = os.path.abspath(name)
    if absolute in _STANDARD:
        return _STANDARD[absolute]
    m = _DESCRIPTOR.fullmatch(absolute)
    return int(m.group(1)) if m else None


def _write_descriptor(fd: int, data: bytes) -> None:
    # whatever Python buffered for the same stream goes first; reopening the name instead would write
    # from another offset (over the start of a file the shell redirected it to)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()
        except (OSError, ValueError):
            pass
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _is_stream_name(name: str) -> bool:
    # /dev/stdout is a link to /proc/self/fd/1, whose target may be a regular file the shell opened
    # (`> report.json`): replacing that file's name would not reach the open descriptor's stream.
    absolute = os.path.abspath(name)
    return absolute.startswith(("/dev/", "/proc/"))


def _check_unchanged(target: Path, expected: bytes) -> None:
    try:
        now = target.read_bytes()
    except FileNotFoundError:
        now = None
    if now != expected:
        raise FileChanged(target)


def _write_in_place(target: Path, data: bytes, expected: bytes | None) -> None:
    with open(target, "r+b") as fh:
        if expected is not None and fh.read() != expected:
            raise FileChanged(target)
        fh.seek(0)
        fh.write(data)
        fh.truncate()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class WritesInterrupted(KeyboardInterrupt):
    """Ctrl-C while files were being written: the files written before it (each whole), for the user."""

    def __init__(self, written: list[str]):
        super().__init__(f"interrupted after writing {len(written)} files")
        self.written = written


class InterruptBetweenFiles:
    """Within the block, Ctrl-C (SIGINT) takes effect between files, never during one: `pending()` says
    whether it came; the caller stops there and raises WritesInterrupted. Off the main thread (where no
    signal handler can be set), or where nothing is `writing`, Ctrl-C is left as it is."""

    def __init__(self, writing: bool = True) -> None:
        self._writing = writing
        self._came = False
        self._old = None

    def pending(self) -> bool:
        return self._came

    def __enter__(self) -> "InterruptBetweenFiles":
        if self._writing and threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum, frame) -> None:
        self._came = True

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
