"""A one-line progress bar for long runs, on a terminal only.

`jitlint check` draws it on stderr when stderr is a TTY and `-q` is not given, and only once the run has
taken `delay` seconds: a short or cached run prints nothing, and output piped to a file or a CI log
never holds control characters. The line is erased when a phase ends.
"""

from __future__ import annotations

import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO, delay: float = 0.5, interval: float = 0.1, width: int = 28) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.width = width
        self._started = time.monotonic()
        self._label = ""
        self._total = 0
        self._done = 0
        self._last_draw = 0.0
        self._drawn = False

    def start(self, label: str, total: int) -> None:
        self._label, self._total, self._done = label, total, 0
        self._draw()

    def advance(self, n: int = 1) -> None:
        self._done += n
        self._draw()

    def done(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    def _draw(self) -> None:
        now = time.monotonic()
        too_soon = self._drawn and now - self._last_draw < self.interval and self._done < self._total
        if now - self._started < self.delay or too_soon:
            return
        self._last_draw = now
        total = max(self._total, 1)
        filled = min(self.width, self.width * self._done // total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self._label:<9}[{bar}] {self._done}/{self._total} files")
        self.stream.flush()
        self._drawn = True
