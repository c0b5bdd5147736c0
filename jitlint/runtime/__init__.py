"""The runtime mode, `jitlint run`: confirm findings by running the program under JAX instrumentation.

The program runs in a child process under `jitlint/runtime/probe/` (standard library + jax only);
the parent lints the files it executed with the one pipeline (`jitlint.lint.pipeline`) and matches what the
probe saw to each finding (`confirm.py`). Documented in docs/runtime.md.
"""

from jitlint.runtime.cli import main

__all__ = ["main"]
