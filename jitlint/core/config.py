"""Settings: `[tool.jitlint]` in the nearest pyproject.toml, overridden by command-line flags."""

from __future__ import annotations

import fnmatch
import functools
import os
import re

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from jitlint.catalog import CODES, unknown_selectors

# Tool and build output, as ruff leaves it out (`_build`: a Sphinx build's copies of the sources).
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "build", "dist",
    "_build", "buck-out", "__pycache__", "site-packages", "node_modules", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".pytype", ".jitlint_cache", ".ipynb_checkpoints", "__pypackages__",
)

KNOWN_KEYS = {"select", "extend-select", "ignore", "extend-ignore", "per-file-ignores", "exclude",
              "extend-exclude", "max-file-size", "docs-url", "unsafe-fixes", "runtime-min-retraces"}
# Settings that existed once, with why they are gone: named in the error instead of "unknown setting"
REMOVED_KEYS = {"runtime-min-compile-seconds": "a bounded set of recompiles (a ragged last batch) is never a "
                                               "finding, whatever it took to compile: remove the setting"}
# Files above this many bytes are reported (JIT000), not read: generated data modules, links to devices.
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024


class ConfigError(Exception):
    """A bad setting: reported to the user, exit code 2."""


@dataclass(frozen=True)
class Selection:
    """One source's rule selection over those before it (the command line's over the config file's, an
    editor's over both), as ruff resolves them: `select` replaces what earlier sources enabled; within the
    source the most specific selector decides a code (on a tie, ignore wins); a code the source does not
    name keeps the earlier decision."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def enablers(self) -> tuple[str, ...]:
        return (*(self.select or ()), *self.extend_select)


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("JIT",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    root: Path | None = None  # folder of the pyproject.toml the settings came from
    force_exclude: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes
    docs_url: str | None = None  # where rule pages are: a template with `{code}` (jitlint.catalog.links)
    unsafe_fixes: bool = False  # `--fix` applies unsafe fixes too (as `--unsafe-fixes` does)
    # `jitlint run`: when a recompile only the run saw is worth a finding (jitlint.runtime.confirm.Thresholds)
    runtime_min_retraces: int = 3
    # Selections over the file's own (select, extend_select, ignore, per_file_ignores), in order.
    later: tuple[Selection, ...] = ()

    def with_overrides(self, **changes) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        """ruff's rule: the most specific matching selector wins, on a tie ignore wins (a per-file ignore
        counts as an ignore); a later selection (the command line's) decides every code it names."""
        per_file = 0
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if self._path_matches(path, pattern):
                    per_file = max(per_file, _longest_prefix(code, codes))
        enabled = False
        for selection in self.selections():
            selected = _longest_prefix(code, selection.enablers())
            ignored = _longest_prefix(code, selection.ignore)
            if selection.select is not None or selected or ignored:
                enabled = selected > max(ignored, per_file)
        return enabled

    def selections(self) -> tuple[Selection, ...]:
        """The file's selection, then the later ones, in the order they apply."""
        return (Selection(self.select, self.extend_select, self.ignore), *self.later)

    def cancelled_selectors(self, codes) -> list[str]:
        """The selectors that ask for codes of `codes` (the catalogue) but leave none of them enabled: a
        selection that cancels out, worth saying (`--select JIT101 --ignore JIT1`)."""
        enabled = [code for code in codes if self.is_enabled(code)]
        selections = self.selections()
        # a later `select` replaced the earlier selections: what they asked for is not cancelled, only replaced
        first = max(n for n, selection in enumerate(selections) if selection.select is not None)
        return [sel for selection in selections[first:] for sel in selection.enablers()
                if any(_longest_prefix(code, (sel,)) for code in codes)
                and not any(_longest_prefix(code, (sel,)) for code in enabled)]

    def is_excluded(self, path: Path) -> bool:
        """Does an exclude pattern match this path (its name or its path from the config root)?"""
        # Discovery asks this for every folder and file: the path is resolved once, not once per pattern,
        # and the patterns are matched as one regex each way (same answers as `_path_matches` per pattern).
        by_name, by_rel, by_part = _exclude_matchers((*self.exclude, *self.extend_exclude))
        p = Path(path)
        if by_name.match(os.path.normcase(p.name)):
            return True
        rel = self._relative(p)
        return bool(by_rel.match(os.path.normcase(rel))
                    or any(by_part.match(os.path.normcase(part)) for part in Path(rel).parts))

    def _path_matches(self, path: str, pattern: str) -> bool:
        p = Path(path)
        if fnmatch.fnmatch(p.name, pattern):
            return True
        rel = self._relative(p)
        return _rel_matches(rel, Path(rel).parts, pattern)

    def _relative(self, p: Path) -> str:
        """The path from the config root (or the working folder) after resolving links, else as given."""
        raw = os.fspath(p)
        if os.path.islink(raw):
            real = os.path.realpath(raw)
        else:  # the folder's links resolved once per folder: discovery asks for every file of a project
            folder, name = os.path.split(os.path.abspath(raw))
            real = os.path.join(_real_folder(folder), name) if name else _real_folder(folder)
        root = _real_folder(str(self.root) if self.root is not None else os.getcwd())
        if real == root:
            return "."
        if real.startswith(root.rstrip(os.sep) + os.sep):
            return Path(real[len(root.rstrip(os.sep)) + 1:]).as_posix()
        return p.as_posix()

    def selectors(self) -> list[str]:
        """Every code or prefix the settings name."""
        return [*(sel for selection in self.selections() for sel in (*selection.enablers(), *selection.ignore)),
                *(c for _, codes in self.per_file_ignores for c in codes)]

    def fingerprint(self) -> str:
        """A stable text of everything that changes findings (for the cache key)."""
        return repr((self.select, self.extend_select, self.ignore, self.per_file_ignores, self.later))


@functools.lru_cache(maxsize=4096)
def _real_folder(folder: str) -> str:
    return os.path.realpath(folder)


@functools.lru_cache(maxsize=16)
def _exclude_matchers(patterns: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """fnmatch patterns as three regexes: for a name, for a relative path (`p` or `p/*`), for a path part."""
    def union(globs) -> re.Pattern:
        globs = list(globs)
        if not globs:
            return re.compile(r"(?!)")
        return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(g))})" for g in globs))

    stripped = [p.rstrip("/") for p in patterns]
    return union(patterns), union([*stripped, *(p + "/*" for p in stripped)]), union(stripped)


def _rel_matches(rel: str, parts: tuple[str, ...], pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*")
            or any(fnmatch.fnmatch(part, pattern) for part in parts))


def _longest_prefix(code: str, selectors) -> int:
    best = 0
    for sel in selectors:
        if sel == "ALL":
            best = max(best, 1)
        elif code.startswith(sel):
            best = max(best, len(sel) + 1)
    return best


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.jitlint] table, from `start` upwards."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            # A pyproject.toml that does not parse may hold [tool.jitlint]: say so (as --config does)
            # rather than lint with settings the user did not write (the defaults, or a parent's).
            if _jitlint_table(_read_toml(candidate), candidate) is not None:
                return candidate
    return None


def _read_toml(pyproject: Path) -> dict:
    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot read settings: {exc}") from None


def _jitlint_table(data: dict, pyproject: Path) -> dict | None:
    """[tool.jitlint] of a parsed pyproject.toml (None: there is none); ConfigError if it is not a table."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{pyproject}: `tool` must be a table")
    table = tool.get("jitlint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: `tool.jitlint` must be a table ([tool.jitlint])")
    return table


def load_config(pyproject: Path | None) -> Config:
    if pyproject is None:
        return Config()
    table = _jitlint_table(_read_toml(pyproject), pyproject) or {}
    return config_from_table(table, pyproject.parent, str(pyproject))


def config_from_table(table: dict, root: Path | None, where: str = "[tool.jitlint]") -> Config:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: the settings must be a table of key = value")
    removed = sorted(set(table) & set(REMOVED_KEYS))
    if removed:
        raise ConfigError(f"{where}: `{removed[0]}` no longer exists: {REMOVED_KEYS[removed[0]]}")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(KNOWN_KEYS))})")

    def strings(key: str) -> tuple[str, ...] | None:
        if key not in table:
            return None
        value = table[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: `{key}` must be a list of strings")
        return tuple(value)

    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    per_file = []
    for pattern, codes in pfi.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: per-file-ignores `{pattern}` must be a list of codes")
        per_file.append((pattern, tuple(codes)))
    ignore = (strings("ignore") or ()) + (strings("extend-ignore") or ())
    max_size = table.get("max-file-size")
    if max_size is not None and (not isinstance(max_size, int) or isinstance(max_size, bool) or max_size < 0):
        raise ConfigError(f"{where}: `max-file-size` must be a number of bytes")
    docs_url = table.get("docs-url")
    if docs_url is not None and (not isinstance(docs_url, str) or "{code}" not in docs_url):
        raise ConfigError(f"{where}: `docs-url` must be a string with `{{code}}` in it")
    unsafe = table.get("unsafe-fixes")
    if unsafe is not None and not isinstance(unsafe, bool):
        raise ConfigError(f"{where}: `unsafe-fixes` must be true or false")
    min_retraces = table.get("runtime-min-retraces")
    if min_retraces is not None and (not isinstance(min_retraces, int) or isinstance(min_retraces, bool)
                                     or min_retraces < 1):
        raise ConfigError(f"{where}: `runtime-min-retraces` must be a whole number, at least 1")
    return Config(root=root).with_overrides(max_file_size=max_size, docs_url=docs_url, unsafe_fixes=unsafe,
        runtime_min_retraces=min_retraces,
        select=strings("select"), extend_select=strings("extend-select"), ignore=ignore or None,
        per_file_ignores=tuple(per_file) or None, exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude"))


# ------------------------------------------------------------------------------------------ the project

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", ".git")


def find_root(start: Path) -> Path | None:
    """The project's root folder: that of the pyproject.toml holding [tool.jitlint], else the nearest
    folder (from `start` upwards) with a pyproject.toml, setup.cfg or .git; None when there is none."""
    pyproject = find_pyproject(start)
    if pyproject is not None:
        return pyproject.parent
    start = start.resolve()
    if not start.is_dir():
        start = start.parent
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
    return None


@dataclass(frozen=True)
class Overrides:
    """Command-line settings over [tool.jitlint]. The rule selection is a `Selection` over the file's
    (ruff's order: see `Selection`); `exclude` replaces the configured list, `extend_exclude` adds to it."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] | None = None
    force_exclude: bool = False
    max_file_size: int | None = None


def resolve_config(start: Path, *, config_file: str | os.PathLike | None = None, isolated: bool = False,
                   overrides: Overrides = Overrides()) -> Config:
    """The settings a run uses: none (`isolated`), `config_file`'s, or those of the nearest pyproject.toml
    with [tool.jitlint] above `start`; then `overrides`. ConfigError on a bad file or an unknown code."""
    if isolated:
        base = Config()
    elif config_file is not None:
        base = load_config(_config_file(config_file))
    else:
        base = load_config(find_pyproject(start if start.exists() else Path.cwd()))
    o = overrides
    later = None
    if o.select is not None or o.extend_select or o.ignore or o.extend_ignore:
        later = (*base.later, Selection(select=tuple(o.select) if o.select is not None else None,
                                        extend_select=tuple(o.extend_select or ()),
                                        ignore=(*(o.ignore or ()), *(o.extend_ignore or ()))))
    config = base.with_overrides(
        later=later,
        exclude=tuple(o.exclude) if o.exclude is not None else None,
        extend_exclude=(*base.extend_exclude, *o.extend_exclude) if o.extend_exclude else None,
        force_exclude=True if o.force_exclude else None,
        max_file_size=o.max_file_size,
    )
    check_selectors(config)
    return config


def _config_file(name: str | os.PathLike) -> Path | None:
    """The file `--config` names (None for the empty settings of `--config /dev/null`); ConfigError why not."""
    path = Path(name)
    if not path.exists():
        raise ConfigError(f"config file {name} not found")
    if path.is_dir():
        raise ConfigError(f"config file {name} is a folder: give the path of a pyproject.toml")
    if os.path.exists(os.devnull) and os.path.samefile(path, os.devnull):
        return None  # no settings at all, as `--isolated`
    if not path.is_file():
        raise ConfigError(f"config file {name} is not a regular file")
    return path


def check_selectors(config: Config, where: str = "") -> None:
    """ConfigError when a selector matches no code of the catalogue (static rules, runtime codes, JIT000)."""
    bad = unknown_selectors(config.selectors())
    if bad:
        raise ConfigError(f"{where}unknown rule selector(s): {', '.join(bad)} (see `jitlint rules`)")


def selection_warnings(config: Config) -> list[str]:
    """What the command line says on stderr about a selection that cancels out."""
    return [f"`{sel}` selects no rule: every code it matches is ignored"
            for sel in config.cancelled_selectors(CODES)]
