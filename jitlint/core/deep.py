"""Room for deep recursion: valid code nested as deep as CPython accepts (about 3,000 levels of operators,
200 of brackets) outgrows the default recursion limit in `ast`'s objects, libcst's visitors and the
analysis. Such a file is handled again on a thread with a large stack and a high recursion limit.
Only after a RecursionError: ordinary files never pay for the thread.
"""

from __future__ import annotations

import sys
import threading

STACK_BYTES = 512 * 1024 * 1024  # address space, touched only as deep as the recursion goes
RECURSION_LIMIT = 200_000
# A thread calls `fn` under 4 frames (Thread._bootstrap, _bootstrap_inner, run, the target), a script's
# top level is 1 frame deep: `same_as_script` limits count from there.
_THREAD_FRAMES = 3
_THREAD_NAME = "jitlint-deep"
_lock = threading.Lock()  # the recursion limit is per process: one deep run at a time


def run_deep(fn, *args, same_as_script: bool = False):
    """`fn(*args)` on a thread with room to recurse (a fresh stack, a high recursion limit); its result,
    or the exception it raised. `same_as_script`: the usual recursion limit, as if `fn` ran at the top
    level of a script (so `compile` refuses exactly what `python file.py` refuses)."""
    if threading.current_thread().name == _THREAD_NAME:
        return fn(*args)  # already on a deep thread (its lock is held): room enough
    out: dict = {}

    def target() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            out["error"] = exc

    with _lock:
        old_limit = sys.getrecursionlimit()
        old_size = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            sys.setrecursionlimit(old_limit + _THREAD_FRAMES if same_as_script else max(old_limit, RECURSION_LIMIT))
            thread = threading.Thread(target=target, name=_THREAD_NAME, daemon=True)
            thread.start()
            threading.stack_size(old_size)
            thread.join()
        finally:
            threading.stack_size(old_size)
            sys.setrecursionlimit(old_limit)
    if "error" in out:
        raise out["error"]
    return out["value"]
