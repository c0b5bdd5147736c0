"""The engine loads in a thread; until it has, a helper process that loaded it while pygls did
(jitlint.frontends.lsp.first_lint) lints, so the first diagnostics need not wait for the import. Once
the engine has loaded, each document the helper linted is linted here once (building its incremental
state), and then the helper is closed."""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types

from jitlint.core.config import Config
from jitlint.core.finding import Finding
from jitlint.frontends.lsp.first_lint import FirstLints
from jitlint.frontends.lsp.settings import excluded_as_in_check
from jitlint.lint.pipeline import import_linting

logger = logging.getLogger(__name__)

HELPER_TIMEOUT_SECONDS = 20.0  # a first lint the helper process has not answered by then
# While the helper lints, the engine loads here once the editor has been quiet this long: loading it (and
# building the documents' state) keeps this process busy, which would slow the edits typed meanwhile.
HELPER_IDLE_SECONDS = 0.3


class PreloadMixin:
    """The server's engine, loaded in a thread, and the helper's first lints meanwhile."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_lints: FirstLints | None = None  # the helper process (set by the server)
        self._engine_loaded = threading.Event()
        self._preload_started = False
        self._idle_timer: asyncio.TimerHandle | None = None
        self._handing_over: set[str] = set()  # documents the helper lints until their state is built here
        self.helper_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jitlint-helper")

    def _helper_serves(self, uri: str) -> bool:
        """Does the helper lint this document now (else this process does)?"""
        helper = self.first_lints
        if helper is None or not helper.usable or self.project.built:
            return False  # (once the index is built, lints need it: it is not sent to the helper)
        return not self._engine_loaded.is_set() or uri in self._handing_over

    async def _helper_lint(self, uri: str, source: str, path: str, config: Config, exclude: bool,
                           generation: int) -> list[Finding] | None:
        """The helper's findings while this process's engine loads and then builds this document's
        incremental state (the helper keeps its own meanwhile, so edits stay incremental); else None:
        lint in-process."""
        helper = self.first_lints
        if not self._helper_serves(uri):
            self._apply_deferred_updates(keep=path)  # (this document's own: after its lint)
            return None
        # The other buffers' edits, not this one's: as in-process, a document is linted before its own
        # edit reaches the index (which would cost the helper a second pass 1 of the text on every edit).
        updates = {p: text for p, text in self._deferred_updates.items() if p != path}
        try:
            findings = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(
                self.helper_executor, helper.lint, self.project, source, path, config, exclude, (uri, generation),
                updates), HELPER_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            helper.stop(failed=True)
            findings = None
        if findings is None:  # (the helper is stopped, or was closed)
            self._handing_over.clear()
            self._apply_deferred_updates()
            if helper.failed:
                self.log("the first-lint helper failed; linting in the server", types.MessageType.Warning)
            return None
        if not self._engine_loaded.is_set():
            self._handing_over.add(uri)  # (`_engine_ready` takes it over)
        logger.info("linted %s in the first-lint helper while the engine loads", uri)
        return findings

    def _preload_when_idle(self) -> None:
        if self._preload_started:
            return
        if self.first_lints is None or not self.first_lints.usable:
            self.start_preload()
            return
        if self._idle_timer is not None:
            self._idle_timer.cancel()  # (another lint: the editor is not quiet yet)
        self._idle_timer = asyncio.get_running_loop().call_later(HELPER_IDLE_SECONDS, self.start_preload)

    def start_preload(self) -> None:
        """Load the engine in a thread (if the helper lints, once the editor is quiet)."""
        if self._preload_started:
            return
        self._preload_started = True
        loop = asyncio.get_running_loop() if self.first_lints is not None else None

        def preload() -> None:
            _preload()
            self._engine_loaded.set()
            if loop is not None:
                loop.call_soon_threadsafe(self._engine_ready)

        threading.Thread(target=preload, name="jitlint-preload", daemon=True).start()

    def _engine_ready(self) -> None:
        """The engine has loaded: build the incremental state of the documents the helper lints, then
        lint them here (and stop the helper once no document is left to it)."""
        for uri in list(self._handing_over):
            asyncio.ensure_future(self._take_over(uri))
        self._close_helper_if_done()

    def _close_helper_if_done(self) -> None:
        if self.first_lints is not None and not self._handing_over and self._engine_loaded.is_set():
            self.helper_executor.submit(self.first_lints.close)  # after a lint it may be doing
            self._lints_settled.set()

    async def _take_over(self, uri: str) -> None:
        """Lint the document's current text here, building its state; its edits meanwhile still go to
        the helper, and from then on, here."""
        try:
            doc, cached = self.document(uri), self._results.get(uri)
            if doc is None:
                return
            settings = await self.settings()
            config = self.config_for(doc.path, settings)
            path = doc.path or uri
            exclude = excluded_as_in_check(doc.path, config)
            source = doc.source
            self._apply_deferred_updates()
            findings = await self._lint_in_process(uri, source, path, config, exclude, settings.generation)
            if cached is not None and cached.source == source and cached.findings != findings:
                # cannot happen (one engine, the same inputs), but if it did, this process's result wins
                self.log(f"the first-lint helper and the server disagree on {uri}", types.MessageType.Warning)
                self._results.pop(uri, None)
                self.refresh_all()
        except asyncio.CancelledError:
            raise
        except Exception:  # the next lint does the same here, and reports what fails
            pass
        finally:
            self._handing_over.discard(uri)
            self._close_helper_if_done()


def _preload() -> None:
    try:
        import_linting()
    except Exception:  # the first lint imports them again, and reports what fails
        pass
