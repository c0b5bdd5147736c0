"""The language server's first lints, done by a helper process while the server starts.

An editor waits for the first diagnostics from the moment it starts `jitlint lsp`. The server spends most
of that time importing pygls and lsprotocol (about 0.3 s on one core); the engine (libcst, the analysis,
the rules: about 0.2 s more) would load after them in the same process, and only then could the first
lint run. So `jitlint lsp` starts this helper before it imports pygls: the helper loads the engine on
another core meanwhile, and lints what the server sends it until the server's own engine has loaded
(then the server stops it, and lints in-process with its incremental state). Anything wrong with the
helper (it does not start, dies, answers garbage or too late) only means the server lints in-process, as
it does without it (`JITLINT_LSP_HELPER=0`).

The helper runs the same engine on the same inputs (the text, the path, the settings and the server's
project index, pickled), so its findings are the server's. It never imports the code it lints.

Protocol, over the helper's stdin and stdout: each message is a 4-byte big-endian length and a pickle.
A request is `(project, source, path, config, exclude, key, updates)`; the answer `("ok", findings)` or
`("error", text)`. The helper keeps an incremental state (jitlint.project.incremental.Document) per document,
`key` = (its uri, the settings' generation), so that edits made while the server loads its engine and
builds its own state are incremental here. `updates` ({path: text}) are the open buffers' entries of the
index that the server has not made yet (`Project.update`: the helper parses the text once for both).
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
import threading

ENV_SWITCH = "JITLINT_LSP_HELPER"  # "0": no helper
_HEADER = struct.Struct(">I")


def _send(stream, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream):
    """The next message, or EOFError when the other side has gone."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class FirstLints:
    """The server's side: the helper process and one request at a time."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self._lock = threading.Lock()
        self.closed = False  # no longer asked: closed once the server's engine loaded, or stopped
        self.failed = False  # stopped because it did not answer as it should

    @classmethod
    def start(cls) -> "FirstLints | None":
        """Start the helper (call this before importing pygls), or None where it is switched off or
        cannot start."""
        if os.environ.get(ENV_SWITCH, "1") == "0" or not sys.executable:
            return None
        try:
            # -P: the workspace folder (the server's cwd) is not put on sys.path, so a file there named
            # like a module jitlint imports is never imported
            process = subprocess.Popen([sys.executable, "-P", "-m", "jitlint.frontends.lsp.first_lint"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return None
        return cls(process)

    @property
    def usable(self) -> bool:
        return not self.closed and self.process.poll() is None

    def lint(self, project, source: str, path: str, config, exclude: bool, key=None, updates=None):
        """The findings, or None when the helper failed (then it is stopped, and never asked again).
        Blocks: the server calls it from its lint thread; `stop` from another thread unblocks it."""
        with self._lock:
            if not self.usable:
                return None
            try:
                _send(self.process.stdin, (project, source, path, config, exclude, key, updates or {}))
                status, value = _receive(self.process.stdout)
            except Exception:  # it died, was stopped, or answered something else than a message
                status = value = None
            if status != "ok" or not isinstance(value, list):
                self.stop(failed=True)
                return None
            return value

    def close(self) -> None:
        """No more requests: the helper exits once it reads the end of its input."""
        with self._lock:
            self.closed = True
            try:
                self.process.stdin.close()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.stop()

    def stop(self, failed: bool = False) -> None:
        """End the helper now (also when it hangs); a lint waiting for it returns None. `failed`: it did
        not answer as it should (unless `stop` or `close` had ended it already: then that is why)."""
        if failed and not self.closed:
            self.failed = True
        self.closed = True
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


# ------------------------------------------------------------------------------------------ the helper

_WARM_UP = '''\
import jax
import jax.numpy as jnp


def loss(params, x):
    return jnp.sum((x @ params["w"]) ** 2)


@jax.jit
def step(params, x):
    if x.ndim > 1:
        print(x)
    return jax.grad(loss)(params, x)


for i in range(3):
    f = jax.jit(lambda y: y + i)
'''


_states: dict = {}  # document uri -> its jitlint.project.incremental.Document


def _lint(project, source: str, path: str, config, exclude: bool, key=None, updates=None):
    for updated, text in (updates or {}).items():
        project.update(updated, text)
    state = None
    if key is not None:
        # why: only the standard library at the top: `jitlint lsp` imports this module before it starts the helper
        from jitlint.project.incremental import state_of

        uri, generation = key
        state = state_of(_states, uri, (generation, config, path))
    return project.lint_text(source, path, config=config, exclude=exclude, build=False, state=state).findings


def main() -> None:
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but answers goes to the server
    try:
        # why: only the standard library at the top: `jitlint lsp` imports this module before it starts the helper
        from jitlint.project.project import Project

        # the first lint's one-time costs (imports the engine makes lazily, the rules' tables), paid now
        _lint(Project(None, cache=False), _WARM_UP, "warm_up.py", None, False)
    except Exception:
        pass  # the requests report what fails
    while True:
        try:
            request = _receive(requests)
        except EOFError:
            return
        try:
            answer = ("ok", _lint(*request))
        except Exception as exc:
            answer = ("error", f"{type(exc).__name__}: {exc}")
        try:
            _send(answers, answer)
        except (OSError, ValueError):  # the server has gone
            return


if __name__ == "__main__":
    main()
