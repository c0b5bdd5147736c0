"""pygls' protocol, with two of its faults mended: a request whose params do not match the protocol is
answered with an error, and the futures of notifications are dropped once done."""

from __future__ import annotations

from cattrs import transform_error
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

_ANSWERED = object()  # a request already answered with an error while it was being read


class JitlintProtocol(LanguageServerProtocol):
    """pygls, plus: a request whose params do not match the protocol is answered with an error.
    (pygls raises while reading it and only logs, so the client would wait forever.) And the futures
    of notifications are dropped once done (see `_execute_handler`)."""

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        # pygls 2.1.1 files the future of every notification (and of every step of its own generator
        # handlers, e.g. didChange) under a fresh uuid in `_request_futures` and never removes it: about
        # 3 KB per edit, forever (openlawlibrary/pygls#608, #611). Requests are removed by pygls when
        # answered; this removes any future once it is done, if it is still the one filed under its id.
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            def forget(done, key=msg_id, futures=self._request_futures):
                if futures.get(key) is done:
                    futures.pop(key, None)

            future.add_done_callback(forget)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not (isinstance(data, dict) and "method" in data and "id" in data):
                raise
            detail = _validation_detail(exc.__cause__)
            error = types.ResponseError(code=exc.code, message=f"{exc.message} for {data['method']}: {detail}")
            self._send_response(data["id"], error=error)
            return _ANSWERED

    def handle_message(self, message):
        if message is _ANSWERED:
            return
        super().handle_message(message)


def _validation_detail(exc: BaseException | None) -> str:
    if exc is None:
        return "malformed message"
    try:
        return "; ".join(transform_error(exc, path="params")) or str(exc)
    except Exception:
        return str(exc)
