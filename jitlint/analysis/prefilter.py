"""Which files can have a finding at all, decided without libcst.

libcst parses about 10x slower than CPython's `ast`, and the analysis costs more again, so a file is
parsed with libcst only when a rule could report something in it. Every rule needs one of:

* a trace context (JIT4xx/5xx/6xx) or a jit wrapper (JIT1xx), started only by a name of
  `jaxapi.TRANSFORMS` (jit, vmap, grad, checkpoint, eval_shape, ...) or of `jaxapi.LAX_BODIES` /
  `jaxapi.LAX_SWITCH` (scan, fori_loop, cond, switch, ...), or a lifted linen transform (`nn.scan`):
  `TRACE_NAMES`;
* a call of a jitted function (JIT2xx/3xx): defined in the same file (with a jit wrapper, so a
  `TRACE_NAMES` reference again), or defined in another linted file and found in the project index.

Two stages, both sound (they may keep a file that has no finding, never drop one that has):

1. Text: the last components of `TRACE_NAMES` (`TOKENS`, derived from the tables, kept nowhere else)
   as whole words. Any reference to `jax.lax.scan` spells `scan`, whatever the import alias. A file
   without any token has no trace context; one without any `import` cannot reach the index either.
   `check_source` without a project index uses this to skip the name walk below.
2. Names: every file is parsed once with CPython's `ast` anyway (its syntax check, and the index summary
   of pass 1), so the names its code refers to are resolved through its import bindings by the one
   resolver the analysis uses too (`jitlint.analysis.names`; `references`). On JAX code the words alone keep most files (`cond`,
   `map`, `grad`, `checkpoint` are common words: 83% of the lines of docs/performance.md's corpus);
   resolved names keep only files that really refer to a transform, or to a name the project index
   resolves to a jitted function (59%). `jitlint check` resolves the names of every file: with an index,
   any file with an import may call a jitted function.

A new rule that can report without one of these must add what it needs here; tests/analysis/test_prefilter.py
checks every fixture and rule example with findings against `is_relevant`.
"""

from __future__ import annotations

import ast
import builtins
import re
import unicodedata
from dataclasses import dataclass, field, fields

from jitlint.analysis import jaxapi
from jitlint.analysis.index import JitSignature, ModuleSummary, summarize
from jitlint.analysis.names import extend, import_bindings, star_module
from jitlint.source.astwalk import node_fields, node_fields_cache
from jitlint.analysis.qualnames import canonical
from jitlint.core.noqa import file_is_suppressed
from jitlint.source.python import compile_error, parse_python, syntax_error

# Every wrapper that can start tracing or hold a compile cache (transparent ones too: cheap to keep).
TRACE_NAMES: frozenset[str] = frozenset({*jaxapi.TRANSFORMS, *jaxapi.LAX_BODIES, *jaxapi.LAX_SWITCH,
                                       *jaxapi.LIFTED_TRANSFORMS})
TOKENS: frozenset[str] = frozenset(name.rsplit(".", 1)[-1] for name in TRACE_NAMES)
_TOKEN_RE = re.compile(r"\b(?:%s)\b" % "|".join(sorted(map(re.escape, TOKENS), key=len, reverse=True)))
_IMPORT_RE = re.compile(r"\bimport\b")
_BUILTINS = frozenset(dir(builtins))


# A star import (`from common import *`) binds whatever the project module exports: only the project index
# knows what. The names a file reads that no import binds are kept as references through each module it
# star-imports ("*common:jax.jit"); `is_relevant` resolves them (ProjectIndex.star_binding).
STAR_IMPORT = "*"  # the local name of a star import's binding (slicing's chunks)
STAR_REF = "*"  # the prefix of a reference through a star import


def star_references(stars, unbound) -> set[str]:
    """`*module:name.attr` for each star-imported module and each (name, attributes) no import binds."""
    return {f"{STAR_REF}{module}:{extend(root, parts)}" for module in stars for root, parts in unbound
            if root not in _BUILTINS}


def resolve_star_reference(index, ref: str) -> str | None:
    """What a star reference names (`*common:jax.jit` -> `jax.jit` where common does `import jax`), by the
    index's `star_binding`; None where the module does not export the name (or the index cannot say)."""
    star_binding = getattr(index, "star_binding", None)
    module, _, chain = ref[len(STAR_REF):].partition(":")
    root, _, rest = chain.partition(".")
    found = star_binding(module, root) if star_binding is not None else None
    return None if found is None else extend(found, rest.split(".")) if rest else found


def mentions_trace_token(text: str) -> bool:
    """Stage 1: could this text refer to a transform or lax control flow at all?"""
    return _TOKEN_RE.search(text) is not None or _respelt_matches(_TOKEN_RE, text)


def may_refer_to_imports(text: str) -> bool:
    return _IMPORT_RE.search(text) is not None or _respelt_matches(_IMPORT_RE, text)


def _respelt_matches(pattern: re.Pattern, text: str) -> bool:
    # Python reads identifiers NFKC-normalized: `ｊａｘ.ｊｉｔ` is `jax.jit` (strings change too: this only
    # widens what stage 1 keeps). Most non-ASCII texts are normalized already: a quick check says so.
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return False
    return pattern.search(unicodedata.normalize("NFKC", text)) is not None


@dataclass
class Facts:
    """What pass 1 learns from one file's text (a function of its content, module name and path only)."""

    error: dict | None = None  # a JIT000 finding (Finding.to_dict without "path") when it does not parse
    suppressed: bool = False  # `# jitlint: noqa` for the whole file
    trace: bool = False  # refers to a name of TRACE_NAMES
    refs: list[str] = field(default_factory=list)  # sorted qualified names its code refers to via imports
    summary: "ModuleSummary | None" = None  # its jitted functions and imports, for the project index

    def to_dict(self) -> dict:
        return {"error": self.error, "suppressed": self.suppressed, "trace": self.trace, "refs": self.refs,
                "summary": self.summary.to_dict() if self.summary is not None else None}

    @classmethod
    def from_dict(cls, data: dict) -> "Facts":
        """Read back `to_dict()`; ValueError (or KeyError/TypeError) on anything of another shape."""
        error, summary, refs = data["error"], data["summary"], data["refs"]
        if not (isinstance(data["suppressed"], bool) and isinstance(data["trace"], bool)
                and isinstance(refs, list) and all(isinstance(q, str) for q in refs)
                and (error is None or _valid_error(error)) and (summary is None or _valid_summary(summary))):
            raise ValueError("malformed facts")
        return cls(error, data["suppressed"], data["trace"], refs,
                   ModuleSummary.from_dict(summary) if summary is not None else None)


def _valid_error(error) -> bool:
    return (isinstance(error, dict) and set(error) == {"line", "col", "end_line", "end_col", "message", "severity"}
            and isinstance(error["message"], str) and error["severity"] in ("error", "info")
            and all(type(error[k]) is int and error[k] >= 1 for k in ("line", "col", "end_line", "end_col")))


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _valid_summary(summary) -> bool:
    """The shape of ModuleSummary.to_dict(), so that a damaged cache can never crash a lookup."""
    if not (isinstance(summary, dict)
            and set(summary) == {"module", "path", "imports", "jitted", "memoizers", "functions", "classes",
                                 "returns", "scalars", "jit_makers", "sweeps", "pytree_makers", "static_fields",
                                 "class_bases", "size_feeders", "plain_classes", "stars", "public"}
            and isinstance(summary["module"], (str, type(None))) and isinstance(summary["path"], str)
            and isinstance(summary["imports"], dict) and isinstance(summary["jitted"], dict)
            and _strings(summary["memoizers"]) and _strings(summary["functions"])
            and isinstance(summary["classes"], dict) and _strings(summary["scalars"]) and _strings(summary["jit_makers"])
            and _strings(summary["size_feeders"]) and _strings(summary["plain_classes"])
            and _strings(summary["stars"]) and (summary["public"] is None or _strings(summary["public"]))
            and _strings(summary["sweeps"]) and _strings(summary["pytree_makers"]) and _strings(summary["static_fields"])
            and isinstance(summary["returns"], dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in summary["returns"].items())
            and all(isinstance(k, str) and _strings(v) for k, v in summary["classes"].items())
            and isinstance(summary["class_bases"], dict)
            and all(isinstance(k, str) and _strings(v) for k, v in summary["class_bases"].items())
            and all(isinstance(k, str) and isinstance(v, str) for k, v in summary["imports"].items())):
        return False
    expected = {f.name for f in fields(JitSignature)}
    for name, sig in summary["jitted"].items():
        if not (isinstance(name, str) and isinstance(sig, dict) and set(sig) == expected
                and all(isinstance(sig[k], str) for k in ("qualname", "transform", "path"))
                and _strings(sig["positional"]) and _strings(sig["kwonly"])
                and (sig["static"] is None or _strings(sig["static"]))
                and all(isinstance(sig[k], bool) for k in ("varargs", "varkw", "filtered"))
                and type(sig["line"]) is int):
            return False
    return True


def names_jitted(index, qualified: str) -> bool:
    """`qualified` is a jitted function of the project, or a class whose objects are called as one (its
    `__call__` jitted where it is defined: `@nnx.jit def __call__`)."""
    return index.lookup(qualified) is not None or index.lookup(qualified + ".__call__") is not None


def is_relevant(facts: Facts, index=None) -> bool:
    """Stage 2: can a rule report anything in this file? (`index`: a ProjectIndex, or None)"""
    if facts.trace:
        return True
    if index is None:
        return False
    # a jitted function of another file called, or one whose every run may compile again (from a loop, it
    # would compile again and again), or a class an object of which may run a method that does
    compiles = getattr(index, "compiles_per_run", None)
    class_compiles = getattr(index, "class_compiles_per_run", None)

    def matters(q: str) -> bool:
        return names_jitted(index, q) or (compiles is not None and compiles(q)) or \
            (class_compiles is not None and class_compiles(q))

    for q in facts.refs:
        if q.startswith(STAR_REF):
            q = resolve_star_reference(index, q)
            if q is None:
                continue
            if q in TRACE_NAMES:
                return True
        if "." in q and matters(q):
            return True
    # a class whose subclass in another file overrides one of its methods with one that compiles per run
    overrides = getattr(index, "overrides_compiling_per_run", None)
    return overrides is not None and facts.summary is not None and bool(facts.summary.classes) and \
        overrides(facts.summary.module)


def references(tree: ast.Module, module: str | None, is_package: bool) -> set[str]:
    """The qualified names of every name or attribute chain rooted at an import, in any scope.

    A superset of what `jitlint.analysis.names.Scope.qualify` can return anywhere in the file: the bindings of all
    scopes are merged, so a name is resolved in every way some scope could resolve it.
    """
    bindings: dict[str, set[str]] = {}
    stars: list[str] = []
    names: list[ast.Name] = []
    attributes: list[ast.Attribute] = []
    Name, Attribute, Import, ImportFrom = ast.Name, ast.Attribute, ast.Import, ast.ImportFrom
    stack: list[ast.AST | None] = [tree]
    pop, push, push_all, fields_of = stack.pop, stack.append, stack.extend, node_fields_cache.get
    while stack:  # not ast.walk: this loop is several times faster, and pass 1 runs it on every file
        node = pop()
        if node is None:  # (a `Dict`'s key for `**rest`, an absent optional part)
            continue
        cls = node.__class__
        if cls is Name:
            names.append(node)
            continue
        if cls is Import or cls is ImportFrom:
            for local, qualified in import_bindings(node, module, is_package):
                bindings.setdefault(local, set()).add(qualified)
            star = star_module(node, module, is_package) if cls is ImportFrom else None
            if star is not None:
                stars.append(star)
            continue
        if cls is Attribute:
            attributes.append(node)
        for name in fields_of(cls) or node_fields(cls):
            value = getattr(node, name, None)
            if value.__class__ is list:
                push_all(value)
            else:
                push(value)
    if not bindings and not stars:
        return set()
    roots = {local: {canonical(target) for target in targets} for local, targets in bindings.items()}
    out: set[str] = set()
    unbound: set[tuple[str, tuple[str, ...]]] = set()
    for node in names:
        found = roots.get(node.id)
        if found:
            out |= found
        elif stars:
            unbound.add((node.id, ()))
    for node in attributes:
        parts = [node.attr]
        value = node.value
        while value.__class__ is Attribute:
            parts.append(value.attr)
            value = value.value
        if value.__class__ is not Name:
            continue
        found = roots.get(value.id)
        if not found:
            if stars:
                unbound.add((value.id, tuple(reversed(parts))))
            continue
        for q in found:
            out.add(extend(q, reversed(parts)))
    if stars:
        out |= star_references(stars, unbound)
    return out


def file_facts(text: str, path: str, module: str | None, is_package: bool, *, refs: bool = True,
               summary: bool = True, references_of=None, compile_check=None) -> Facts:
    """Pass 1 for one decoded file: its syntax check, what it refers to, and its index summary.

    `refs=False` (no project index to consult) resolves names only when stage 1 finds a token.
    `references_of(text, tree)`, `compile_check(tree, text, path)`: `references` and `compile_error` of
    the file, found otherwise (the language server's document remembers what each top-level statement
    refers to, and which compile).
    """
    facts = Facts(suppressed=file_is_suppressed(text))
    tree, error = parse_python(text)
    if error is None:
        error = (compile_check or compile_error)(tree, text, path)
    if error is not None:
        facts.error = syntax_error(error, text)
        return facts
    found = None
    if may_refer_to_imports(text) and (refs or mentions_trace_token(text)):
        found = references_of(text, tree) if references_of is not None else references(tree, module, is_package)
        facts.trace = not TRACE_NAMES.isdisjoint(found)
        if refs:
            # (a name without a dot never resolves in the index; one through a star import may)
            facts.refs = sorted(q for q in found if "." in q or q.startswith(STAR_REF))
    if summary and module:
        facts.summary = summarize(tree, path, module, is_package, refers_to=found)
    return facts
