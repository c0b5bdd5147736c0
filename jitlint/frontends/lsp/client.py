"""What the client can do (its capabilities), and what the server tells the user (log and messages)."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

logger = logging.getLogger(__name__)


class ClientMixin:
    """The server's side of the client: its capabilities, and messages to its user."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: set[str] = set()  # the messages shown (each is shown once)

    # ---- client capabilities
    def _capability(self, dotted: str) -> Any:
        value: Any = self.client_capabilities
        for name in dotted.split("."):
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    @property
    def client_pulls_diagnostics(self) -> bool:
        return self._capability("text_document.diagnostic") is not None

    @property
    def client_answers_configuration(self) -> bool:
        return bool(self._capability("workspace.configuration"))

    # ---- messages to the user
    def log(self, message: str, kind: types.MessageType | None = None) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind or types.MessageType.Log, message=message))

    def show_once(self, message: str) -> None:
        if message in self._shown:
            return
        self._shown.add(message)
        self.log(message, types.MessageType.Warning)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
