"""`--output-file` / `-o` of `jitlint check` and `jitlint run`: a report written to a file, replaced atomically
(a reader such as a CI upload step never sees half of it; a failed write leaves the old one)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def target_problem(name: str) -> str | None:
    """Why a report cannot be written to `name` (checked before the work, to fail fast), or None."""
    path = Path(name)
    if path.is_dir():
        return "is a folder"
    if not path.parent.is_dir():
        return "no such folder"
    return None


def write_report(name: str, text: str) -> None:
    """Write `text` to the file `name`; a pipe or a device (`/dev/stdout`) is written to as it is. OSError
    when it cannot be written."""
    path = Path(name)
    # The bytes standard output would get: a file name that is not UTF-8 keeps its own bytes.
    data = text.encode("utf-8", "surrogateescape")
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as fh:
            fh.write(data)
        return
    from jitlint.core.fixes import write_atomically

    write_atomically(path, data)
    if mode is None:  # a new file: the permissions the user's umask gives, not the temporary file's 0600
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(path, 0o666 & ~umask)
