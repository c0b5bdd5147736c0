"""`--config PATH`: what each kind of path means, said plainly."""

from __future__ import annotations

import os

import pytest

from jitlint.core.config import Config, ConfigError, resolve_config


def test_dev_null_means_no_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT5"]\n')
    assert resolve_config(tmp_path, config_file=os.devnull).is_enabled("JIT501")
    assert resolve_config(tmp_path, config_file=os.devnull).select == Config().select


def test_a_folder_is_said_to_be_a_folder(tmp_path):
    with pytest.raises(ConfigError, match="is a folder: give the path of a pyproject.toml"):
        resolve_config(tmp_path, config_file=".")


def test_a_missing_file_is_not_found(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        resolve_config(tmp_path, config_file=tmp_path / "nope.toml")


def test_a_fifo_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "settings.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="is not a regular file"):
        resolve_config(tmp_path, config_file=fifo)
