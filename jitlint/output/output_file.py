"""`--output-file` / `-o` of `jitlint check` and `jitlint run`: a report written to a file, replaced atomically
(a reader such as a CI upload step never sees half of it; a failed write leaves the old one): jitlint.core.writing."""

from __future__ import annotations

from pathlib import Path

from jitlint.core.writing import replace_content


def target_problem(name: str) -> str | None:
    """Why a report cannot be written to `name` (checked before the work, to fail fast), or None."""
    path = Path(name)
    if path.is_dir():
        return "is a folder"
    if not path.parent.is_dir():
        return "no such folder"
    return None


def write_report(name: str, text: str) -> None:
    """Write `text` to the file `name` (through a link to its target; a pipe or a device such as
    `/dev/stdout` as a stream). OSError when it cannot be written."""
    # The bytes standard output would get: a file name that is not UTF-8 keeps its own bytes.
    replace_content(name, text.encode("utf-8", "surrogateescape"))
