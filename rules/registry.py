"""The rule registry: every Rule class from the `jitlint.rules` package, by code."""

from __future__ import annotations

from functools import lru_cache

from jitlint import rules
from jitlint.core.config import Config
from jitlint.rules.base import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    return tuple(sorted(rules.RULES, key=lambda r: r.code))


def rule_by_code(code: str) -> type[Rule] | None:
    for rule in all_rules():
        if rule.code == code.upper():
            return rule
    return None


def all_codes() -> list[str]:
    return ["JIT000", *(r.code for r in all_rules())]


def enabled_rules(config: Config, path: str | None = None) -> list[Rule]:
    return [rule() for rule in all_rules() if config.is_enabled(rule.code, path)]
