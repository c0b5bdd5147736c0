"""JSON-RPC over stdin/stdout: the message loop (pygls' `start_io`, with a reader that survives malformed
framing), and the errors sent for what cannot be read."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import sys
import threading
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter

logger = logging.getLogger(__name__)

_CONTENT_LENGTH = re.compile(rb"Content-Length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n", re.IGNORECASE)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
_MAX_GARBAGE = 1 << 20


class MessageReader:
    """JSON-RPC's framing, read so that one malformed message costs only itself.

    pygls 2.1.1 reads `Content-Length: N\\r\\n` exactly and then N bytes: after a header block without it,
    a length smaller or larger than the body, or LF-only line ends, every later message is read out of
    step and the server never answers again. Here a header is found wherever it starts (LF or CRLF line
    ends, any case); a header block that ends without a length is an error; a body that is not JSON is
    an error and the search for the next header starts again at the body's first byte (a length that
    was too large swallowed the next header: it is found inside); a body still incomplete while a next
    header already follows it is an error too (no waiting for bytes the client never sends). Raw line
    breaks cannot occur inside a JSON body's strings, so `<newline>Content-Length: N<newline>` in a body means
    the body is wrong.
    """

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> tuple[str, Any] | None:
        """("body", (bytes, body_start, end)), ("error", reason), or None: more data needed.
        After "body", the caller calls `consume(end)`, or `consume(body_start)` to resynchronise."""
        buf = self.buffer
        while True:
            m = _CONTENT_LENGTH.search(buf)
            blank = _BLANK_LINE.search(buf, 0, m.start() if m else len(buf))
            if blank is not None and buf[:blank.start()].strip():
                del buf[:blank.end()]
                return "error", "a message header without Content-Length"
            if m is None:
                if len(buf) > _MAX_GARBAGE:
                    del buf[:]
                    return "error", "data outside of a message"
                return None
            pos = m.end()
            while True:  # the other header lines, up to the empty line
                end = buf.find(b"\n", pos)
                if end < 0:
                    return None
                if not buf[pos:end + 1].strip():
                    body_start = end + 1
                    break
                pos = end + 1
            length = int(m.group(1))
            if len(buf) - body_start < length:
                if _CONTENT_LENGTH.search(buf, body_start):
                    del buf[:body_start]
                    return "error", f"Content-Length {length} is larger than the message"
                return None
            return "body", (bytes(buf[body_start:body_start + length]), body_start, body_start + length)

    def consume(self, upto: int) -> None:
        del self.buffer[:upto]


class StdioMixin:
    """The server's message loop: pygls' `start_io`, reading with `MessageReader`."""

    def start_io(self, stdin=None, stdout=None):
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._read_loop(stdin or sys.stdin.buffer))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _read_loop(self, stdin) -> None:
        loop = asyncio.get_running_loop()
        read = getattr(stdin, "read1", None) or functools.partial(stdin.read, 1)
        reader = MessageReader()
        while not self._stop_event.is_set():
            item = reader.next()
            if item is None:
                data = await loop.run_in_executor(self.thread_pool, read, 65536)
                if not data:
                    break
                reader.feed(data)
                continue
            kind, value = item
            if kind == "error":
                self._framing_error(value)
                continue
            body, body_start, end = value
            try:
                message = json.loads(body, object_hook=self.protocol.structure_message)
            except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
                reader.consume(body_start)  # resynchronise from the body's first byte
                self._framing_error(f"the message body is not JSON ({exc})")
                continue
            except Exception as exc:
                reader.consume(end)
                self.report_server_error(exc, JsonRpcException)
                continue
            reader.consume(end)
            try:
                self.protocol.handle_message(message)
            except Exception as exc:
                logger.exception("Unable to handle message")
                self.report_server_error(exc, JsonRpcException)

    def _framing_error(self, reason: str) -> None:
        logger.error("malformed JSON-RPC message: %s", reason)
        error = {"code": JsonRpcParseError.CODE, "message": f"{JsonRpcParseError.MESSAGE}: {reason}"}
        self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error})

    def report_server_error(self, error: Exception, source) -> None:
        # Errors while reading a message: answer as JSON-RPC says (id null), then let pygls report.
        if source is JsonRpcException and not isinstance(error, JsonRpcException):
            kind = JsonRpcParseError if isinstance(error, json.JSONDecodeError) else JsonRpcInvalidRequest
            error_object = {"code": kind.CODE, "message": f"{kind.MESSAGE}: {error}"}
            self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error_object})  # id must be null
        super().report_server_error(error, source)
