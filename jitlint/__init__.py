"""jitlint: find jax.jit pitfalls before the code runs.

The public API is :class:`jitlint.project.project.Project` (``lint``, ``lint_text``, ``fix``); the per-file
pipeline below it is :mod:`jitlint.lint.pipeline` (``lint_source`` for one text alone). This module
stays import-light on purpose: ``jitlint --version`` must not pay for libcst.
"""

__version__ = "0.1.0"
