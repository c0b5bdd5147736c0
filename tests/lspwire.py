"""A bare JSON-RPC client for `jitlint lsp` over stdio, byte for byte: for framing that a real client would
never send (tests/robustness/test_fuzz.py, tests/robustness/test_robustness.py) and for long edit runs (bench/lsp_memory.py)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

SERVER = [sys.executable, "-m", "jitlint", "lsp"]


def frame(body: bytes | dict) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class WireClient:
    def __init__(self, cwd: Path | None = None, env: dict | None = None, args: tuple[str, ...] = ()):
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("JITLINT_")}
        full_env.update(env or {})
        self.proc = subprocess.Popen([*SERVER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=full_env)
        self.messages: queue.Queue = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send_raw(frame({"jsonrpc": "2.0", "method": method, "params": params or {}}))

    def request(self, method: str, params: dict | None = None, *, raw_prefix: bytes = b"") -> int:
        self._next_id += 1
        self.send_raw(raw_prefix + frame({"jsonrpc": "2.0", "id": self._next_id, "method": method,
                                          "params": params or {}}))
        return self._next_id

    def wait_for(self, msg_id: int, timeout: float = 30.0) -> tuple[dict, list[dict]]:
        """The response to `msg_id`, and every other message received before it."""
        others = []
        while True:
            message = self.messages.get(timeout=timeout)
            if message is None:
                raise EOFError(f"the server closed its output; stderr:\n{b''.join(self.stderr).decode()[-3000:]}")
            if message.get("id") == msg_id and "method" not in message:
                return message, others
            if "method" in message and "id" in message:  # a request from the server: answer null
                self.send_raw(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
            others.append(message)

    def call(self, method: str, params: dict | None = None, timeout: float = 30.0) -> dict:
        return self.wait_for(self.request(method, params), timeout)[0]

    def initialize(self, root: Path, pull: bool = True) -> dict:
        capabilities = {"textDocument": {"diagnostic": {}} if pull else {}, "general": {"positionEncodings": ["utf-16"]}}
        result = self.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities})
        self.notify("initialized")
        return result

    def close(self) -> None:
        try:
            self.call("shutdown", timeout=10)
            self.notify("exit")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
