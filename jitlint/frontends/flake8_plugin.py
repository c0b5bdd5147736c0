"""The flake8 plugin: a thin adapter from flake8 to `jitlint.project.project.Project.lint_text`.

flake8 does for jitlint's codes what it does for its own: selection (`--select`, `--ignore`,
`--per-file-ignores`, ...), `# noqa`, `-j`, stdin and output. So the project is asked for every jitlint
code with no noqa applied, and the plugin only converts positions (flake8 columns are 0-based here).
Each file is linted against the index of its whole project (the folder found as `jitlint check` finds
it), so `flake8 pkg/train.py` sees the jitted functions the rest of the project defines.

jitlint's own settings are flake8 options, read from the command line and from `[flake8]` in
setup.cfg / tox.ini / .flake8 (flake8 never reads pyproject.toml): see `FLAKE8_OPTIONS`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from jitlint import __version__
from jitlint.core.config import Config, ConfigError, check_selectors, find_root, load_config

if TYPE_CHECKING:
    from jitlint.project.project import Project

# Every jitlint setting exposed to flake8: flag -> extra arguments for flake8's `add_option`. Each one is
# also read from the [flake8] section (as `jitlint-config` or `jitlint_config`); `normalize_paths` makes a
# relative path in a config file relative to that file. Adding a setting: one line here, and its use in
# `_config_from_options`.
FLAKE8_OPTIONS: dict[str, dict[str, Any]] = {
    "--jitlint-config": dict(
        metavar="PYPROJECT", normalize_paths=True,
        help="read jitlint's settings from [tool.jitlint] in this pyproject.toml (flake8 never reads "
             "pyproject.toml itself). Its exclude/extend-exclude apply; rule selection stays flake8's."),
}


def _config_from_options(options: argparse.Namespace) -> Config:
    config = Config()
    if options.jitlint_config:
        path = Path(options.jitlint_config)
        if not path.is_file():
            raise ConfigError(f"jitlint-config: {options.jitlint_config} not found")
        # flake8 names each file to the plugin, as pre-commit names them to `jitlint check`, so the
        # configured excludes apply as with --force-exclude. Without a config, flake8's --exclude decides.
        config = load_config(path).with_overrides(force_exclude=True)
        check_selectors(config, f"{path}: ")  # the same codes are valid as for `jitlint check`
    # flake8 selects and ignores, so the project must report every jitlint code.
    return config.with_overrides(select=("ALL",), extend_select=(), ignore=(), per_file_ignores=())


class JitlintChecker:
    name = "jitlint"
    version = __version__

    config: Config = Config(select=("ALL",))
    filenames: tuple[str, ...] = ()  # what flake8 was asked to check (indexed when there is no project root)
    _projects: dict = {}  # project root -> Project, built lazily in each worker process

    # flake8 picks the plugin type by parameter name: `tree` makes this an AST plugin. The tree itself
    # is unused: the project parses `lines` with libcst.
    def __init__(self, tree: Any, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        for flag, kwargs in FLAKE8_OPTIONS.items():
            try:
                manager.add_option(flag, parse_from_config=True, **kwargs)
            except argparse.ArgumentError:
                # Already registered: the plugin is installed twice, or also listed in
                # [flake8:local-plugins]. A second registration would crash flake8.
                pass

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        try:
            cls.config = _config_from_options(options)
            cls.filenames = tuple(p for p in getattr(options, "filenames", None) or () if p != "-")
            cls._projects = {}
        except ConfigError as exc:
            from flake8.exceptions import ExecutionError  # why: flake8 is optional; this module imports without it

            raise ExecutionError(f"jitlint: {exc}") from None

    @classmethod
    def project_for(cls, path: Path) -> "Project":
        # why: flake8 loads every plugin at start-up; the project and its engine load at the first file checked
        from jitlint.project.project import Project

        root = find_root(path if path.exists() else Path.cwd())
        project = cls._projects.get(root)
        if project is None:
            project = cls._projects[root] = Project(root, cls.config, loose=cls.filenames, cache=root is not None)
        return project

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        path = Path(self.filename)
        project = self.project_for(path)
        result = project.lint_text("".join(self.lines), self.filename, apply_noqa=False,
                                   exclude=self.config.force_exclude)
        for f in result.findings:
            yield f.line, f.col - 1, f"{f.code} {f.message}", type(self)
