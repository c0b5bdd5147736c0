"""libcst's `parse_module`, without validating the nodes its own parser builds.

Every libcst node checks itself when it is built (`CSTNode.__post_init__` calls `_validate`); for the
nodes of a parse that is redundant (libcst's own source says so), and it costs 10-15% of the parse,
the largest part of a cold `jitlint check`. So while a thread parses here, `__post_init__` skips
`_validate` for that thread only: nodes built by any other thread meanwhile (the language server builds
fixes while its worker parses), and by every thread before and after, are validated as always.

One thread at a time parses this way (a second parses normally meanwhile), and libcst versions whose
`__post_init__` does anything but call `_validate` are parsed normally too. `unvalidated()` gives the
same to any block: the engine analyses the quick tree (jitlint.source.fromast) in one, so that the copies
libcst makes of its nodes (`children`, the rules' fix nodes) are not validated either; that tree is
never written out.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

_lock = threading.Lock()
_owner: int | None = None  # the thread whose parse skips validation
_hook = None  # (CSTNode, its own __post_init__, the skipping one) once checked; False: not available


def _check_hook():
    """CSTNode's __post_init__, when it is exactly `self._validate()` and no node class has its own."""
    global _hook
    if _hook is None:
        _hook = False
        try:
            # why: libcst's private module, looked up at the first parse; without it, parses validate as usual
            from libcst._nodes.base import CSTNode
        except ImportError:
            return False
        original = CSTNode.__dict__.get("__post_init__")
        code = getattr(original, "__code__", None)
        if code is None or code.co_names != ("_validate",) or not callable(getattr(CSTNode, "_validate", None)):
            return False
        todo, seen = list(CSTNode.__subclasses__()), set()
        while todo:
            cls = todo.pop()
            if cls in seen:
                continue
            seen.add(cls)
            if "__post_init__" in cls.__dict__:
                return False
            todo.extend(cls.__subclasses__())
        get_ident = threading.get_ident

        def skipping(self) -> None:
            if get_ident() != _owner:
                self._validate()

        _hook = (CSTNode, original, skipping)
    return _hook


@contextmanager
def unvalidated():
    """While the block runs, libcst nodes this thread builds skip `_validate` (where that can be done)."""
    global _owner
    hook = _check_hook()
    if not hook or not _lock.acquire(blocking=False):
        yield
        return
    node_class, original, skipping = hook
    try:
        _owner = threading.get_ident()
        node_class.__post_init__ = skipping
        yield
    finally:
        node_class.__post_init__ = original
        _owner = None
        _lock.release()


def parse_module(source: str):
    """`libcst.parse_module(source)`: the same module, or the same exception."""
    import libcst as cst  # why: importing this module stays free of libcst (0.2 s); the first parse loads it

    with unvalidated():
        return cst.parse_module(source)
