"""Run the program as Python itself would (`python script.py`, `python -m module`), and show its
exceptions as Python would: the user's traceback, without the probe's or runpy's frames."""

import builtins
import importlib.util
import os
import runpy
import sys
import types
import zipfile

from .describe import exception_text
from .userfiles import in_probe

_RUNPY_FILE = os.path.abspath(runpy.__file__)


def run_script(target):
    """Like `python script.py`: a fresh `__main__` module, the file compiled under its absolute path
    (so tracebacks and code objects name it as Python would), sys.argv[0] as the user typed it."""
    path = os.path.abspath(target)
    if os.path.isdir(path) or not path.endswith((".py", ".pyw")) and _is_zip(path):
        runpy.run_path(path, run_name="__main__")  # a folder or zip with __main__.py
        return
    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None, __loader__=None,
                           __spec__=None, __package__=None)
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def _is_zip(path):
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


class NoSuchModule(Exception):
    """`jitlint run -m NAME` where the program's interpreter finds no module NAME: a usage error, as a
    missing script is, not a crash of the program."""


def run_module(target):
    """Like `python -m module` (sys.argv[0] becomes the module's file)."""
    try:
        found = importlib.util.find_spec(target)  # imports the parent packages, as runpy would next
    except ModuleNotFoundError as exc:
        if exc.name is None or not (target == exc.name or target.startswith(exc.name + ".")):
            raise  # a package of the program failed to import one of its own dependencies
        found = None
    if found is None:
        raise NoSuchModule(f"no module named {target!r}")
    runpy.run_module(target, run_name="__main__", alter_sys=True)


def user_traceback(tb):
    """Drop our own and runpy's frames from the top, as `python script.py` would show it."""
    while tb is not None and _ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def _ours(filename):
    # runpy's frames, and importlib.util's from run_module's look-up of the module: not the program's
    return in_probe(filename) or os.path.abspath(filename) == _RUNPY_FILE or filename == "<frozen importlib.util>"


def exception_summary(exc, is_user):
    frame_path = frame_line = None
    tb = exc.__traceback__
    while tb is not None:  # the innermost frame in a user file, not simply the last one
        if is_user(tb.tb_frame.f_code.co_filename):
            frame_path, frame_line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    return {"type": type(exc).__name__, "message": exception_text(exc), "path": frame_path, "line": frame_line}
