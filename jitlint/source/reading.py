"""A file's bytes and its text: read only regular files, up to the size limit, and decode like Python does.

Nothing here parses; the lint pipeline (jitlint.lint.pipeline) decodes what the project's runs
(jitlint.project.runner) read.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize

from jitlint.core.config import Config


def source_encoding(data: bytes) -> str:
    """The encoding Python reads `data` in: "utf-8-sig" after a BOM, a PEP 263 coding cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return encoding


def decode_source(data: bytes) -> str:
    """Decode like Python does: BOM, then a PEP 263 coding cookie, then UTF-8."""
    text = data.decode(source_encoding(data))
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


class SourceError(OSError):
    """A path that is not read as source: not a regular file, or over the size limit."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message


# A notebook's bytes are mostly its outputs (plots as base64): its file may be this many times the limit,
# which then holds its code cells, the part that is parsed.
NOTEBOOK_OUTPUT_ALLOWANCE = 16


def read_source(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """A file's bytes, for regular files only (a FIFO would block, `/dev/zero` never ends), and at most
    `limit` bytes (Config.max_file_size; for a notebook, of code cells): OSError otherwise, with a message
    for the user."""
    limit = Config.max_file_size if limit is None else limit
    if os.fspath(path).endswith(".ipynb"):
        data = _read_regular(path, limit * NOTEBOOK_OUTPUT_ALLOWANCE)
        if len(data) > limit and _notebook_code_size(data) > limit:
            raise SourceError(f"the notebook's code is larger than the {limit}-byte limit (max-file-size), not read")
        return data
    return _read_regular(path, limit)


def _notebook_code_size(data: bytes) -> int:
    from jitlint.source.notebook import NotebookError, read_notebook  # notebooks over the limit only

    try:
        return len(read_notebook(data).source.encode("utf-8", "surrogatepass"))
    except NotebookError:
        return len(data)


def _read_regular(path: str | os.PathLike, limit: int) -> bytes:
    # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then tells what was opened
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("not a regular file")
        if st.st_size > limit:
            raise SourceError(f"file is larger than the {limit}-byte limit (max-file-size), not read")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:  # it grew while being read
            raise SourceError(f"file is larger than the {limit}-byte limit (max-file-size), not read")
        return data
    finally:
        os.close(fd)
