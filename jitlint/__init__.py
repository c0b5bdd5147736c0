"""jitlint: find jax.jit pitfalls before the code runs.

The public engine API lives in :mod:`jitlint.engine` (``lint_source``, ``lint_paths``). This module
stays import-light on purpose: ``jitlint --version`` must not pay for libcst.
"""

__version__ = "0.1.0"
