"""Which files a project's runs lint and index, and the module each file is: the Python files and notebooks
under the paths asked for (the configured excludes apply; virtual environments are skipped), and a file's
dotted module name from the packages (`__init__.py` folders) around it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

from jitlint.core.config import Config

PYTHON_SUFFIXES = (".py", ".pyi")
LINTED_SUFFIXES = (*PYTHON_SUFFIXES, ".ipynb")  # notebooks: jitlint.source.notebook


def module_name_for(path: Path) -> tuple[str | None, bool]:
    """`pkg/sub/mod.py` -> ("pkg.sub.mod", False), walking up while folders are packages."""
    return ModuleNames()(path)


class ModuleNames:
    """`module_name_for`, remembering each folder's package path (a run asks once per file)."""

    def __init__(self) -> None:
        self._folders: dict[str, tuple[str, ...]] = {}
        self._real: dict[str, str] = {}

    def __call__(self, path: Path) -> tuple[str | None, bool]:
        raw = os.fspath(path)
        if os.path.islink(raw):
            real = os.path.realpath(raw)
        else:  # the folder's links resolved once per folder
            folder, name = os.path.split(os.path.abspath(raw))
            if folder not in self._real:
                self._real[folder] = os.path.realpath(folder)
            real = os.path.join(self._real[folder], name)
        folder, name = os.path.split(real)
        is_package = name == "__init__.py"
        if name.endswith(".ipynb"):
            return None, False  # not importable: notebooks are linted, not indexed
        parts = [*self._package(folder)]
        if not is_package:
            parts.append(name.rsplit(".", 1)[0] if "." in name else name)
        if not parts:
            return None, is_package
        return ".".join(parts), is_package

    def _package(self, folder: str) -> tuple[str, ...]:
        """The dotted parts of the package a folder is (empty when it has no `__init__.py`)."""
        known = self._folders.get(folder)
        if known is not None:
            return known
        parts: tuple[str, ...] = ()
        parent, name = os.path.split(folder)
        # (a folder whose name is no identifier cannot be imported as a package, whatever it holds: an
        # sdist's `jax-md/` with a stray `__init__.py` is no package `jax-md`)
        if name.isidentifier() and os.path.isfile(os.path.join(folder, "__init__.py")):
            parts = (*(self._package(parent) if parent != folder else ()), name)
        self._folders[folder] = parts
        return parts


def files_to_lint(paths: Sequence[str], config: Config) -> Iterator[Path | tuple[str, str]]:
    """`discover`, each file once however often the user named it (`a.py ./a.py`, `. a.py`: the first name
    given wins), so it is linted, reported and fixed once."""
    seen: set[str] = set()
    for item in discover(paths, config):
        key = os.path.abspath(item[0] if isinstance(item, tuple) else item)
        if key not in seen:
            seen.add(key)
            yield item


def discover(paths: Sequence[str], config: Config) -> Iterator[Path | tuple[str, str]]:
    """Python files under `paths`, in order (the index reads a later name of a file as winning its module
    name); a missing path is yielded as (path, error)."""
    for raw in paths:
        p = Path(raw)
        if os.path.isdir(p):
            if config.force_exclude and config.is_excluded(p) and raw not in (".", "./"):
                continue
            yield from _walk(p, config)
        elif os.path.lexists(p):  # a file, or a FIFO, device or dangling link: reading it says which
            if config.force_exclude and config.is_excluded(p):
                continue
            yield p
        else:
            yield (raw, "no such file or directory")


def _walk(root: Path, config: Config) -> Iterator[Path | tuple[str, str]]:
    """Python files under `root`; a folder that cannot be listed is yielded as (folder, error)."""
    errors: list[OSError] = []
    for folder, dirs, files in os.walk(root, onerror=errors.append):
        yield from _unreadable(errors)
        keep = []
        for d in sorted(dirs):
            full = Path(folder, d)
            # os.path.isfile, not Path.is_file: an unreadable folder answers False, not PermissionError
            if config.is_excluded(full) or os.path.isfile(full / "pyvenv.cfg"):
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            if name.endswith(LINTED_SUFFIXES):
                full = Path(folder, name)
                if not config.is_excluded(full):
                    yield full
    yield from _unreadable(errors)


def _unreadable(errors: list[OSError]) -> Iterator[tuple[str, str]]:
    while errors:
        exc = errors.pop(0)
        yield (str(exc.filename), f"cannot read folder: {exc.strerror or exc}")
