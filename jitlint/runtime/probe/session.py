"""The run, from the config jitlint wrote to the report it reads: `sys.path` and `sys.argv` as Python
would set them, `import jax`, the hooks, SIGTERM (jitlint's timeout), `os._exit`, the snapshot pipe,
then the program, and its outcome as a status."""

import json
import os
import signal
import sys
import threading
import time
import traceback

from . import hooks, report
from .debuglog import log
from .program import NoSuchModule, exception_summary, run_module, run_script, user_traceback
from .recorder import Probe
from .specs import SpecError
from .tracemode import run_trace

EXIT_JAX_MISSING = 97  # jitlint.runtime.launch knows it too


class Terminated(BaseException):
    """Raised in the main thread when jitlint's timeout sends SIGTERM."""


def _listen_for_snapshot(probe, fd):
    """jitlint writes to this pipe when the timeout hits: write what we have now, from this thread,
    even if the main thread is busy in native code (an XLA compile) and cannot run signal handlers."""
    def listen():
        try:
            while True:
                data = os.read(fd, 1)
                if not data:
                    return
                probe.result.setdefault("status", "running")
                try:
                    report.write(probe)
                except Exception as exc:
                    log(exc)
        except OSError:
            return

    threading.Thread(target=listen, name="jitlint-snapshot", daemon=True).start()


def main(argv, add_program_path=True):
    """`argv`: [entry, OUT.json, CONFIG.json]. `add_program_path`: put the program's folder (a script's,
    or the working directory for `-m`) first on sys.path, as `python` does (False under `python -P`)."""
    out_path, config_path = argv[1], argv[2]
    with open(config_path, encoding="utf-8") as fh:
        config = json.load(fh)
    mode, target, args = config["mode"], config["target"], config.get("args", [])

    # sys.path and sys.argv as `python script.py` / `python -m module` would set them
    if add_program_path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)) if mode == "script" else os.getcwd())
    try:
        # why: not at module level: jax must load with the program's sys.path, and its absence is reported
        import jax
    except ImportError as exc:
        report.write_plain(out_path, {"status": "jax_missing", "error": f"{type(exc).__name__}: {exc}",
                                      "python": sys.version.split()[0], "executable": sys.executable})
        return EXIT_JAX_MISSING
    config["_jax_version"] = getattr(jax, "__version__", None)

    probe = Probe(config)
    probe.out_path = out_path
    hooks.install(probe, jax)

    def on_sigterm(signum, frame):
        if os.getpid() != probe.pid:  # a forked child: die as it would have without us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        probe.result.update(status="terminated")
        try:
            report.write(probe)  # in case the program swallows the exception below
        except Exception:
            pass
        raise Terminated()

    if threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGTERM, on_sigterm)
        except (ValueError, OSError):
            pass

    real_exit = os._exit

    def _exit(status):  # os._exit skips every handler: write the report first
        if os.getpid() == probe.pid:
            try:
                probe.stop_coverage()
                probe.run_seconds = time.perf_counter() - probe.run_started
                probe.result.update(status="exited", exit_code=status)
                report.write(probe)
            except Exception as exc:
                log(exc)
        real_exit(status)

    os._exit = _exit

    if config.get("control_fd") is not None:
        _listen_for_snapshot(probe, int(config["control_fd"]))

    exit_code = 0
    probe.run_started = time.perf_counter()
    probe.start_coverage()
    try:
        if mode == "script":
            sys.argv = [target, *args]
            run_script(target)
        elif mode == "module":
            sys.argv = [target, *args]  # run_module replaces argv[0] with the module's file
            try:
                run_module(target)
            except NoSuchModule as exc:  # as a missing script: jitlint reports it as a usage error
                probe.stop_coverage()
                probe.run_seconds = time.perf_counter() - probe.run_started
                probe.result.update(status="usage_error", exit_code=2, error=str(exc))
                report.write(probe)
                return 2
        else:
            sys.argv = [target, *args]
            try:
                run_trace(config, jax)
            except SpecError as exc:  # the arguments, not the program: jitlint reports it as a usage error
                probe.stop_coverage()
                probe.run_seconds = time.perf_counter() - probe.run_started
                probe.result.update(status="usage_error", exit_code=2, error=str(exc))
                report.write(probe)
                return 2
        probe.result.update(status="finished", exit_code=0)
    except SystemExit as exc:
        code = exc.code
        if code is None:
            exit_code = 0
        elif isinstance(code, int):
            exit_code = code
        else:
            exit_code = 1
        probe.result.update(status="exited", exit_code=exit_code)
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        report.write(probe)
        raise
    except Terminated as exc:
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        probe.result.update(status="terminated", exit_code=None,
                            exception=exception_summary(exc, probe.is_user))
        report.write(probe)
        return 124
    except BaseException as exc:
        probe.stop_coverage()
        probe.run_seconds = time.perf_counter() - probe.run_started
        summary = exception_summary(exc, probe.is_user)
        if summary["path"]:
            probe.note_exception(exc, summary["path"], summary["line"])
        interrupted = isinstance(exc, KeyboardInterrupt)
        exit_code = 130 if interrupted else 1
        probe.result.update(status="interrupted" if interrupted else "crashed", exit_code=exit_code,
                            exception=summary)
        report.write(probe)
        sys.stderr.flush()
        tb = user_traceback(exc.__traceback__)
        try:
            exc.__traceback__ = tb  # Python prints the exception's own traceback
            sys.excepthook(type(exc), exc, tb)
        except Exception:
            traceback.print_exception(type(exc), exc, tb)
        return exit_code
    probe.stop_coverage()
    probe.run_seconds = time.perf_counter() - probe.run_started
    report.write(probe)
    return exit_code
