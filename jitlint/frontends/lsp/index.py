"""The workspace's project (jitlint.project.project): its index holds the jitted functions of every file, so
calls into other files are checked as `jitlint check` checks them. It is built once in the background
(with `$/progress` for clients that show it); open buffers replace their file's entry as they change,
and files changed on disk (watched) replace theirs."""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from jitlint.core.config import find_root
from jitlint.frontends.lsp.settings import SETTINGS_TIMEOUT_SECONDS
from jitlint.project.project import Project

logger = logging.getLogger(__name__)

INDEX_DELAY_SECONDS = 1.0  # the workspace index waits this long for the first diagnostics at most
# An edited document's entry in the index is replaced once its lints have paused this long (typing goes
# on meanwhile: only the last text is indexed), or before another file's lint, whichever comes first.
INDEX_UPDATE_IDLE_SECONDS = 0.3


class WorkDoneProgress:
    """Server-initiated `$/progress` for a long task (the workspace index), for clients that support
    `window.workDoneProgress`; its `start/advance/done` are the engine's progress calls, made from the
    worker thread and sent from the event loop."""

    def __init__(self, server, token: str) -> None:
        self.server, self.token = server, token
        self.loop = asyncio.get_running_loop()
        self.total = self.count = 0
        self.sent = -1

    @classmethod
    async def create(cls, server, title: str) -> WorkDoneProgress | None:
        if not server._capability("window.work_done_progress"):
            return None
        token = f"jitlint-{next(_progress_tokens)}"
        try:
            await asyncio.wait_for(server.work_done_progress.create_async(token), SETTINGS_TIMEOUT_SECONDS)
        except Exception as exc:  # the client refused or never answered: no progress shown
            logger.info("window/workDoneProgress/create failed: %s", exc)
            return None
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, percentage=0))
        return cls(server, token)

    def _report(self, message: str, percentage: int) -> None:
        self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(
            message=message, percentage=percentage))

    def start(self, label: str, total: int) -> None:
        self.total, self.count = total, 0

    def advance(self, n: int) -> None:
        self.count += n
        percentage = min(100, self.count * 100 // max(self.total, 1))
        if percentage >= self.sent + 5:  # at most about 20 reports
            self.sent = percentage
            self.loop.call_soon_threadsafe(self._report, f"{self.count}/{self.total} files", percentage)

    def done(self) -> None:
        pass

    def end(self) -> None:
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(
            message=f"{self.count} files indexed" if self.total else "up to date"))


_progress_tokens = itertools.count(1)


def _update(project: Project, updates: dict[str, str | None]) -> bool:
    """Every update applied to the project's index (none skipped): whether other files' findings may change."""
    return any([project.update(path, text) for path, text in updates.items()])


class IndexMixin:
    """The server's project and its index, following the buffers and the files on disk."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Replaced once the workspace folders are known (`build_index`).
        self.project = Project(None, cache=False)
        self.index_generation = 0
        self._deferred_updates: dict[str, str | None] = {}  # path -> text, for the index (see document_changed)

    def document_changed(self, uri: str) -> None:
        """The one place where the server learns that a file's text changed (opened, edited or closed):
        its entry in the project index is replaced (from the buffer, or from disk once closed), and if the
        jitted functions it defines changed, every open file is linted again."""
        self._results.pop(uri, None)
        doc = self.document(uri)
        path = doc.path if doc is not None else to_fs_path(unquote(uri))
        if not path or not path.endswith(".py"):
            return
        text = doc.source if doc is not None else None
        if self._helper_serves(uri) or doc is not None:
            # The helper applies it to its copy of the index before it lints (it parses the text once, for
            # both); this process does when it takes over, and then re-lints if the index changed. An open
            # document's own findings do not depend on its entry, so an edit reaches the index once its
            # lints pause, in the lint thread (`update_index_when_idle`: the editor does not wait for it),
            # or before another file's lint, whichever comes first.
            self._deferred_updates[path] = text
            return
        self._apply_deferred_updates()
        if self.project.update(path, text):
            self.index_changed()  # other files' findings depend on this one's jitted functions or re-exports

    def _apply_deferred_updates(self, keep: str | None = None) -> None:
        """The index updates waiting (all, or all but `keep`'s), applied here and now."""
        if _update(self.project, self._take_deferred_updates(keep)):
            self.index_changed()

    def _take_deferred_updates(self, keep: str | None) -> dict[str, str | None]:
        updates = {path: text for path, text in self._deferred_updates.items() if path != keep}
        for path in updates:
            del self._deferred_updates[path]
        return updates

    def update_index_when_idle(self) -> None:
        """(Re)start the wait before the edits still waiting reach the index (`update_index_after`)."""
        if isinstance(self._index_update, asyncio.TimerHandle):
            self._index_update.cancel()
        loop = asyncio.get_running_loop()
        self._index_update = loop.call_later(INDEX_UPDATE_IDLE_SECONDS, self._start_index_update)

    def _start_index_update(self) -> None:
        self._index_update = asyncio.ensure_future(self.update_index_after())  # (kept: a task needs a holder)

    async def update_index_after(self) -> None:
        """The index updates still waiting after a lint, applied in the lint thread (after what it runs)."""
        updates = self._take_deferred_updates(None)
        if not updates:
            return
        project = self.project
        if await asyncio.get_running_loop().run_in_executor(self.executor, _update, project, updates) and \
                project is self.project:
            # (the documents updated keep their findings: they do not depend on their own entry)
            self.index_changed(unaffected={path for path, text in updates.items() if text is not None})

    def index_changed(self, unaffected: set[str] = frozenset()) -> None:
        """Other files' findings may have changed: every document is linted again, but those whose own
        entry alone changed (`unaffected`, paths): their results still hold for the new index."""
        self.index_generation += 1
        kept = {}
        for uri, result in self._results.items():
            doc = self.document(uri)
            if doc is not None and doc.path in unaffected:
                result.index_generation = self.index_generation
                kept[uri] = result
        self._results = kept
        self.refresh_all(skip=set(kept))

    async def build_index(self) -> None:
        """Index the workspace's files once, in the background; lints meanwhile see the open buffers."""
        settings = await self.settings()
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()] or [self.workspace.root_path]
        folders = [f for f in folders if f]
        if not folders:
            return
        config = self.config_for(folders[0], settings)
        root = find_root(Path(folders[0])) or Path(folders[0])
        project = Project(root, config)
        try:  # the open files' first diagnostics first: the index would compete with them for the CPU
            await asyncio.wait_for(self._lints_settled.wait(), INDEX_DELAY_SECONDS)
        except asyncio.TimeoutError:
            pass
        self.start_preload()  # (if no document was linted yet)
        progress = await WorkDoneProgress.create(self, "jitlint: indexing the workspace")
        try:
            await asyncio.get_running_loop().run_in_executor(None, project.build, progress)
        except Exception as exc:  # the index only adds cross-file findings: keep serving without it
            self.log(f"could not index the workspace: {exc}", types.MessageType.Warning)
            return
        finally:
            if progress is not None:
                progress.end()
        self._apply_deferred_updates()
        project.take_updates(self.project)  # open buffers win over the files on disk
        self.project = project
        self.index_changed()


async def watch_files(ls) -> None:
    """Ask the client to tell the server of changed pyproject.toml files (their settings) and Python files
    (the index), where it can be asked."""
    if not ls._capability("workspace.did_change_watched_files.dynamic_registration"):
        return
    watch = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                  # files changed on disk (a git checkout, another editor): the project index follows
                  types.FileSystemWatcher(glob_pattern="**/*.py")])
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[
            types.Registration(id="jitlint-pyproject", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                               register_options=watch)]))
    except Exception as exc:  # then pyproject.toml changes show at the next edit
        ls.log(f"could not watch pyproject.toml files: {exc}", types.MessageType.Warning)


# ------------------------------------------------------------------------------------------ handlers


async def did_change_watched_files(ls, params: types.DidChangeWatchedFilesParams):
    changed = False
    for event in params.changes:
        path = to_fs_path(unquote(event.uri))
        if path and path.endswith(".py") and ls.document(event.uri) is None:  # open buffers win
            changed |= ls.project.update(path, None)
    if any(not (to_fs_path(unquote(e.uri)) or "").endswith(".py") for e in params.changes):
        ls.reload_settings()  # a pyproject.toml changed: its [tool.jitlint] may have
        await ls.settings()
        ls.refresh_all()
    if changed:
        ls.index_changed()
