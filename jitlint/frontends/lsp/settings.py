"""Settings: `[tool.jitlint]` of the nearest pyproject.toml, overridden by the client's "jitlint" settings
(`workspace/configuration`, or `initializationOptions` / `workspace/didChangeConfiguration` for clients
that cannot be asked). Every handler awaits one shared settings task, so the first diagnostics already
use them."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from jitlint.core.config import (Config, ConfigError, Selection, check_selectors, config_from_table, find_pyproject,
                                 load_config)

SETTINGS_SECTION = "jitlint"
SETTINGS_TIMEOUT_SECONDS = 5.0  # for an answer to a request the server sends the client


def _setting_key(key: str) -> str:
    """`extendSelect` (VS Code style), `extend_select` and `extend-select` all name `extend-select`."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", key).replace("_", "-").lower()


def settings_table(value: Any) -> dict:
    """The "jitlint" table of a settings object: `{"jitlint": {...}}` or the table itself."""
    if isinstance(value, dict) and isinstance(value.get(SETTINGS_SECTION), dict):
        value = value[SETTINGS_SECTION]
    return value if isinstance(value, dict) else {}


def with_client_settings(base: Config, settings: dict) -> Config:
    """`base` (from pyproject.toml) overridden by client settings as command-line flags override it: the
    rule selection is a `Selection` over the file's (ruff's order); `per-file-ignores` and `exclude`
    replace, `extend-exclude` adds."""
    table = {_setting_key(k): v for k, v in settings.items()}
    if not table:
        return base
    client = config_from_table(table, base.root, 'client settings "jitlint"')  # validates keys and types
    changes: dict[str, Any] = {}
    if {"select", "extend-select", "ignore", "extend-ignore"} & set(table):
        changes["later"] = (*base.later, Selection(select=client.select if "select" in table else None,
                                                   extend_select=client.extend_select, ignore=client.ignore))
    if "per-file-ignores" in table:
        changes["per_file_ignores"] = client.per_file_ignores
    if "exclude" in table:
        changes["exclude"] = client.exclude
    if "extend-exclude" in table:
        changes["extend_exclude"] = (*base.extend_exclude, *client.extend_exclude)
    return base.with_overrides(**changes)


def excluded_as_in_check(fs_path: str | None, config: Config) -> bool:
    """Do the settings' excludes apply, as `jitlint check --force-exclude` applies them to the files of
    the workspace?"""
    return bool(fs_path and config.root and Path(fs_path).is_relative_to(config.root))


@dataclass(frozen=True)
class Settings:
    generation: int  # bumped on every settings change: results of older generations are stale
    table: dict


class SettingsMixin:
    """The server's settings: one shared task that every handler awaits, and the config of a path."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._pushed_settings: dict = {}  # from initializationOptions or didChangeConfiguration
        self._settings_task: asyncio.Future | None = None
        self._generation = 0

    def reload_settings(self) -> None:
        self._generation += 1
        self._settings_task = asyncio.ensure_future(self._fetch_settings(self._generation))

    async def settings(self) -> Settings:
        if self._settings_task is None:
            self.reload_settings()
        return await asyncio.shield(self._settings_task)

    async def _fetch_settings(self, generation: int) -> Settings:
        table = self._pushed_settings
        if self.client_answers_configuration:
            item = types.ConfigurationItem(section=SETTINGS_SECTION, scope_uri=self.workspace.root_uri)
            try:
                values = await asyncio.wait_for(
                    self.workspace_configuration_async(types.ConfigurationParams(items=[item])),
                    SETTINGS_TIMEOUT_SECONDS)
                table = settings_table(values[0] if values else None)
            except Exception as exc:  # a client that fails or never answers: keep what we have
                self.log(f"workspace/configuration failed ({type(exc).__name__}: {exc}); using defaults",
                         types.MessageType.Warning)
        return Settings(generation, table)

    def config_for(self, path: str | None, settings: Settings) -> Config:
        """[tool.jitlint] of the nearest pyproject.toml, then the client's settings."""
        root = self.folder_for(path)
        start = Path(path).parent if path else root
        try:
            base = load_config(find_pyproject(start)) if start else Config()
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}; using the default settings")
            base = Config()
        if base.root is None and root is not None:
            base = base.with_overrides(root=root)  # excludes match paths relative to the workspace
        try:
            config = with_client_settings(base, settings.table)
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}; ignoring the client settings")
            return base
        try:
            check_selectors(config)  # the codes `jitlint check` accepts: rules, JIT9xx and JIT000
        except ConfigError as exc:
            self.show_once(f"jitlint: {exc}")
        return config

    def folder_for(self, path: str | None) -> Path | None:
        """The workspace folder holding `path` (the innermost), else the workspace root."""
        candidates = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if path:
            inside = [Path(c) for c in candidates if c and Path(path).is_relative_to(c)]
            if inside:
                return max(inside, key=lambda p: len(p.parts))
        root = self.workspace.root_path
        return Path(root) if root else None


# ------------------------------------------------------------------------------------------ handlers


async def did_change_configuration(ls, params: types.DidChangeConfigurationParams):
    if not ls.client_answers_configuration and params.settings is not None:
        ls._pushed_settings = settings_table(params.settings)
    ls.reload_settings()
    await ls.settings()
    ls.refresh_all()
