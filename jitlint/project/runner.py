"""A project's multi-file run: discover the files, index them, lint them, on worker processes and through
the cache (jitlint.project.cache).

    pass 1 on every file (CPython's `ast`: its facts, its index summary): the project index
    pre-filter each linted file against that index (jitlint.analysis.prefilter)
    pass 2 on the files it keeps, against the index (jitlint.lint.pipeline), and `--fix` (jitlint.lint.fixing)

Both passes read and update the cache, and run on worker processes when there is enough to do.
Front ends call `jitlint.project.project.Project`, which runs these.
"""

from __future__ import annotations

import gc
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from jitlint.analysis import foreign
from jitlint.analysis.index import ProjectIndex
from jitlint.analysis import prefilter  # (prefilter.is_relevant looked up per run: tests force it open)
from jitlint.analysis.prefilter import STAR_REF, Facts, file_facts
from jitlint.core.config import Config
from jitlint.core.writing import InterruptBetweenFiles, WritesInterrupted
from jitlint.lint.fixing import diff_fixed, fix_and_relint, write_fixed
from jitlint.lint.pipeline import decode, import_linting, in_cells, lint_relevant, lint_text, select
from jitlint.lint.results import PARSE_ERROR_CODE, FileResult, RunResult, RunStats, error_dict, file_error
from jitlint.lint.unit import LintUnit
from jitlint.project.cache import (CLASS_COMPILES, COMPILES, FUNCTION, KIND, MAKES_JIT, MEMOIZER, METHOD, METHOD_COMPILES,
                                   OVERRIDES_COMPILE, Cache, Resolver,
                                   content_hash)
from jitlint.project.discovery import ModuleNames, files_to_lint
from jitlint.source.reading import read_source


@dataclass
class _File:
    """One file of a run, between the passes."""

    order: int  # its place in the output (-1: indexed only, not linted)
    display: str
    module: str | None
    package: bool
    key: str = ""  # its absolute path: what the cache and the index know it by
    data: bytes | None = None
    digest: str = ""
    facts: "Facts | None" = None
    stat: "os.stat_result | None" = None  # when it was read
    incoming: tuple = ()  # the contexts other files give its functions, as it was linted with them
    exports: tuple = ()  # the contexts it gives other files' functions (jitlint.analysis.foreign)

    def task(self) -> tuple:
        return self.display, self.key, self.module, self.package, self.data, self.incoming


def _read(order: int, path: Path, names: "ModuleNames", cache, max_size: int | None) -> "_File | str":
    """A file read for pass 1 (its facts from the cache when they are there), or why it cannot be read.

    A file only indexed (order -1, not linted) whose size and mtime are those the cache recorded with its
    hash is not read again: a single-file lint of a large project reads one file, not thousands."""
    display = str(path)
    key = os.path.abspath(display)
    st = None
    if cache is not None:
        try:
            st = os.stat(key)
        except OSError:
            st = None
        if order < 0 and st is not None:
            digest = cache.digest_by_stat(key, st)
            if digest is not None:
                f = _File(order, display, *names(path), key=key, digest=digest)
                f.facts = cache.get_facts(key, digest, f.module, f.package)
                if f.facts is not None:
                    return f
    try:
        data = read_source(path, max_size)
    except OSError as exc:
        return f"cannot read file: {exc.strerror or exc}"
    f = _File(order, display, *names(path), key=key, data=data, digest=content_hash(data))
    f.stat = st
    if cache is not None:
        f.facts = cache.get_facts(f.key, f.digest, f.module, f.package)
        if f.facts is not None:
            cache.note_stat(f.key, st)
    return f


def _index_pass(files: list[_File], jobs: int, cache, progress, stats: RunStats) -> None:
    """Pass 1 (CPython's ast) for every file whose facts the cache does not hold."""
    todo = [f for f in files if f.facts is None]
    for f, facts in _run(_pass1_batch, todo, jobs, None, progress, "indexing", stats):
        f.facts = facts
        if cache is not None:
            cache.put_facts(f.key, f.digest, f.module, f.package, facts, f.stat)
    stats.indexed += len(todo)


def index_files(paths: Iterable[Path], *, jobs: int = 1, cache_dir: str | os.PathLike | None = None,
                config: Config | None = None, progress=None) -> "tuple[ProjectIndex, RunResult]":
    """The project index of these files (pass 1 alone, read from and written to the cache). Where two
    files claim one module name, the later one wins. `progress`: as for `lint_paths`."""
    config = config or Config()
    cache = Cache(Path(cache_dir), config, lint=False) if cache_dir is not None else None
    names = ModuleNames()
    unique: dict[str, Path] = {}
    for p in paths:  # a path named twice counts where it comes last
        key = os.path.abspath(p)
        unique.pop(key, None)
        unique[key] = p
    files = [f for f in (_read(-1, p, names, cache, config.max_file_size) for p in unique.values())
             if isinstance(f, _File)]
    run = RunResult([], RunStats(files=len(files)))
    _index_pass(files, jobs, cache, progress, run.stats)
    if cache is not None:
        cache.save({f.key for f in files}, prune=False)
        run.messages.extend(cache.errors)
    return ProjectIndex([f.facts.summary for f in files if f.facts.summary is not None]), run


def lint_paths(paths: Iterable[str], config: Config | None = None, *, project_files: Iterable[Path] = (),
               jobs: int = 1, cache_dir: str | os.PathLike | None = None, progress=None,
               fix: str | None = None, write: bool = True) -> RunResult:
    """Discover files, index their jitted functions and those of `project_files`, then lint each
    discovered file against that index. (Front ends call `jitlint.project.project.Project.lint`, which names
    every file of the project in `project_files`.)

    `jobs`: worker processes (1: all in this process). `cache_dir`: read and update the cache there
    (None: no cache). `progress`: an object with `start(label, total)`, `advance(n)` and `done()`.
    `fix`: "safe" applies the safe fixes, "unsafe" the unsafe ones too; the workers fix and re-lint, this
    process writes each file atomically (FileResult.fixes_applied, or FileResult.fix_error when it cannot
    be written). `write=False`: nothing is written; FileResult.diff says what would change.
    """
    config = config or Config()
    items = list(files_to_lint(list(paths), config))
    stats = RunStats(files=len(items))
    cache = Cache(Path(cache_dir), config) if cache_dir is not None else None
    names = ModuleNames()
    results: list[FileResult | None] = [None] * len(items)
    files: list[_File] = []
    notebooks: dict[int, bytes] = {}  # order -> the bytes its result's positions refer to
    for order, item in enumerate(items):
        if isinstance(item, tuple):
            raw, error = item
            results[order] = select(FileResult(raw, [file_error(raw, error)]), config)
            continue
        f = _read(order, item, names, cache, config.max_file_size)
        if isinstance(f, str):
            results[order] = select(FileResult(str(item), [file_error(str(item), f)]), config)
            continue
        if f.display.endswith(".ipynb"):
            notebooks[order] = f.data
        files.append(f)
    linted = {f.key for f in files}
    others = []  # the rest of the project: indexed, not linted
    for path in project_files:
        key = os.path.abspath(path)
        if key not in linted:
            linted.add(key)
            f = _read(-1, path, names, cache, config.max_file_size)
            if isinstance(f, _File):
                others.append(f)

    # Pass 1: CPython's ast, for every file the cache does not know.
    _index_pass(files + others, jobs, cache, progress, stats)
    # The linted files last: where two files claim one module name (two `pkg` folders in a repository),
    # the linted one's view of its own package wins.
    index = ProjectIndex([f.facts.summary for f in others + files if f.facts.summary is not None])
    for f in others:
        f.data = None
    resolver = Resolver(index)
    is_relevant = prefilter.is_relevant
    todo = []
    for f in files:
        facts = f.facts
        if facts.suppressed:
            results[f.order] = FileResult(f.display)
        elif facts.error is not None:
            text, _ = decode(f.data, f.display)
            results[f.order] = lint_text(LintUnit(f.display, text or "", config, facts=facts))
        elif not is_relevant(facts, resolver):
            results[f.order] = FileResult(f.display)
            stats.skipped += 1
        elif not _cached(f, cache, resolver, results, fix, stats):
            todo.append(f)
            continue  # its bytes go to pass 2
        f.data = None
    # The rest of the project whose traced code may call into the linted files: what it gives them counts.
    callers = _callers(files, others, index, resolver, cache, stats, config)
    todo += callers

    # Pass 2: libcst and the rules, for the files that can have findings; then again for those that other
    # files' traced code calls into, with the contexts it gives them, until those stop changing.
    if todo and _start_method() == "fork":
        import_linting()  # once here, not in every worker
    outputs = _rounds(todo, files + others, jobs, (config, index, fix), progress, stats, results, cache, resolver)
    linted = [(f, out) for f, out in outputs if f.order >= 0 or cache is not None]
    with InterruptBetweenFiles(writing=fix is not None and write) as interrupt:  # each file whole; the user told which
        _take_pass2(linted, results, notebooks, cache, resolver, write, interrupt)
    if interrupt.pending():
        raise WritesInterrupted([r.path for r in results if r is not None and r.fixes_applied])
    for order, data in notebooks.items():
        if results[order] is not None:
            results[order] = in_cells(results[order], data, config)

    run = RunResult([r for r in results if r is not None], stats)
    stats.not_linted = sum(1 for r in run.files if any(x.code == PARSE_ERROR_CODE for x in r.findings))
    if cache is not None:
        cache.save({f.key for f in files + others})
        run.messages.extend(cache.errors)
    return run


# Rounds of pass 2 at most: a chain of helpers across files takes one round per file it crosses.
MAX_ROUNDS = 4


def _rounds(todo: list[_File], everyone: list[_File], jobs: int, state, progress, stats: RunStats, results,
            cache, resolver) -> list[tuple[_File, tuple]]:
    """Pass 2 on `todo`; then again on the files of `everyone` that others' traced code calls into, with
    the contexts it gives them (their results from the cache where it holds them for those), until the
    contexts stop changing: each file's last output."""
    config, _, fix = state
    outputs: dict[int, tuple[_File, tuple]] = {}
    for _ in range(MAX_ROUNDS):
        for f, out in _run(_pass2_batch, todo, jobs, state, progress, "linting", stats):
            f.exports = tuple(out[0].exports)
            outputs[id(f)] = (f, out)
        stats.analysed += len(todo)
        changed, todo = _called_again(everyone, results, cache, resolver, fix, stats)
        if not changed:
            break
        for f in todo:
            if f.data is None:
                f.data = _reread(f, config)
        todo = [f for f in todo if f.data is not None]
    return list(outputs.values())


def project_exports(paths: Iterable[Path], index: "ProjectIndex", *, jobs: int = 1,
                    cache_dir: str | os.PathLike | None = None, config: Config | None = None,
                    progress=None) -> tuple[dict[str, tuple], list[str]]:
    """What the project's traced code gives functions in other project files (jitlint.analysis.foreign), by
    the calling file's module: for linting one text against the project (`Project.lint_text`: flake8, the editor). The
    files whose traced code may call another project file are linted for it (through the cache). (the
    contexts by module, the run's messages)"""
    config = config or Config()
    cache = Cache(Path(cache_dir), config) if cache_dir is not None else None
    names = ModuleNames()
    files = [f for f in (_read(-1, p, names, cache, config.max_file_size) for p in paths) if isinstance(f, _File)]
    stats = RunStats(files=len(files))
    _index_pass(files, jobs, cache, None, stats)
    resolver = Resolver(index)
    callers = index.importers(set(index.modules))
    todo = []
    for f in files:
        facts = f.facts
        # (a module importing no project module calls into one only through a subclass's override)
        if f.module not in callers and not (f.module and resolver.overrides_compiling_per_run(f.module)) \
                or facts is None or facts.error is not None or facts.suppressed \
                or not prefilter.is_relevant(facts, resolver) or _cached(f, cache, resolver, [], None, stats):
            continue
        if f.data is None:
            f.data = _reread(f, config)
        if f.data is not None:
            todo.append(f)
    if todo and _start_method() == "fork":
        import_linting()
    for f, (result, looked_up, opaque, _) in _rounds(todo, files, jobs, (config, index, None), progress, stats, [],
                                                     cache, resolver):
        if cache is not None and not opaque:
            _put(cache, f, result, looked_up, resolver)
        f.data = None
    messages = []
    if cache is not None:
        cache.save({f.key for f in files}, prune=False)
        messages = cache.errors
    return {f.module: f.exports for f in files if f.module and f.exports}, messages


def _cached(f: _File, cache, resolver, results, fix, stats, incoming: tuple | None = None) -> bool:
    """Take a linted file's result from the cache, if it holds one (for `incoming`; None: for the contexts
    it was linted with last, which the rounds then check)."""
    hit = cache.get_lint(f.key, f.digest, f.module, f.package, f.facts.refs, resolver, f.display, incoming) \
        if cache is not None else None
    if hit is None or (fix and any(x.fix is not None for x in hit[0])):
        return False
    findings, warnings, exports, f.incoming = hit
    f.exports = tuple(exports)
    if f.order >= 0:
        results[f.order] = FileResult(f.display, findings, warnings, exports=list(exports))
        stats.cached += 1
    return True


def _callers(files: list[_File], others: list[_File], index, resolver, cache, stats, config) -> list[_File]:
    """The files only indexed whose traced code may call (through other files) into a linted one: those
    the cache holds a result of give their exports at once, the rest are linted for them."""
    if not others:
        return []
    modules = {f.module for f in files if f.module}
    # (a caller of a method of a linted class may hold the object as one of its bases: their importers too)
    reach = modules.union(*(index.base_modules(m) for m in modules))
    for _ in range(MAX_ROUNDS):
        grown = reach | index.importers(reach)
        if grown == reach:
            break
        reach = grown
    out = []
    for f in others:
        if f.module not in reach or f.module in modules or f.facts is None or f.facts.error is not None \
                or f.facts.suppressed or not prefilter.is_relevant(f.facts, resolver):
            continue
        if not _cached(f, cache, resolver, [], None, stats):
            f.data = _reread(f, config)
            if f.data is not None:
                out.append(f)
    return out


def _called_again(files: list[_File], results, cache, resolver, fix, stats) -> tuple[bool, list[_File]]:
    """The files whose incoming contexts (what the others' traced code gives their functions) differ from
    those they were linted with: their results from the cache where it holds them for the new ones; the
    rest, to lint again. (whether any file's contexts changed, the files to lint)"""
    changed = False
    again: dict[int, _File] = {}
    while True:  # results from the cache first: what they give others may spare those a lint
        by_module: dict[str, list] = {}
        for f in files:
            for call in f.exports:
                by_module.setdefault(call.module, []).append(call)
        hit = False
        for f in files:
            calls = tuple(by_module.get(f.module, ())) if f.module else ()
            if foreign.digest(calls) == foreign.digest(f.incoming):
                continue
            if f.facts is None or f.facts.error is not None or f.facts.suppressed:
                continue
            f.incoming = calls
            changed = True
            if _cached(f, cache, resolver, results, fix, stats, calls):
                again.pop(id(f), None)
                hit = True
            else:
                again[id(f)] = f
        if not hit:
            return changed, list(again.values())


def _reread(f: _File, config) -> bytes | None:
    try:
        return read_source(Path(f.key), config.max_file_size)
    except OSError:
        return None


def _take_pass2(linted, results, notebooks, cache, resolver, write, interrupt) -> None:
    """Pass 2's results into `results`: fixed files written (or diffed), the rest cached. After Ctrl-C
    (`interrupt`) no further file is written."""
    for f, (result, looked_up, opaque, fixed) in linted:
        if f.order < 0:  # a caller linted for what it gives the linted files: only cached
            if cache is not None and not opaque:
                _put(cache, f, result, looked_up, resolver)
            continue
        if fixed is not None:
            if interrupt.pending():
                results[f.order] = result
                continue
            result = write_fixed(f.display, f.data, result, *fixed) if write else diff_fixed(f.display, f.data, *fixed)
            results[f.order] = result
            if result.fixes_applied and f.order in notebooks:
                notebooks[f.order] = fixed[0]
            f.data = None
            continue  # not cached: the file's bytes changed (or the findings are those before the fixes)
        results[f.order] = result
        if cache is not None and not opaque:
            _put(cache, f, result, looked_up, resolver)
        f.data = None


def _put(cache, f: _File, result: FileResult, looked_up, resolver) -> None:
    refs = set(f.facts.refs)
    extra = [q for q in looked_up if q not in refs]
    cache.put_lint(f.key, f.digest, f.module, f.package, result.findings, result.warnings,
                   resolver.hits([*f.facts.refs, *extra]), extra, result.exports, f.incoming)


def _pass1(task) -> "Facts":
    """Pass 1 of one file (display path, module, package flag, bytes): never raises."""
    display, key, module, package, data, _ = task
    try:
        text, error = decode(data, display)
        if error is not None:
            return Facts(error=error_dict(error))
        return file_facts(text, key, module, package)
    except Exception as exc:  # a jitlint bug must not stop the run
        return Facts(error=error_dict(file_error(
            display, f"internal error while indexing this file ({type(exc).__name__}: {exc}); please report it")))


class _RecordingIndex:
    """The project index as the rules see it in pass 2: every name they look up (and every name they ask
    is a memoizer, as `cache.MEMOIZER` + the name) is remembered, because the cached result depends on
    the answers. Any other use makes the result uncacheable."""

    def __init__(self, index: "ProjectIndex") -> None:
        self._index = index
        self.looked_up: set[str] = set()
        self.opaque = False

    def lookup(self, qualified: str, *args, **kwargs):
        self.looked_up.add(qualified)
        return self._index.lookup(qualified, *args, **kwargs)

    def is_memoizer(self, qualified: str) -> bool:
        self.looked_up.add(MEMOIZER + qualified)
        return self._index.is_memoizer(qualified)

    def resolve_function(self, qualified: str):
        self.looked_up.add(FUNCTION + qualified)
        return self._index.resolve_function(qualified)

    def plain_method(self, qualified_class: str, method: str) -> bool:
        self.looked_up.add(f"{METHOD}{qualified_class}#{method}")
        return self._index.plain_method(qualified_class, method)

    def makes_jit(self, qualified: str) -> bool:
        self.looked_up.add(MAKES_JIT + qualified)
        return self._index.makes_jit(qualified)

    def value_kind(self, qualified: str) -> str | None:
        self.looked_up.add(KIND + qualified)
        return self._index.value_kind(qualified)

    def star_binding(self, module: str, name: str) -> str | None:
        self.looked_up.add(f"{STAR_REF}{module}:{name}")
        return self._index.star_binding(module, name)

    def compiles_per_run(self, qualified: str) -> bool:
        self.looked_up.add(COMPILES + qualified)
        return self._index.compiles_per_run(qualified)

    def class_compiles_per_run(self, qualified: str) -> bool:
        self.looked_up.add(CLASS_COMPILES + qualified)
        return self._index.class_compiles_per_run(qualified)

    def methods_compiling_per_run(self, qualified_class: str, method: str):
        self.looked_up.add(f"{METHOD_COMPILES}{qualified_class}#{method}")
        return self._index.methods_compiling_per_run(qualified_class, method)

    def overrides_compiling_per_run(self, module: str) -> bool:
        self.looked_up.add(OVERRIDES_COMPILE + module)
        return self._index.overrides_compiling_per_run(module)

    def __getattr__(self, name: str):
        self.opaque = True
        return getattr(self._index, name)


def _pass2(task, config: Config, index: "ProjectIndex", fix: str | None = None):
    """Pass 2 of one relevant file: (result, names looked up in the index, result is uncacheable, fixed).
    `fixed`, when `fix` changed the text: (the new bytes, the findings fixed, the result before them)."""
    display, _, module, package, data, incoming = task
    recorder = _RecordingIndex(index) if index is not None else None
    fixed = None
    try:
        text, error = decode(data, display)
        unit = None if error is not None else LintUnit(display, text, config, module, package, index=recorder,
                                                       incoming=incoming, exports=[])
        result = select(FileResult(display, [error]), config) if unit is None else lint_relevant(unit)
        if fix and unit is not None and any(x.fix is not None for x in result.findings):
            fixed = fix_and_relint(data, unit, result, fix == "unsafe")
            if fixed is not None:
                fixed, result = (fixed[0], fixed[1], result), fixed[2]
    except Exception as exc:  # a jitlint bug must not stop the run
        result = select(FileResult(display, [file_error(
            display, f"internal error while linting this file ({type(exc).__name__}: {exc}); please report it")]),
            config)
        return result, [], True, None
    if recorder is None:
        return result, [], False, fixed
    return result, sorted(recorder.looked_up), recorder.opaque, fixed


# ------------------------------------------------------------------------------------------ workers

_worker_state: tuple | None = None  # (config, index) in a pass-2 worker
_BYTES_PER_WORKER = 64_000


def _pass1_batch(tasks: list) -> list:
    return [_pass1(task) for task in tasks]


def _pass2_batch(tasks: list) -> list:
    config, index, fix = _worker_state
    return [_pass2(task, config, index, fix) for task in tasks]


def _init_worker(state) -> None:
    import signal  # workers only: a run in one process does not load it

    global _worker_state
    _worker_state = state
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    tune_gc()


def tune_gc() -> None:
    """For a process that only lints: collect cyclic garbage far less often (libcst and ast build
    millions of small objects that live until the file is done), and never scan what exists now."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_MIN_BATCH = 16_000  # bytes of source: below that, messages cost more than the waiting they save


def _batches(files: list[_File], workers: int) -> list[list[_File]]:
    """Files grouped into batches, biggest files first (so no big file comes last). A batch holds an
    eighth of a worker's share of the bytes (a message per batch, a progress step per batch), and near
    the end less: at most half a worker's share of what is left, so the last batches are small and no
    worker waits long for another to finish its last one."""
    ordered = sorted(files, key=lambda f: -len(f.data))
    remaining = sum(len(f.data) for f in ordered)
    full = max(_MIN_BATCH, remaining // (workers * 8))
    out: list[list[_File]] = []
    current: list[_File] = []
    size = 0
    target = full
    for f in ordered:
        current.append(f)
        size += len(f.data)
        if size >= target:
            out.append(current)
            remaining -= size
            current, size = [], 0
            target = max(_MIN_BATCH, min(full, remaining // (workers * 2)))
    if current:
        out.append(current)
    return out


def _run(batch_func, files: list[_File], jobs: int, state, progress, label: str, stats: RunStats):
    """Yield (file, result) of `batch_func` over `files`: on `jobs` processes, or in this one."""
    if not files:
        return
    if progress is not None:
        progress.start(label, len(files))
    total = sum(len(f.data) for f in files)
    # Starting a process costs about as much as linting 2k lines: one per 64 KB of source at most.
    workers = max(1, min(jobs, len(files), total // _BYTES_PER_WORKER + 1))
    try:
        if workers == 1:
            yield from _in_process(batch_func, files, state, progress)
        else:
            stats.workers = max(stats.workers, workers)
            yield from _run_pool(batch_func, files, workers, state, progress)
    finally:
        if progress is not None:
            progress.done()


def _in_process(batch_func, files: list[_File], state, progress):
    global _worker_state
    saved, _worker_state = _worker_state, state
    try:
        for f in files:
            yield f, batch_func([f.task()])[0]
            if progress is not None:
                progress.advance(1)
    finally:
        _worker_state = saved


def _start_method() -> str:
    """fork where it is safe: workers start at once and inherit the index. A process with other threads
    (JAX's, in a test run or a notebook) must not fork: there workers start afresh and get the index
    pickled."""
    if sys.platform.startswith("linux"):
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return "fork"
        except OSError:
            pass
    return "spawn"


def _run_pool(batch_func, files: list[_File], workers: int, state, progress):
    # why here: the pool's modules take ~20 ms to import, which a run without workers (cached) never pays
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed  # (why here: as above)
    from concurrent.futures.process import BrokenProcessPool  # (why here: as above)

    context = multiprocessing.get_context(_start_method())
    batches = _batches(files, workers)
    pending = {id(f) for f in files}
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                                   initargs=(state,))
    try:
        futures = {executor.submit(batch_func, [f.task() for f in batch]): batch for batch in batches}
        for future in as_completed(futures):
            batch = futures[future]
            try:
                outputs = future.result()
            except BrokenProcessPool:
                break  # a worker died (out of memory?): what is left runs here, below
            except Exception:
                continue  # the batch could not be sent or returned: it runs here, below
            for f, out in zip(batch, outputs):
                pending.discard(id(f))
                yield f, out
            if progress is not None:
                progress.advance(len(batch))
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    yield from _in_process(batch_func, [f for f in files if id(f) in pending], state, progress)
