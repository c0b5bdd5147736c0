"""What the probe wraps or listens to: JAX's flags, loggers and duration events, `jax.jit` (and
`equinox.filter_jit`), `jax.errors`, the tracer's `__iter__`, `print`, `logging.Logger`, and the ways a
program starts Python subprocesses. Each wrapper notes what it saw on the `Probe` (recorder.py) and
then does what the original does; an instrumentation bug is logged (debuglog.py), never raised.

The wrappers count frames (`sys._getframe`): one wrapper frame sits between the program's call and
the original, and `logging`'s `stacklevel` is raised by one to match."""

import builtins
import functools
import importlib.util
import logging
import os
import sys

from .debuglog import log
from .userfiles import innermost_user_frame

LOGGING_FILE = os.path.normcase(os.path.abspath(logging.__file__))


def install(probe, jax):
    """Instrument the program's process; `jax` is imported already, the program not yet started."""
    probe.is_user.exclude(os.path.dirname(os.path.abspath(jax.__file__)))
    for name in ("jaxlib", "ml_dtypes", "numpy", "opt_einsum", "scipy"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            probe.is_user.exclude(os.path.dirname(os.path.abspath(mod.__file__)))
    core = getattr(jax, "core", None)
    probe.tracer_type = getattr(core, "Tracer", None)
    probe.flatten_with_path = getattr(getattr(jax, "tree_util", None), "tree_flatten_with_path", None)
    probe.misses.swallow_explain = not _flag(jax, "jax_explain_cache_misses")
    probe.misses.swallow_compile_logs = not _flag(jax, "jax_log_compiles")
    for flag in ("jax_explain_cache_misses", "jax_log_compiles"):
        try:
            jax.config.update(flag, True)
        except Exception as exc:  # an old JAX without the flag: fewer causes, same statuses
            log(exc)
    # why: no module-level jax import here: jax loads in session.main, once the program's sys.path is set
    from jax import monitoring

    monitoring.register_event_duration_secs_listener(probe.misses.on_duration)
    _wrap_logging(probe)
    _wrap_print(probe)
    _wrap_tracer_iter(probe)
    _wrap_jit(probe, jax)
    # equinox caches re-wrapped functions (its jax.jit call happens once): watch filter_jit itself
    _after_import("equinox", lambda module: _wrap_jit(probe, module, "filter_jit"))
    # flax.nnx.jit wraps the user's function in its own jitted one: note which function it was handed
    _after_import("flax.nnx", lambda module: _wrap_jit(probe, module, "jit"))
    _wrap_errors(probe, jax)
    _after_import("subprocess", functools.partial(_wrap_subprocess, probe))
    _after_import("multiprocessing", functools.partial(_wrap_multiprocessing, probe))


def _flag(jax, name):
    try:
        return bool(getattr(jax.config, name))
    except Exception:
        try:
            return bool(jax.config.read(name))
        except Exception:
            return False


# ---- JAX ----------------------------------------------------------------------------------------


def _wrap_jit(probe, owner, attr="jit"):
    """Replace `owner.jit` (jax.jit, equinox.filter_jit) by a function that notes where it is called
    and returns the library's own object, so `.lower`, `.trace` etc. keep working."""
    real_jit = getattr(owner, attr, None)
    if real_jit is None or getattr(real_jit, "_jitlint_wrapped", False):
        return

    @functools.wraps(real_jit)
    def jit(*args, **kwargs):
        if not args:  # the decorator-factory form: jax.jit(static_argnames=...)
            decorator = real_jit(**kwargs)

            def jit_decorator(fun, *more, **more_kwargs):
                probe.note_jit_site(fun)
                return decorator(fun, *more, **more_kwargs)

            return jit_decorator
        probe.note_jit_site(args[0])
        return real_jit(*args, **kwargs)

    jit._jitlint_wrapped = True
    setattr(owner, attr, jit)


def _wrap_errors(probe, jax):
    """Note where each of JAX's error classes is created, so errors the program catches are seen too."""
    errors = getattr(jax, "errors", None)
    if errors is None:
        return
    for name in dir(errors):
        cls = getattr(errors, name)
        if not (isinstance(cls, type) and issubclass(cls, BaseException) and "__init__" in cls.__dict__):
            continue

        def make(real):
            @functools.wraps(real)
            def __init__(self, *args, **kwargs):
                real(self, *args, **kwargs)
                try:
                    frame = innermost_user_frame(sys._getframe(1), probe.is_user)
                    if frame is not None:
                        probe.note_exception(self, frame.f_code.co_filename, frame.f_lineno)
                except Exception as exc:
                    log(exc)
            return __init__

        try:
            cls.__init__ = make(cls.__dict__["__init__"])
        except (TypeError, AttributeError):
            pass


def _wrap_tracer_iter(probe):
    """Note user lines that iterate over a tracer (`for row in x` under jit): each iteration is
    unrolled into the traced program."""
    tracer_type = probe.tracer_type
    real_iter = getattr(tracer_type, "__iter__", None) if tracer_type is not None else None
    if real_iter is None or getattr(real_iter, "_jitlint_wrapped", False):
        return

    @functools.wraps(real_iter)
    def __iter__(tracer):
        try:
            frame = sys._getframe(1)
            if probe.is_user(frame.f_code.co_filename):
                probe.note_unrolled(frame, tracer)
        except Exception as exc:
            log(exc)
        return real_iter(tracer)

    __iter__._jitlint_wrapped = True
    tracer_type.__iter__ = __iter__


# ---- output: logging and print ------------------------------------------------------------------


def _wrap_logging(probe):
    """`logging.Logger`'s methods: JAX's records go to the misses (and are swallowed when the flags are
    ours); a user line's record is noted if it logs a tracer."""

    def wrap(method_name):
        real = getattr(logging.Logger, method_name)

        @functools.wraps(real)
        def method(self, *args, **kwargs):
            if self.name.startswith("jax"):
                try:
                    if probe.misses.jax_record(method_name, args):
                        return None
                except Exception as exc:
                    log(exc)
            try:
                frame = sys._getframe(1)
                while frame is not None and os.path.normcase(frame.f_code.co_filename) == LOGGING_FILE:
                    frame = frame.f_back
                if frame is not None and probe.is_user(frame.f_code.co_filename):
                    probe.note_output("logging", frame, args[1:] if method_name == "log" else args)
            except Exception as exc:
                log(exc)
            # our frame sits between the caller and logging: keep %(lineno)s etc. the caller's
            kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
            return real(self, *args, **kwargs)

        setattr(logging.Logger, method_name, method)

    for name in ("debug", "info", "warning", "error", "exception", "critical", "log"):
        wrap(name)


def _wrap_print(probe):
    real_print = builtins.print

    @functools.wraps(real_print)
    def print(*args, **kwargs):
        if args:
            try:
                frame = sys._getframe(1)
                if probe.is_user(frame.f_code.co_filename):
                    probe.note_output("print", frame, args)
            except Exception as exc:
                log(exc)
        return real_print(*args, **kwargs)

    builtins.print = print


# ---- Python subprocesses: not instrumented, but counted so the report can say so -----------------


def is_python_command(args, executable=None):
    """Does this Popen command start a Python interpreter (`sys.executable`, `python3 ...`)?"""
    program = executable
    if program is None:
        if isinstance(args, (str, bytes, os.PathLike)):
            text = os.fsdecode(args)
            program = text.split()[0] if text.split() else text
        elif args:
            program = args[0]
    if program is None:
        return False
    program = os.fsdecode(program)
    name = os.path.basename(program).lower()
    if name.startswith("python") or name.startswith("pypy"):
        return True
    try:
        return os.path.realpath(program) == os.path.realpath(sys.executable)
    except (OSError, ValueError):
        return False


def _wrap_subprocess(probe, module):
    popen = getattr(module, "Popen", None)
    real_init = getattr(popen, "__init__", None)
    if real_init is None or getattr(real_init, "_jitlint_wrapped", False):
        return

    @functools.wraps(real_init)
    def __init__(self, args, *rest, **kwargs):
        try:
            if is_python_command(args, kwargs.get("executable")):
                probe.note_subprocess("subprocess")
        except Exception as exc:
            log(exc)
        return real_init(self, args, *rest, **kwargs)

    __init__._jitlint_wrapped = True
    popen.__init__ = __init__


def _wrap_multiprocessing(probe, module):
    try:
        # why: runs once the program imported multiprocessing; the probe never loads it itself
        from multiprocessing import process
    except Exception as exc:
        log(exc)
        return
    base = process.BaseProcess
    real_start = base.start
    if getattr(real_start, "_jitlint_wrapped", False):
        return

    @functools.wraps(real_start)
    def start(self):
        try:
            method = getattr(self, "_start_method", None) or module.get_start_method(allow_none=True) or "default"
            probe.note_subprocess(f"multiprocessing ({method})")
        except Exception as exc:
            log(exc)
        return real_start(self)

    start._jitlint_wrapped = True
    base.start = start


# ---- after an import ----------------------------------------------------------------------------


class _AfterImport:
    """A meta-path finder that runs a callback right after a given top-level module is first imported."""

    def __init__(self, name, callback):
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        real_loader = spec.loader if spec is not None else None
        if real_loader is None or not hasattr(real_loader, "exec_module"):
            return spec
        callback = self.callback

        class Loader:
            def __getattr__(self, attr):
                return getattr(real_loader, attr)

            def create_module(self, s):
                return real_loader.create_module(s)

            def exec_module(self, module):
                real_loader.exec_module(module)
                try:
                    callback(module)
                except Exception as exc:
                    log(exc)

        spec.loader = Loader()
        return spec


def _after_import(name, callback):
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
    else:
        sys.meta_path.insert(0, _AfterImport(name, callback))
