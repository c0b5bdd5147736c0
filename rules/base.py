"""What a rule is: its code, message, docs and examples in one place.

A rule module under ``rules/`` defines ``Rule`` subclasses. The class body carries everything a user
sees about the rule (ruff's *What it does / Why is this bad? / Example / Use instead*, and ``messages``,
the words of its findings); ``invalid`` examples must trigger the rule and ``valid`` ones must not (tests
run them, and the docs show them).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, ClassVar, Hashable, Iterator, Mapping, TypeVar

import libcst as cst

from jitlint.analysis.whole_file import WholeFile
from jitlint.core.finding import Applicability, Severity

if TYPE_CHECKING:
    from jitlint.analysis.facade import ModuleAnalysis
    from jitlint.analysis.index import ProjectIndex

_T = TypeVar("_T")


@dataclass
class Report:
    """A rule's raw result: a node, a message and optionally a fix; the engine adds positions."""

    node: cst.CSTNode
    message: str
    fix: "FixSpec | None" = None
    severity: Severity | None = None  # overrides the rule's default
    # Steps after the rule's witness, (node, text): where the value reported goes (JIT605's jitted call)
    related: tuple = ()


@dataclass(frozen=True)
class Replace:
    """Replace `node` by `replacement` (written with the module's own code generation)."""

    node: cst.CSTNode
    replacement: cst.CSTNode


@dataclass(frozen=True)
class InsertBefore:
    """Insert whole lines before the statement `node`, at its indentation (`import jax`, a hoisted
    `f_jit = jax.jit(f)`). `lines` has no indentation and no final line break."""

    node: cst.BaseStatement
    lines: str


@dataclass
class FixSpec:
    """A fix expressed on nodes: its edits (the engine turns them into text edits, all or none) and how
    far it can be trusted (`Applicability.SAFE` is applied by --fix, `UNSAFE` only with --unsafe-fixes)."""

    title: str
    edits: tuple[Replace | InsertBefore, ...]
    applicability: Applicability = Applicability.SAFE


_UNSET = object()


class Memo:
    """Answers the rules work out once per file and share (every call of a jitted function, the functions
    that run repeatedly, ...). One is made with each `RuleContext`, so an answer lives as long as the
    file's analysis and no longer: every path that lints a text (the per-file pipeline, the language
    server's incremental re-lint in jitlint.project.incremental) makes one context per analysis."""

    __slots__ = ("_answers",)

    def __init__(self) -> None:
        self._answers: dict = {}

    def __call__(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """The answer to `key`, from `compute()` the first time it is asked. The key names the question: by
        convention the function that asks it, with its arguments (`(_outputs, func)`)."""
        answer = self._answers.get(key, _UNSET)
        if answer is _UNSET:
            answer = self._answers[key] = compute()
        return answer


class RuleContext:
    """What a rule sees of a module."""

    def __init__(self, analysis: "ModuleAnalysis", path: str, index: "ProjectIndex | None" = None,
                 source: str | None = None, whole_file: "WholeFile | None" = None):
        self.analysis = analysis
        self.path = path
        self.module = analysis.module
        self.index = index  # jitted functions of the other linted files (None: this file alone)
        self._source = source  # the whole file's text (`module` may hold only the statements that matter)
        # Set when a rule asked facts of the file (`file_fact`) and read its imports and first statements:
        # the language server reuses such findings while those give the same answers (jitlint.project.incremental).
        self.read_file_facts = False
        self.asked_file: set = set()  # the file_fact questions asked since the language server last looked
        self._whole_file = whole_file  # (the language server passes one built on the ast it has)
        self.memo = Memo()  # what rules work out once for this file: `ctx.memo(key, compute)`

    def file_fact(self, question):
        """A fact of the whole file (jitlint.analysis.whole_file.WholeFile.answer: "parsed", "star", "stages",
        ("binds", name), ("fresh", base)), remembered as asked so the language server can ask it again of
        the next text. (Rules read the rest of the file only through this.)"""
        self.read_file_facts = True
        self.asked_file.add(question)
        if self._whole_file is None:
            self._whole_file = WholeFile(self._source if self._source is not None else self.module.code)
        return self._whole_file.answer(question)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def short(self, node: cst.CSTNode, limit: int = 40) -> str:
        """Source text of a node on one line, shortened for messages."""
        text = " ".join(self.code(node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Confirmation:
    """What a run of the program (`jitlint run`) shows where the rule's finding is real, besides an
    exception of `Rule.raises` raised at the finding's lines."""

    retraces: frozenset[str] = frozenset()  # retrace causes (jitlint.runtime.evidence) of a function there
    output: bool = False  # `print`/logging received a traced value there
    unrolled: bool = False  # a Python loop iterated a traced array there while tracing
    rewrap: bool = False  # `jax.jit` ran more than once there


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for `jitlint rules` and the docs index
    severity: ClassVar[Severity]
    what: ClassVar[str]
    why: ClassVar[str]
    instead_note: ClassVar[str] = ""  # optional words after the "Use instead" example
    invalid: ClassVar[tuple[str, ...]]  # invalid[0] is the docs' "Example"
    valid: ClassVar[tuple[str, ...]]  # valid[0] is the docs' "Use instead"
    fixable: ClassVar[bool] = False
    # What the fix does: (before, after) sources; `before` is reported with a fix, applying the fixes
    # (unsafe ones too) gives exactly `after`, which is no longer reported (tests run them; docs show them).
    fix_examples: ClassVar[tuple[tuple[str, str], ...]] = ()
    no_fix_examples: ClassVar[tuple[str, ...]] = ()  # reported, but no exact fix exists: none is offered
    fix_note: ClassVar[str] = ""  # when the fix is safe, when unsafe, and why
    # For rules that report certain failures: the exception class names JAX raises (e.g.
    # "TracerBoolConversionError", "IndexError"); tests check real JAX raises one of them there.
    raises: ClassVar[tuple[str, ...]] = ()
    # The runtime evidence that confirms a finding (jitlint.runtime.confirm reads it; a `# noqa` for the
    # rule also silences the runtime-only finding of the same cause at that line).
    confirmed_by: ClassVar[Confirmation] = Confirmation()
    # What makes a finding true, for its witness (jitlint.analysis.witness): "traced" -- the line runs while
    # something traces it (the path from that entry); "repeated" -- a loop runs it again and again (that
    # loop); "call" -- the call itself (no path to show).
    witness: ClassVar[str] = "traced"
    # What the rule says at a finding: its message templates by case (`str.format` fields, filled in by
    # `check` through `message`), and the pieces that vary within one (a remedy, a kind of value).
    messages: ClassVar[Mapping[str, str]] = {}

    def check(self, ctx: RuleContext) -> Iterator[Report]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def message(cls, case: str, /, **fields: object) -> str:
        """The template `messages[case]`, its fields filled in."""
        return cls.messages[case].format(**fields)

    @classmethod
    def docs(cls) -> str:
        """The rule's page, as Markdown (also what `jitlint rule CODE` prints)."""
        parts = [
            f"# {cls.code}: {cls.name}",
            "",
            f"{cls.summary}",
            "",
            f"**Severity:** {cls.severity.value}" + (("  \n**Fix:** sometimes (`jitlint check --fix`; where no exact fix "
                                                     "exists, none is offered: see Fix below)")
                                                    if cls.fixable and cls.no_fix_examples else
                                                    "  \n**Fix:** available (`jitlint check --fix`)" if cls.fixable
                                                    else ""),
            "",
            "## What it does",
            _para(cls.what),
            "",
            "## Why is this bad?",
            _para(cls.why),
            "",
            "## Example",
            "```python",
            textwrap.dedent(cls.invalid[0]).strip("\n"),
            "```",
            "",
            "## Use instead",
            "```python",
            textwrap.dedent(cls.valid[0]).strip("\n"),
            "```",
        ]
        if cls.instead_note:
            parts += ["", _para(cls.instead_note)]
        if cls.fix_examples or cls.fix_note:
            parts += ["", "## Fix"]
            if cls.fix_note:
                parts += [_para(cls.fix_note)]
            for before, after in cls.fix_examples:
                parts += ["", "```python", "# before", _para(before), "```", "```python", "# after `jitlint check --fix`"
                          " (--unsafe-fixes for an unsafe fix)", _para(after), "```"]
            if cls.no_fix_examples:
                parts += ["", "No fix is offered where it could not be exact, e.g.:"]
                for source in cls.no_fix_examples:
                    parts += ["", "```python", _para(source), "```"]
        return "\n".join(parts) + "\n"


def _para(text: str) -> str:
    return textwrap.dedent(text).strip("\n")
