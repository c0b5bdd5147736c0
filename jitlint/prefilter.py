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
   resolver the analysis uses too (`jitlint.names`; `references`). On JAX code the words alone keep most files (`cond`,
   `map`, `grad`, `checkpoint` are common words: 83% of the lines of docs/performance.md's corpus);
   resolved names keep only files that really refer to a transform, or to a name the project index
   resolves to a jitted function (59%). `jitlint check` resolves the names of every file: with an index,
   any file with an import may call a jitted function.

A new rule that can report without one of these must add what it needs here; tests/test_prefilter.py
checks every fixture and rule example with findings against `is_relevant`.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jitlint import jaxapi
from jitlint.names import extend, import_bindings
from jitlint.qualnames import canonical

if TYPE_CHECKING:
    from jitlint.index import ModuleSummary

# Every wrapper that can start tracing or hold a compile cache (transparent ones too: cheap to keep).
TRACE_NAMES: frozenset[str] = frozenset({*jaxapi.TRANSFORMS, *jaxapi.LAX_BODIES, *jaxapi.LAX_SWITCH,
                                       *jaxapi.LIFTED_TRANSFORMS})
TOKENS: frozenset[str] = frozenset(name.rsplit(".", 1)[-1] for name in TRACE_NAMES)
_TOKEN_RE = re.compile(r"\b(?:%s)\b" % "|".join(sorted(map(re.escape, TOKENS), key=len, reverse=True)))
_IMPORT_RE = re.compile(r"\bimport\b")


def mentions_trace_token(text: str) -> bool:
    """Stage 1: could this text refer to a transform or lax control flow at all?"""
    return _TOKEN_RE.search(text) is not None


def may_refer_to_imports(text: str) -> bool:
    return _IMPORT_RE.search(text) is not None


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
        from jitlint.index import ModuleSummary

        error, summary, refs = data["error"], data["summary"], data["refs"]
        if not (isinstance(data["suppressed"], bool) and isinstance(data["trace"], bool)
                and isinstance(refs, list) and all(isinstance(q, str) for q in refs)
                and (error is None or _valid_error(error)) and (summary is None or _valid_summary(summary))):
            raise ValueError("malformed facts")
        return cls(error, data["suppressed"], data["trace"], refs,
                   ModuleSummary.from_dict(summary) if summary is not None else None)


def _valid_error(error) -> bool:
    return (isinstance(error, dict) and set(error) == {"line", "col", "end_line", "end_col", "message"}
            and isinstance(error["message"], str)
            and all(type(error[k]) is int and error[k] >= 1 for k in ("line", "col", "end_line", "end_col")))


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _valid_summary(summary) -> bool:
    """The shape of ModuleSummary.to_dict(), so that a damaged cache can never crash a lookup."""
    if not (isinstance(summary, dict) and set(summary) == {"module", "path", "imports", "jitted", "memoizers"}
            and isinstance(summary["module"], (str, type(None))) and isinstance(summary["path"], str)
            and isinstance(summary["imports"], dict) and isinstance(summary["jitted"], dict)
            and isinstance(summary["memoizers"], list) and all(isinstance(n, str) for n in summary["memoizers"])
            and all(isinstance(k, str) and isinstance(v, str) for k, v in summary["imports"].items())):
        return False
    from dataclasses import fields

    from jitlint.index import JitSignature

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


def is_relevant(facts: Facts, index=None) -> bool:
    """Stage 2: can a rule report anything in this file? (`index`: a ProjectIndex, or None)"""
    if facts.trace:
        return True
    return index is not None and any(index.lookup(q) is not None for q in facts.refs)


_last_parse: tuple[str, ast.Module] | None = None  # pass 2 (sliced parsing) asks again for pass 1's tree


def parse_python(text: str) -> tuple[ast.Module | None, Exception | None]:
    """CPython's parse, with its warnings (invalid escapes, ...) silenced: they are not jitlint's.
    Nesting the parser accepts but `ast`'s objects are too deep for at the default recursion limit
    is parsed again with room to recurse (jitlint.deep). The last tree is remembered (read only)."""
    global _last_parse

    last = _last_parse
    if last is not None and last[0] == text:
        return last[1], None
    try:
        tree = _parse(text)
        _last_parse = (text, tree)
        return tree, None
    except RecursionError:
        pass
    except Exception as exc:  # SyntaxError; ValueError (NUL bytes); MemoryError
        return None, exc
    from jitlint.deep import run_deep

    try:
        return run_deep(_parse, text), None
    except Exception as exc:  # RecursionError: the parser's own limit
        return None, exc


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def _compile_flags(path: str) -> int:
    # a notebook's cells may `await` at the top level: IPython runs them so
    return ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if path.endswith(".ipynb") else 0


def compile_error(tree: ast.Module, text: str, path: str) -> Exception | None:
    """What CPython's compiler refuses after parsing (`return` outside a function, a misplaced
    `from __future__`, `nonlocal` at module level ...): files `python` would not run, reported as ruff
    and flake8 (pyflakes) report them. Compiling the tree costs about a fifth of parsing it; a tree
    too deep for that is decided by compiling the text, as `python` does (it has room for more)."""
    flags = _compile_flags(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                compile(tree, path, "exec", flags, dont_inherit=True)
            except RecursionError:  # as `python` would: from the text, at the usual limit, on a fresh stack
                from jitlint.deep import run_deep

                run_deep(compile, text, path, "exec", flags, True, same_as_script=True)
    except Exception as exc:  # SyntaxError; RecursionError, MemoryError ("too complex")
        return exc
    return None


def compile_error_in_parts(tree: ast.Module, text: str, path: str, parts, compiled: set) -> Exception | None:
    """`compile_error`, compiling only the top-level statements not known to compile: `parts` lists
    (a key naming their text, the statements, whether they may declare a module-level `global` or
    `nonlocal`) in order, `compiled` the keys known to compile (it gets the new ones).

    Apart from two cases, CPython refuses a module only for what it refuses in one of its top-level
    statements compiled alone (with the module's `__future__` features): a `from __future__` import
    after the module's first statements, and a module-level `global`/`nonlocal` after the name is used
    (`x = 1` then `global x`); where those can occur the module is compiled whole. Where a part does not
    compile, so is the module, for the very error CPython reports first."""
    import __future__

    flags = _compile_flags(path)
    leading = True  # still in the docstring and `from __future__` imports that may start the module
    for n, stmt in enumerate(tree.body):
        if n == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
                isinstance(stmt.value.value, str):
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            if not leading:
                return compile_error(tree, text, path)
            for alias in stmt.names:
                if alias.name not in __future__.all_feature_names:
                    return compile_error(tree, text, path)
                flags |= getattr(__future__, alias.name).compiler_flag
        else:
            leading = False
    todo = []
    for key, stmts, declares in parts:
        if declares:
            return compile_error(tree, text, path)
        if (key, flags) not in compiled:
            todo.append(((key, flags), stmts))
    for key, stmts in todo:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(ast.Module(body=stmts, type_ignores=[]), path, "exec", flags, dont_inherit=True)
        except Exception:  # the module's own error, as CPython reports it (and RecursionError as it does)
            return compile_error(tree, text, path)
        compiled.add(key)
    return None


_NOT_CHILDREN = {"ctx", "op", "ops", "type_comment"}  # contexts and operators: leaves without names
_fields_cache: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _fields_cache.get(cls)
    if fields is None:
        fields = _fields_cache[cls] = tuple(f for f in cls._fields if f not in _NOT_CHILDREN)
    return fields


def references(tree: ast.Module, module: str | None, is_package: bool) -> set[str]:
    """The qualified names of every name or attribute chain rooted at an import, in any scope.

    A superset of what `jitlint.names.Scope.qualify` can return anywhere in the file: the bindings of all
    scopes are merged, so a name is resolved in every way some scope could resolve it.
    """
    bindings: dict[str, set[str]] = {}
    names: list[ast.Name] = []
    attributes: list[ast.Attribute] = []
    Name, Attribute, Import, ImportFrom, AST = ast.Name, ast.Attribute, ast.Import, ast.ImportFrom, ast.AST
    stack: list[ast.AST] = [tree]
    while stack:  # not ast.walk: this loop is three times faster, and pass 1 runs it on every file
        node = stack.pop()
        cls = node.__class__
        if cls is Name:
            names.append(node)
            continue
        if cls is Import or cls is ImportFrom:
            for local, qualified in import_bindings(node, module, is_package):
                bindings.setdefault(local, set()).add(qualified)
            continue
        if cls is Attribute:
            attributes.append(node)
        for name in _child_fields(cls):
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                stack.append(value)
    if not bindings:
        return set()
    roots = {local: {canonical(target) for target in targets} for local, targets in bindings.items()}
    out: set[str] = set()
    for node in names:
        found = roots.get(node.id)
        if found:
            out |= found
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
            continue
        for q in found:
            out.add(extend(q, reversed(parts)))
    return out


def file_facts(text: str, path: str, module: str | None, is_package: bool, *, refs: bool = True,
               summary: bool = True, references_of=None, compile_check=None) -> Facts:
    """Pass 1 for one decoded file: its syntax check, what it refers to, and its index summary.

    `refs=False` (no project index to consult) resolves names only when stage 1 finds a token.
    `references_of(text, tree)`, `compile_check(tree, text, path)`: `references` and `compile_error` of
    the file, found otherwise (the language server's document remembers what each top-level statement
    refers to, and which compile).
    """
    from jitlint.noqa import file_is_suppressed

    facts = Facts(suppressed=file_is_suppressed(text))
    tree, error = parse_python(text)
    if error is None:
        error = (compile_check or compile_error)(tree, text, path)
    if error is not None:
        facts.error = syntax_error(error)
        return facts
    found = None
    if may_refer_to_imports(text) and (refs or mentions_trace_token(text)):
        found = references_of(text, tree) if references_of is not None else references(tree, module, is_package)
        facts.trace = not TRACE_NAMES.isdisjoint(found)
        if refs:
            facts.refs = sorted(q for q in found if "." in q)  # a name without a dot never resolves in the index
    if summary and module:
        from jitlint.index import summarize

        facts.summary = summarize(tree, path, module, is_package, refers_to=found)
    return facts


def syntax_error(exc: Exception) -> dict:
    """The JIT000 finding (without its path) for CPython's refusal to parse a file."""
    line, col = 1, 1
    if isinstance(exc, SyntaxError):
        message = f"syntax error: {exc.msg}"
        line, col = exc.lineno or 1, max(exc.offset or 1, 1)
    elif isinstance(exc, (RecursionError, MemoryError)):
        message = "file is too deeply nested to parse or compile"
    elif isinstance(exc, ValueError):  # e.g. NUL bytes
        message = f"cannot parse file: {exc}"
    else:
        message = f"cannot parse file: {type(exc).__name__}: {exc}"
    return {"line": line, "col": col, "end_line": line, "end_col": col, "message": message}
