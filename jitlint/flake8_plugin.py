"""The flake8 plugin: a thin adapter from flake8 to `jitlint.engine.check_source`.

flake8 does for jitlint's codes what it does for its own: selection (`--select`, `--ignore`,
`--per-file-ignores`, ...), `# noqa`, `-j`, stdin and output. So the engine is asked for every jitlint
code with no noqa applied, and the plugin only converts positions (flake8 columns are 0-based here).

jitlint's own settings are flake8 options, read from the command line and from `[flake8]` in
setup.cfg / tox.ini / .flake8 (flake8 never reads pyproject.toml): see `FLAKE8_OPTIONS`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Iterator

from typing import TYPE_CHECKING

from jitlint import __version__
from jitlint.config import Config

if TYPE_CHECKING:
    from jitlint.index import ProjectIndex

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
    from jitlint.config import ConfigError, load_config

    config = Config()
    if options.jitlint_config:
        path = Path(options.jitlint_config)
        if not path.is_file():
            raise ConfigError(f"jitlint-config: {options.jitlint_config} not found")
        # flake8 names each file to the plugin, as pre-commit names them to `jitlint check`, so the
        # configured excludes apply as with --force-exclude. Without a config, flake8's --exclude decides.
        config = load_config(path).with_overrides(force_exclude=True)
    # flake8 selects and ignores, so the engine must report every jitlint code.
    return config.with_overrides(select=("ALL",), extend_select=(), ignore=(), per_file_ignores=())


class JitlintChecker:
    name = "jitlint"
    version = __version__

    config: Config = Config(select=("ALL",))
    # The files flake8 was asked to check, indexed once (lazily, in each worker) so that calls into
    # other files are checked against their static parameters, as `jitlint check` does.
    index_paths: tuple[str, ...] = ()
    _index: "ProjectIndex | None" = None

    # flake8 picks the plugin type by parameter name: `tree` makes this an AST plugin. The tree itself
    # is unused: the engine parses `lines` with libcst.
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
        from jitlint.config import ConfigError

        try:
            cls.config = _config_from_options(options)
            cls.index_paths = tuple(p for p in getattr(options, "filenames", None) or () if p != "-")
            cls._index = None
        except ConfigError as exc:
            from flake8.exceptions import ExecutionError

            raise ExecutionError(f"jitlint: {exc}") from None

    @classmethod
    def project_index(cls) -> "ProjectIndex | None":
        if cls._index is None and cls.index_paths:
            from jitlint.engine import build_index, discover

            files = [item for item in discover(list(cls.index_paths), cls.config) if isinstance(item, Path)]
            cls._index = build_index(files)
        return cls._index

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from jitlint.engine import check_source, module_name_for

        path = Path(self.filename)
        if self.config.force_exclude and self.config.is_excluded(path):
            return
        # A real file (not `stdin`) gets its module name, so relative imports resolve as in the CLI.
        module_name, is_package = module_name_for(path) if path.is_file() else (None, False)
        result = check_source("".join(self.lines), self.filename, self.config, apply_noqa=False,
                              module_name=module_name, is_package=is_package, index=self.project_index())
        for f in result.findings:
            yield f.line, f.col - 1, f"{f.code} {f.message}", type(self)
