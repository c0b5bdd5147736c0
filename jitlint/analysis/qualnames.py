"""Qualified names as text: relative imports and the canonical spelling of aliased JAX names.

Kept apart from `jitlint.analysis.names` (which walks libcst nodes) so that the project index, the pre-filter and
the cache can resolve names without importing libcst.
"""

from __future__ import annotations


def resolve_relative(module_name: str | None, is_package: bool, level: int, target: str) -> str:
    """`from ..x import y` inside `pkg.sub.mod` -> `pkg.x.y`."""
    if not module_name:
        return "." * level + target
    parts = module_name.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    base = ".".join(parts)
    if not target:
        return base
    return f"{base}.{target}" if base else target


# Public aliases of the same objects, folded onto one spelling.
_ALIASES = {
    "jax._src.api.jit": "jax.jit",
    "jax.api.jit": "jax.jit",
    "flax.experimental.nnx": "flax.nnx",
}


def canonical(name: str | None) -> str | None:
    """One spelling per object: `flax.experimental.nnx.jit` -> `flax.nnx.jit`."""
    if name is None:
        return None
    if name in _ALIASES:
        return _ALIASES[name]
    if name.startswith("builtins.") and name.count(".") == 1:
        return name[len("builtins."):]  # `builtins.print`, `from builtins import print as p`: the builtin
    if name.startswith("flax.experimental.nnx."):
        return "flax.nnx." + name[len("flax.experimental.nnx."):]
    return name
