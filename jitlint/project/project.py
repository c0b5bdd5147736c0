"""The project: what every front end (the CLI, `--fix`, pre-commit through the CLI, the flake8 plugin, the
language server, `jitlint run`) lints through.

A `Project` is found from a path (`Project.discover`): its root is the folder of the pyproject.toml
holding [tool.jitlint], else the nearest folder with a pyproject.toml, setup.cfg or .git. It loads the
settings once, and owns the project index: pass 1 (CPython's `ast`) over *all* the project's Python
files, cached by content in `<root>/.jitlint_cache`. So linting one file - the one file pre-commit
stages, the one buffer open in an editor - sees every jitted function of the project, as linting the
whole project does.

    lint(paths)           discover and lint files (and folders) against the whole project's index
    lint_text(text, path) lint one file's text (a buffer, stdin) against it: exclusion, module name,
                          `# noqa` and selection are done here, once, for every front end
    fix(paths)            lint, apply the fixes in place, and lint the fixed files again
    update(path, text)    the language server's open buffers replace their file's entry in the index
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Iterable

from jitlint.analysis.index import ProjectIndex, summarize
from jitlint.analysis.prefilter import TRACE_NAMES, references
from jitlint.core.config import Config, Overrides, find_root, resolve_config
from jitlint.core.noqa import add_noqa
from jitlint.core.writing import replace_content
from jitlint.lint import pipeline
from jitlint.lint.results import PARSE_ERROR_CODE, FileResult, RunResult
from jitlint.project.cache import FOLDER_NAME
from jitlint.project.discovery import discover, module_name_for
from jitlint.project.runner import index_files, lint_paths, project_exports
from jitlint.source.python import accepted_tree
from jitlint.source.notebook import NotebookError, read_notebook
from jitlint.source.reading import decode_source, read_source, source_encoding


class Project:
    def __init__(self, root: Path | None, config: Config | None = None, *, cache: bool = True,
                 cache_dir: str | os.PathLike | None = None, jobs: int = 1, loose: Iterable[str] = ()) -> None:
        """`root`: the project's folder (None: no project: only the files linted, and `loose`, are indexed).
        `loose`: files and folders to index after the root's (flake8's arguments)."""
        self.root = Path(root).resolve() if root is not None else None
        self.loose = tuple(loose)
        self.config = config or Config()
        if self.config.root is None and self.root is not None:
            # excludes and per-file-ignores match paths relative to the project
            self.config = self.config.with_overrides(root=self.root)
        # `cache=False` (--no-cache) wins over a folder given for it (--cache-dir), as in ruff
        self.cache_dir: Path | None = None
        if cache:
            self.cache_dir = Path(cache_dir) if cache_dir is not None else \
                (self.root or self.config.root or Path.cwd()) / FOLDER_NAME
        self.jobs = jobs
        # Until it is built (on first use), the index holds only what `update` gave it.
        self._index: "ProjectIndex" = ProjectIndex()
        self._built = False
        # What the project's traced code gives functions of other files (jitlint.analysis.foreign), by the
        # caller's module (built with the index), and the texts `update` gave whose exports are not known yet.
        self._exports: dict[str, tuple] = {}
        self._stale: dict[str, tuple[str, str, bool]] = {}  # module -> (path, text, is_package)
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self.messages: list[str] = []  # about the project, not a file (a cache not written, ...)

    def __getstate__(self) -> dict:
        # Pickled for the language server's first-lint helper (jitlint.frontends.lsp.first_lint): the index as it is
        # now (`update` may change it from another thread meanwhile), without the locks
        import pickle  # only the language server pickles a project: a `jitlint check` does not load it

        state = dict(self.__dict__)
        del state["_lock"], state["_build_lock"]
        with self._lock:
            state["_index"] = pickle.dumps(self._index, protocol=pickle.HIGHEST_PROTOCOL)
        return state

    def __setstate__(self, state: dict) -> None:
        import pickle  # (as in __getstate__)

        self.__dict__.update(state, _index=pickle.loads(state["_index"]))
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()

    @classmethod
    def discover(cls, start: str | os.PathLike = ".", *, config_file: str | os.PathLike | None = None,
                 isolated: bool = False, overrides: Overrides = Overrides(), **kwargs) -> "Project":
        """The project holding `start` (a file or folder), with its settings; ConfigError on bad ones."""
        start = Path(start)
        if not start.exists():
            start = Path.cwd()
        config = resolve_config(start, config_file=config_file, isolated=isolated, overrides=overrides)
        root = config.root if config.root is not None and config_file is None else find_root(start)
        return cls(root, config, **kwargs)

    # ---- the index
    def files(self, linted: Iterable[str] = ()) -> list[Path]:
        """Every Python file of the project (the configured excludes apply); not notebooks, which
        nothing imports (they are linted, not indexed). Without a project (no pyproject.toml, setup.cfg
        or .git above), the files beside each of the `linted` files: a script imports its siblings, since
        Python puts its folder first on `sys.path`."""
        # `loose` (what flake8 was asked to check) last: on a module name two files claim, they win
        where = [str(self.root)] if self.root is not None else _script_folders(linted)
        return [p for p in discover([*where, *self.loose], self.config)
                if isinstance(p, Path) and not p.name.endswith(".ipynb")]

    @property
    def index(self) -> "ProjectIndex":
        """The jitted functions of every project file (built on first use; then kept current by `update`)."""
        return self.build()

    @property
    def built(self) -> bool:
        """Has the whole project been indexed (else the index holds only what `update` gave it)?"""
        return self._built

    def build(self, progress=None) -> "ProjectIndex":
        """`index`, reporting the files indexed to `progress` (start/advance/done, as `lint_paths`)."""
        with self._build_lock:
            if not self._built:
                files = self.files()
                index, run = index_files(files, jobs=self.jobs, cache_dir=self.cache_dir,
                                         config=self.config, progress=progress)
                self.messages.extend(run.messages)
                exports, messages = project_exports(files, index, jobs=self.jobs, cache_dir=self.cache_dir,
                                                    config=self.config)
                self.messages.extend(m for m in messages if m not in self.messages)
                with self._lock:
                    for summary in self._index.modules.values():
                        index.add(summary)  # buffers edited meanwhile win over the files on disk
                    # (a buffer edited meanwhile: its exports are computed from its text, on demand)
                    self._exports = {m: calls for m, calls in exports.items() if m not in self._stale}
                    self._index, self._built = index, True
        return self._index

    def update(self, path: str, text: str | None) -> bool:
        """A file's text changed (an editor buffer; None: read it from disk again). Its entry in the index
        is replaced; True when the jitted functions or re-exports that other files see changed."""
        module, is_package = module_name_for(Path(path))
        if not module:
            return False
        if text is None:
            try:
                text = decode_source(Path(path).read_bytes())
            except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
                text = ""
        # (the parse is remembered: the lint of this text that follows parses it again)
        tree, error = accepted_tree(text, path)
        found = references(tree, module, is_package) if error is None else set()
        summary = summarize(tree if error is None else "", os.path.abspath(path), module, is_package,
                            refers_to=found)
        with self._lock:
            old = self._index.modules.get(module)
            self._index.add(summary)
            # What its traced code gives other files' functions is worked out when one of them is linted.
            self._stale[module] = (path, text, is_package)
            # (code it traces may call another project file's functions: those files' findings may change)
            calls_out = bool(self._exports.get(module)) or error is None and \
                summary.imports_any(self._index.modules.keys() - {module}) and not TRACE_NAMES.isdisjoint(found)
        return (old.jitted if old else {}) != summary.jitted or (old is not None and old.imports != summary.imports) \
            or calls_out

    def incoming(self, module: str | None) -> tuple:
        """The contexts the project's traced code gives `module`'s functions (jitlint.analysis.foreign): from
        the files as built, and from the texts `update` gave since, linted for it now."""
        if not module:
            return ()
        with self._lock:
            stale = {m: entry for m, entry in self._stale.items() if m != module}
            index = self._index
        # (a caller may hold an object of a class of `module` declared as one of its bases: their modules too)
        reached = {module} | index.base_modules(module) if stale else set()
        for caller, (path, text, is_package) in stale.items():
            summary = index.modules.get(caller)
            # (a base's own module reaches the subclass's overrides through `self`)
            if summary is None or not (caller in reached or summary.imports_any(reached)):
                continue  # it imports nothing of `module`: what it gives stays unknown until one does
            result = pipeline.check_source(text, path, self.config, apply_noqa=False, module_name=caller,
                                           is_package=is_package, index=index, exports=True)
            with self._lock:
                if self._stale.get(caller, (None, None))[1] is text:
                    del self._stale[caller]
                self._exports[caller] = tuple(result.exports)
        with self._lock:
            return tuple(call for m, calls in self._exports.items() if m != module
                         for call in calls if call.module == module)

    def take_updates(self, other: "Project") -> None:
        """Start from the texts `other` was given by `update` (the language server's open buffers)."""
        with other._lock:
            summaries = list(other._index.modules.values())
        with self._lock:
            for summary in summaries:
                self._index.add(summary)

    # ---- linting
    def lint(self, paths: Iterable[str], *, progress=None) -> RunResult:
        """Discover and lint `paths` (files or folders) against the whole project's index."""
        paths = list(paths)
        run = lint_paths(paths, self.config, project_files=self.files(paths), jobs=self.jobs,
                         cache_dir=self.cache_dir, progress=progress)
        run.messages[:0] = self.messages
        return run

    def lint_text(self, text: str | bytes, path: str, *, apply_noqa: bool = True, exclude: bool = True,
                  config: Config | None = None, build: bool = True, state=None) -> FileResult:
        """Lint one file's text as the file at `path` of this project (its module name, so relative imports
        resolve), against the index. `exclude`: a path the settings exclude gets no findings.
        `config`: other settings than the project's (the language server's client settings).
        `build=False`: do not wait for the index to be built (the language server builds it meanwhile).
        `state`: a `jitlint.project.incremental.Document`: what is unchanged since its earlier texts is reused."""
        config = config or self.config
        if exclude and path not in ("-", "<stdin>") and config.is_excluded(Path(path)):
            return FileResult(path)
        module, is_package = None, False
        p = Path(path)
        if p.is_absolute() or p.is_file():
            module, is_package = module_name_for(p)
        index = self.index if build else self._index
        return pipeline.check_source(text, path, config, apply_noqa=apply_noqa, module_name=module,
                                     is_package=is_package, index=index, state=state,
                                     incoming=self.incoming(module))

    def fix(self, paths: Iterable[str], *, unsafe: bool = False, write: bool = True, progress=None) -> RunResult:
        """Lint `paths` and apply the safe fixes (`unsafe`: the unsafe ones too) in place (atomically, only
        text this Python compiles), re-linting each fixed text against the index (FileResult.fixes_applied
        and .fixed, or FileResult.fix_error). `write=False`: write nothing; FileResult.diff shows the change."""
        paths = list(paths)
        run = lint_paths(paths, self.config, project_files=self.files(paths), jobs=self.jobs,
                         cache_dir=self.cache_dir, progress=progress, fix="unsafe" if unsafe else "safe",
                         write=write)
        run.messages[:0] = self.messages
        for r in run.files:
            if r.fixes_applied and write:
                self.update(r.path, None)  # the index follows the fixed file
        return run

    def add_noqa(self, paths: Iterable[str]) -> tuple[int, list[str], list[str], RunResult]:
        """`jitlint check --add-noqa`: lint `paths`, then suppress each finding on the line its `# noqa` is
        read from (its first line), writing each file atomically. (the codes added, the lines that cannot
        carry one, the files that could not be written, the run)"""
        run = self.lint(paths)
        by_file: dict[str, dict[tuple[int | None, int], list[str]]] = {}
        for f in run.findings:
            if f.code == PARSE_ERROR_CODE:
                continue  # a file that does not parse gets no comments
            by_file.setdefault(f.path, {}).setdefault((f.cell, f.line), []).append(f.code)
        total, errors, refusals = 0, [], []
        for path, lines in by_file.items():
            try:
                data = read_source(path, self.config.max_file_size)
                new_data, n, refused = _with_noqa(path, data, lines)
                refusals += [f"{path}:{where}: cannot carry a `# noqa` comment (the line ends inside a string, or "
                             "continues with `\\`)" for where in refused]
                if not n:
                    continue
                replace_content(path, new_data, expected=data)  # never over an edit made since it was read
            except (OSError, UnicodeError, SyntaxError, LookupError, NotebookError) as exc:
                errors.append(f"{path}: cannot add noqa comments: {getattr(exc, 'strerror', None) or exc}")
                continue
            total += n
            self.update(path, None)
        return total, refusals, errors, run


def _with_noqa(path: str, data: bytes, lines: dict[tuple[int | None, int], list[str]]) -> tuple[bytes, int, list[str]]:
    """A file's bytes with `# noqa: CODE` on each (cell, line): the new bytes, how many codes were added, and
    where a comment cannot go. A notebook's comments go into its cells (their lines, as findings give them)."""
    if not path.endswith(".ipynb"):
        new_text, n, refused = add_noqa(decode_source(data), {line: codes for (_, line), codes in lines.items()})
        return new_text.encode(source_encoding(data)), n, [str(line) for line in refused]  # utf-8-sig: the BOM
    notebook = read_notebook(data)
    starts = {cell.number: cell.start for cell in notebook.cells}
    joined = {starts[cell] + line - 1: codes for (cell, line), codes in lines.items() if cell in starts}
    new_text, n, refused = add_noqa(notebook.source, joined)
    where = []
    for line in refused:
        cell = notebook.cell_at(line)
        where.append(f"cell {cell.number}:{line - cell.start + 1}" if cell is not None else str(line))
    return (notebook.rewrite(new_text) if n else data), n, where


def _script_folders(linted: Iterable[str]) -> list[str]:
    """The `.py` files directly in the folder of each linted file (not its subfolders: a loose folder may
    be a home directory)."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in linted:
        if raw in ("-", "<stdin>") or os.path.isdir(raw):
            continue  # a folder is walked whole anyway
        folder = os.path.dirname(os.path.abspath(raw))
        if folder in seen:
            continue
        seen.add(folder)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        out.extend(os.path.join(folder, n) for n in names
                   if n.endswith(".py") and os.path.isfile(os.path.join(folder, n)))
    return out
