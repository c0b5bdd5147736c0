"""One file as the per-file pipeline (jitlint.lint.pipeline) lints it: its text and everything the steps
after decoding read, in one value, so that each step takes the file, not a bundle of positional values."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from jitlint.core.config import Config

if TYPE_CHECKING:
    from jitlint.analysis.index import ProjectIndex
    from jitlint.analysis.prefilter import Facts
    from jitlint.core.finding import Finding


class EarlierTexts(Protocol):
    """What a file's earlier texts left to reuse (jitlint.project.incremental.Document, for the language
    server): pass 1's hooks, and the rules' findings where they can be had without linting the whole text."""

    def pass_one(self, module_name: str | None, is_package: bool) -> dict:
        """`references_of` and `compile_check` for jitlint.analysis.prefilter.file_facts."""

    def findings(self, rules, source: str, path: str, module_name: str | None, is_package: bool,
                 index, incoming: tuple = ()) -> "list[Finding] | None":
        """The rules' findings on `source` (before `# noqa` and selection), or None: lint it whole.
        `incoming`: the contexts other files give its functions."""


@dataclass(frozen=True)
class LintUnit:
    """One decoded file on its way through the pipeline."""

    path: str  # as its findings name it (a run's display path, "<stdin>", an editor's file)
    text: str  # the decoded text (a notebook's: its code cells joined)
    config: Config
    module_name: str | None = None  # "pkg.mod", so that relative imports resolve (None: not importable)
    is_package: bool = False  # an `__init__.py`
    index: "ProjectIndex | None" = None  # the other files' jitted functions (a run's pass 2: a recording view)
    facts: "Facts | None" = None  # pass 1's, once it is done
    state: EarlierTexts | None = None  # what this file's earlier texts left to reuse (the language server)
    apply_noqa: bool = True  # drop the findings its `# noqa` comments suppress
    # The contexts other files' traced code gives this file's functions (jitlint.analysis.foreign.ForeignCall).
    incoming: tuple = ()
    # Where the analysis puts the contexts this file's traced code gives other files' functions (None:
    # nobody asks): a list the pipeline makes, read into `FileResult.exports`.
    exports: "list | None" = None

    def with_text(self, text: str) -> "LintUnit":
        """The same file with another text (a fixed one): its pass 1 and earlier texts no longer apply."""
        return dataclasses.replace(self, text=text, facts=None, state=None)
