"""Start the program in a child process under the probe, wait (with a timeout), read what it saw."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

PROBE = Path(__file__).with_name("probe") / "__main__.py"  # run by path: it must not import jitlint
EXIT_JAX_MISSING = 97  # the probe's exit status when `import jax` fails (probe/session.py, EXIT_JAX_MISSING)
GRACE_SECONDS = 5.0


@dataclass
class Target:
    mode: str  # script | module | trace
    target: str
    args: list[str]
    trace_args: list[str]
    example_args: str | None = None  # --args module:function


@dataclass
class Outcome:
    data: dict | None  # the probe's report, or None if it never wrote one
    returncode: int | None
    timed_out: bool
    interrupted: bool
    seconds: float
    error: str | None = None  # jitlint could not start the program at all


def run(target: Target, python: str, paths: list[str], timeout: float | None,
        while_running: Callable[[], None] | None = None, program_stdout: int | None = None) -> Outcome:
    """Run the program under the probe. `program_stdout`: a file descriptor for the program's standard
    output (standard error when jitlint's own standard output must carry only a machine-readable report)."""
    with tempfile.TemporaryDirectory(prefix="jitlint-run-") as tmp:
        out_path = os.path.join(tmp, "observed.json")
        config_path = os.path.join(tmp, "config.json")
        config = {"mode": target.mode, "target": target.target, "args": target.args,
                  "trace_args": target.trace_args, "example_args": target.example_args,
                  "paths": [os.path.abspath(p) for p in paths]}
        read_fd = write_fd = None
        pass_fds: tuple[int, ...] = ()
        if os.name == "posix":
            read_fd, write_fd = os.pipe()
            config["control_fd"] = read_fd
            pass_fds = (read_fd,)
        with open(config_path, "w", encoding="utf-8") as fh:
            json.dump(config, fh)
        start = time.perf_counter()
        try:
            proc = subprocess.Popen([python, str(PROBE), out_path, config_path], pass_fds=pass_fds,
                                    stdout=program_stdout)
        except OSError as exc:
            for fd in (read_fd, write_fd):
                if fd is not None:
                    os.close(fd)
            return Outcome(None, None, False, False, 0.0, error=f"cannot run {python}: {exc.strerror or exc}")
        if read_fd is not None:
            os.close(read_fd)
        timed_out = interrupted = False
        restore = _terminate_as_interrupt()
        try:
            if while_running is not None:
                while_running()
            while True:
                try:
                    remaining = None if timeout is None else max(0.0, timeout - (time.perf_counter() - start))
                    proc.wait(timeout=remaining)
                    break
                except subprocess.TimeoutExpired:
                    timed_out = True
                    _stop(proc, write_fd, out_path)
                    break
                except KeyboardInterrupt:
                    # the child got the same Ctrl-C; give it time to write its report, then stop it
                    interrupted = True
                    try:
                        proc.wait(timeout=GRACE_SECONDS)
                    except (subprocess.TimeoutExpired, KeyboardInterrupt, _Terminated):
                        _stop(proc, write_fd, out_path)
                    break
                except _Terminated:
                    # jitlint was asked to end (SIGTERM): the program with it, reporting what it saw
                    interrupted = True
                    _stop(proc, write_fd, out_path)
                    break
        finally:
            restore()
            if write_fd is not None:
                os.close(write_fd)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        seconds = time.perf_counter() - start
        data = None
        try:
            with open(out_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            pass
        return Outcome(data, proc.returncode, timed_out, interrupted, seconds)


class _Terminated(Exception):
    """SIGTERM reached jitlint while the program ran."""


def _terminate_as_interrupt() -> Callable[[], None]:
    """While the program runs, SIGTERM to jitlint raises `_Terminated` in the waiting loop (the default
    would end jitlint at once, leaving the program running and the temporary folder behind); returns the
    undo. Only the main thread can set a handler: elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        return lambda: None

    def raise_terminated(signum, frame):
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, raise_terminated)
    except (ValueError, OSError):
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, previous)


def _stop(proc: subprocess.Popen, control_fd: int | None, out_path: str) -> None:
    """Ask for a snapshot of what was seen so far, then SIGTERM (the probe writes its report and
    exits), then SIGKILL if the program does not end."""
    if control_fd is not None:
        try:
            os.write(control_fd, b"s")
            deadline = time.perf_counter() + GRACE_SECONDS
            while not os.path.exists(out_path) and time.perf_counter() < deadline and proc.poll() is None:
                time.sleep(0.05)
        except OSError:
            pass
    spawned = _descendants(proc.pid)  # the program's own workers (data loaders, pools): stopped with it
    if proc.poll() is None:
        try:
            proc.terminate()  # SIGTERM on POSIX: the probe turns it into an exception and reports
        except OSError:
            pass
        try:
            proc.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _end(spawned + [pid for pid in _descendants(proc.pid) if pid not in spawned])


def _descendants(pid: int) -> list[int]:
    """The processes below `pid`, children first (Linux's /proc; elsewhere none are known)."""
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children", encoding="ascii") as fh:
                kids = [int(k) for k in fh.read().split()]
        except (OSError, ValueError):
            continue
        out.extend(kids)
        todo.extend(kids)
    return out


def _end(pids: list[int]) -> None:
    """SIGTERM to each process still running, then SIGKILL to those that outlive the grace period."""
    alive = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
            alive.append(pid)
        except OSError:  # gone already (or never ours)
            pass
    deadline = time.perf_counter() + GRACE_SECONDS
    while alive and time.perf_counter() < deadline:
        alive = [pid for pid in alive if _running(pid)]
        if alive:
            time.sleep(0.05)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def default_python() -> str:
    return sys.executable
