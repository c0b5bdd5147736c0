"""The session: initialize (settings pushed with it), initialized (the settings fetched, the workspace
index started, files watched) and shutdown."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from jitlint.frontends.lsp.index import watch_files
from jitlint.frontends.lsp.settings import settings_table


def initialize(ls, params: types.InitializeParams):
    ls._pushed_settings = settings_table(params.initialization_options)


async def initialized(ls, params: types.InitializedParams):
    if ls._settings_task is None:
        ls.reload_settings()
    ls._index_task = asyncio.ensure_future(ls.build_index())
    await watch_files(ls)


def shutdown(ls, params):
    for task in ls._scheduled.values():
        task.cancel()
    # pygls 2.1 then cancels the requests still running by iterating its dict of them, while the done
    # callbacks of those it cancels remove them from it (RuntimeError, and no answer to `shutdown`);
    # cancelled here first, from a copy, none is left for it to cancel that way
    pending = getattr(ls.protocol, "_request_futures", {})
    current = getattr(ls.protocol, "msg_id", None)
    for msg_id, future in list(pending.items()):
        if msg_id != current and not future.done():
            future.cancel()
    ls.executor.shutdown(wait=False, cancel_futures=True)
    if ls.first_lints is not None:
        ls.first_lints.stop()
    ls.helper_executor.shutdown(wait=False, cancel_futures=True)
