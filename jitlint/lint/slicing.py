"""Sliced parsing: which top-level statements of a file pass 2 parses with libcst.

libcst is most of a cold run's time, and most top-level statements of a file cannot hold a finding nor
change the analysis of one that can. The file is cut into *chunks*, one per top-level statement (with the
comments and blank lines before it), and pass 2 parses only the chunks that matter, each contiguous run of
them on its own (`parse_sliced`). Positions stay exact: a chunk is the file's own lines, so a node's line
in its run plus the run's first line is its line in the file, and its columns are the file's.

Which chunks matter (`plan`), decided with CPython's `ast` and the words (identifier-like runs) of each chunk's text; every
step over-approximates (keeping too much is only slower, never different):

* seeds: chunks whose code refers to a transform or lax loop (`prefilter.TRACE_NAMES`) or to a name the
  project index resolves to a jitted function: names and attribute chains resolved through the file's
  imports, as pass 1 resolves them; and chunks spelling a constructor keyword whose value every traced
  body may read (`TrainState.create(apply_fn=...)`: the analysis counts those over the module);
* forward, until nothing is added: every chunk whose words hold a name a kept chunk binds (it may call a
  jitted function, or pass values into a kept function); imports excepted, the seeds cover them;
* backward, until nothing is added: every chunk that binds or stores into (`x.a = ...`, `x[k] = ...`,
  `global x` in a function) a name that a kept chunk's words hold.

The analysis follows values through bindings only (a call does not change what a name holds for it), so
a dropped chunk binds nothing the kept ones read and reads nothing they bind: the kept chunks' analysis
is the whole module's restricted to them. Where this cannot be shown the whole file is parsed: a
`from m import *` (binds names nobody can list), a text with `\r` line breaks, a run libcst does not
parse alone, a syntax tree too deep to walk, or (engine) an analysis that ran out of its work budget
(which counts the module's functions). tests/lint/test_slicing.py compares both ways on every fixture,
example and rule example, alone, padded and mixed; on the corpus, `bench/compare.py --jitlint-before`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jitlint.analysis import jaxapi
from jitlint.analysis.names import extend, import_bindings, star_module
from jitlint.analysis.prefilter import STAR_IMPORT, TRACE_NAMES, names_jitted, star_references
from jitlint.source.astwalk import child_fields  # the one walk order of pass 1's name walk
from jitlint.analysis.qualnames import canonical
from jitlint.source import cstparse  # cstparse.parse_module, looked up per call: tests patch it

if TYPE_CHECKING:
    import libcst as cst

_WORD = re.compile(r"\w+")
_LINE_END = re.compile(r"\n")


@dataclass
class Chunk:
    start: int  # 0-based index of its first line
    end: int  # 0-based index one past its last line
    code_line: int  # 1-based line where its statement's own code starts (after decorators: `def`, `x = ...`)
    first: int  # 1-based line where its statement starts (its first decorator): after it, its own text
    words: frozenset[str] = frozenset()
    stores: frozenset[str] = frozenset()  # module names it binds (`global` ones in functions too)
    changed: frozenset[str] = frozenset()  # names it stores into (`x.a = ...`, `x[k] = ...`)
    binds: frozenset[str] = frozenset()  # the module names among both
    is_import: bool = False  # only import statements
    refs: frozenset = frozenset()  # (root name, attribute names) of every name and attribute chain in it
    imports: tuple = ()  # (local name, canonical qualified name) its imports bind; None for a star import
    defs: int = 0  # `def` statements in it, at any depth
    scopes: int = 0  # defs, lambdas and classes in it
    has_import: bool = False  # an import statement at its top level
    future: bool = False  # a `from __future__ import`
    indent: str | None = None  # the indentation of its first indented block (libcst's default indent), if any
    stmts: tuple = ()  # its statements in CPython's tree of this text


@dataclass
class Slice:
    spans: list[tuple[int, int]]  # (first chunk, one past the last) of each contiguous run kept
    chunks: list[Chunk]
    line_starts: list[int]  # offset of each line in the text

    def span_text(self, text: str, span: tuple[int, int]) -> str:
        return _lines_text(text, self.line_starts, self.chunks[span[0]].start, self.chunks[span[1] - 1].end)

    def chunk_text(self, text: str, k: int) -> str:
        return self.span_text(text, (k, k + 1))

    def statement_text(self, text: str, k: int) -> str:
        """The chunk's text without the comments and blank lines before its statement."""
        chunk = self.chunks[k]
        stop = self.line_starts[chunk.end] if chunk.end < len(self.line_starts) else len(text)
        return text[self.line_starts[chunk.first - 1]:stop]

    @property
    def kept_lines(self) -> int:
        return sum(self.chunks[b - 1].end - self.chunks[a].start for a, b in self.spans)


def components(found: "Slice") -> list[list[int]]:
    """The kept chunks in independent groups. Two chunks are in one group when one reads a name the
    other binds (the constructor-keyword chunks are all in one), except imports and *leaves* (no def,
    lambda or class, reading no name another code chunk binds: `LR = 1e-3`): nothing flows into those,
    so each group gets its own copy of the ones it reads. A group is closed as a slice is (see the module
    docstring), so its analysis alone is the whole module's analysis restricted to it: the language server
    re-analyses only the groups an edit touched (jitlint.project.incremental)."""
    chunks = found.chunks
    kept = [k for a, b in found.spans for k in range(a, b)]
    imports = [k for k in kept if chunks[k].is_import]
    code = [k for k in kept if not chunks[k].is_import]
    binders: dict[str, list[int]] = {}
    for k in code:
        for name in chunks[k].binds:
            binders.setdefault(name, []).append(k)
    keywords = {keyword for _, keyword in jaxapi.CONSTRUCTORS.values() if keyword}
    global_readers = [k for k in code if not chunks[k].words.isdisjoint(keywords)]
    leaves = {k for k in code if not chunks[k].scopes and k not in global_readers
              and all(other == k for name in chunks[k].words.intersection(binders) for other in binders[name])}
    parent = {k: k for k in code if k not in leaves}

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def join(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for k in global_readers[1:]:
        join(global_readers[0], k)
    for k in parent:
        for name in chunks[k].words.intersection(binders):
            for other in binders[name]:
                if other not in leaves:
                    join(k, other)
    groups: dict[int, list[int]] = {}
    for k in parent:
        groups.setdefault(root(k), []).append(k)
    read_leaves: set[int] = set()
    out = []
    for members in groups.values():
        words = frozenset().union(*(chunks[k].words for k in members))
        own = [k for k in leaves if not chunks[k].binds.isdisjoint(words)]
        read_leaves.update(own)
        out.append(members + own)
    out += [[k] for k in sorted(leaves - read_leaves)]
    for members in out:
        words = frozenset().union(*(chunks[k].words for k in members))
        members += [k for k in imports if not chunks[k].binds.isdisjoint(words)]
        members.sort()
    return out


class _Unsliceable(Exception):
    pass


def plan(text: str, tree: ast.Module, module: str | None, is_package: bool, index=None,
         memo: dict | None = None, chunked=None, entries: "set[str] | frozenset[str]" = frozenset()) -> Slice | None:
    """The chunks pass 2 must parse, or None: parse the whole file. `memo`: what earlier texts' chunks
    bind and read, by chunk text (for one module name; the language server keeps one per document).
    `chunked`: `chunk_file`'s answer for this text, when it was asked already. `entries`: module names
    other files' traced code calls (jitlint.analysis.foreign): the chunks binding them are seeds."""
    if chunked is None:
        chunked = chunk_file(text, tree, module, is_package, memo)
    if chunked is None:
        return None
    chunks, line_starts = chunked
    try:
        bound = _analyse_chunks(chunks)
    except _Unsliceable:
        return None
    seeds = _seeds(chunks, bound, index)
    if entries:
        seeds |= {k for k, c in enumerate(chunks) if not c.is_import and not c.binds.isdisjoint(entries)}
    keep = _closure(chunks, seeds | file_context(chunks)) if seeds else set()
    spans: list[tuple[int, int]] = []
    for k in sorted(keep):
        if spans and spans[-1][1] == k:
            spans[-1] = (spans[-1][0], k + 1)
        else:
            spans.append((k, k + 1))
    return Slice(spans, chunks, line_starts)


def chunk_file(text: str, tree: ast.Module, module: str | None, is_package: bool,
               memo: dict | None = None) -> tuple[list[Chunk], list[int]] | None:
    """The text's chunks with their facts, and where its lines start; None where it cannot be chunked
    (`\r` line breaks, no statement, a tree too deep to walk)."""
    if "\r" in text or not tree.body:
        return None
    line_starts = [0] + [m.end() for m in _LINE_END.finditer(text)]
    try:
        return _chunks(text, tree, line_starts, module, is_package, memo), line_starts
    except RecursionError:
        return None


def _lines_text(text: str, line_starts: list[int], start: int, end: int) -> str:
    """The text of lines `start` up to `end` (0-based, `end` excluded), line breaks included."""
    return text[line_starts[start]:line_starts[end] if end < len(line_starts) else len(text)]


def chunk_texts(text: str, chunks: list[Chunk], line_starts: list[int]) -> list[str]:
    return [_lines_text(text, line_starts, c.start, c.end) for c in chunks]


def lone_def(chunk: Chunk) -> ast.stmt | None:
    """The chunk's statement when it is one def or class alone."""
    stmts = chunk.stmts
    if len(stmts) == 1 and stmts[0].__class__ in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return stmts[0]
    return None


def references(chunks: list[Chunk]) -> set[str]:
    """`prefilter.references` of the whole text, from its chunks' facts (remembered by chunk text in the
    language server, so that an edit walks only the chunks it changed)."""
    roots: dict[str, set[str]] = {}
    stars: list[str] = []
    for chunk in chunks:
        for binding in chunk.imports:
            if binding[0] == STAR_IMPORT:
                if binding[1] is not None:  # (`import *` is allowed at module level only)
                    stars.append(binding[1])
            else:
                roots.setdefault(binding[0], set()).add(binding[1])
    out: set[str] = set()
    if not roots and not stars:
        return out
    unbound = set()
    for chunk in chunks:
        for root, parts in chunk.refs:
            found = roots.get(root)
            if found:
                out.update(extend(q, parts) for q in found) if parts else out.update(found)
            elif stars:
                unbound.add((root, parts))
    out.update(star_references(stars, unbound))
    return out


def first_line(stmt: ast.stmt) -> int:
    """Where a statement starts: its first decorator's line, else its own."""
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])


def statement_lines(stmts: list[ast.stmt]) -> list[list[ast.stmt]]:
    """A block's statements grouped by line (`a = 1; b = 2` is one group), in order."""
    groups: list[list[ast.stmt]] = []
    last_end = 0
    for stmt in stmts:
        if groups and first_line(stmt) <= last_end:
            groups[-1].append(stmt)
        else:
            groups.append([stmt])
        last_end = max(last_end, stmt.end_lineno or stmt.lineno)
    return groups


def _chunks(text: str, tree: ast.Module, line_starts: list[int], module: str | None, is_package: bool,
            memo: dict | None) -> list[Chunk]:
    """One chunk per top-level statement line (`a = 1; b = 2` is one), from the line after the previous
    chunk to its last line, with what it binds and reads (from `memo` when its text was seen before)."""
    chunks: list[Chunk] = []
    start = 0
    for group in statement_lines(tree.body):
        end = max(s.end_lineno or s.lineno for s in group)
        chunk_text = _lines_text(text, line_starts, start, end)
        facts = memo.get(chunk_text) if memo is not None else None
        if facts is None:
            facts = _chunk_facts(chunk_text, group, module, is_package, start + 1)
            if memo is not None:
                memo[chunk_text] = facts
        chunk = Chunk(start, end, group[0].lineno, first_line(group[0]))
        chunk.words, chunk.is_import, chunk.stores, chunk.changed, chunk.refs, chunk.imports, chunk.defs, \
            chunk.scopes, chunk.has_import, chunk.future, chunk.indent = facts
        chunk.stmts = tuple(group)
        chunks.append(chunk)
        start = end
    return chunks


def _chunk_facts(chunk_text: str, group: list[ast.stmt], module: str | None, is_package: bool,
                 text_line: int) -> tuple:
    """(words, is an import, stores, stored into, refs, import bindings, ..., indent) of one chunk: a function
    of its text (and the module's name, for relative imports). `text_line`: the file's line where the text
    starts (the facts do not depend on it)."""
    words = set(_WORD.findall(chunk_text))
    if not chunk_text.isascii():  # identifiers are compared after NFKC normalisation
        words |= {unicodedata.normalize("NFKC", w) for w in words if not w.isascii()}
    found: list = []
    stores, changed, refs, defs, scopes = _scan(group, found)
    bindings = []
    for node in found:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            # a star import: only the project index can list what it binds (STAR_IMPORT, the module)
            bindings.append((STAR_IMPORT, star_module(node, module, is_package)))
            continue
        bindings.extend((local, canonical(qualified)) for local, qualified in import_bindings(node, module, is_package))
    is_import = all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in group)
    has_import = any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in group)
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in group)
    return (frozenset(words), is_import, frozenset(stores), frozenset(changed), frozenset(refs), tuple(bindings),
            defs, scopes, has_import, future, _first_indent(group, chunk_text.split("\n"), text_line))


def _first_indent(stmts: list[ast.stmt], lines: list[str], text_line: int) -> str | None:
    """The indentation of the first indented block of these top-level statements, as libcst's parser
    takes it for the module's default indent (its first INDENT token: the first line that starts a
    statement with leading whitespace); None without any. `lines`: the text's, the first at `text_line`."""
    for stmt in stmts:
        found = _block_indent(stmt, lines, text_line)
        if found is not None:
            return found
    return None


def leading_whitespace(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t\f"))]


def _block_indent(stmt: ast.stmt, lines: list[str], text_line: int) -> str | None:
    if stmt.__class__ is ast.Match:  # its `case` lines are indented already: the first one's
        n = stmt.cases[0].pattern.lineno - text_line
        while n > stmt.lineno - text_line and not lines[n].lstrip(" \t\f").startswith("case"):
            n -= 1  # (a pattern may start on a later line than its `case`)
        return leading_whitespace(lines[n]) or None
    for block in _blocks(stmt):
        head = block[0]
        line = lines[head.lineno - text_line]
        indent = leading_whitespace(line)
        if indent and len(indent) == head.col_offset and _starts_logical_line(stmt, head, lines, text_line):
            return indent  # the block's first statement starts its own line
        # else a suite on its header's line (`if x: y`): simple statements only, no block inside, or an
        # `elif`, whose own blocks come next
        if head.__class__ is ast.If and block is getattr(stmt, "orelse", None) and len(block) == 1 \
                and line.startswith("elif", head.col_offset):
            found = _block_indent(head, lines, text_line)
            if found is not None:
                return found
    return None


def _starts_logical_line(stmt: ast.stmt, head: ast.stmt, lines: list[str], text_line: int) -> bool:
    """Whether `head`, first on its line, starts a logical line (an INDENT) rather than continuing its
    header's after a backslash (`if x: \\` then `    y`: a one-line suite, no indented block)."""
    n = head.lineno - text_line
    if n < 1 or not lines[n - 1].endswith("\\"):
        return True
    text = "\n".join(lines[stmt.lineno - text_line:n + 1]) + "\n"
    row = head.lineno - stmt.lineno + 1
    try:  # (rare: a backslash ends the line before; a comment's backslash does not continue it)
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] == row:
                return token.type == tokenize.INDENT
    except (tokenize.TokenError, SyntaxError):
        pass
    return True


def _blocks(stmt: ast.stmt):
    """The statement blocks of a compound statement, in source order."""
    cls = stmt.__class__
    if cls is ast.Try or cls is getattr(ast, "TryStar", None):
        yield stmt.body
        for handler in stmt.handlers:
            yield handler.body
        if stmt.orelse:
            yield stmt.orelse
        if stmt.finalbody:
            yield stmt.finalbody
    elif hasattr(stmt, "body") and stmt.body.__class__ is list:
        yield stmt.body
        orelse = getattr(stmt, "orelse", None)
        if orelse:
            yield orelse


def default_indent(chunks: list[Chunk]) -> str:
    """The default indent libcst's parser gives the whole text (its first indented block's, else four
    spaces): a module of some of its statements must have the same, for their code to be theirs."""
    for chunk in chunks:
        if chunk.indent is not None:
            return chunk.indent
    return "    "


def _analyse_chunks(chunks: list[Chunk]) -> dict[str, set[str]]:
    """Each chunk's binds; returns what each import-bound local name is bound to."""
    imports: dict[str, set[str]] = {}
    for chunk in chunks:
        for binding in chunk.imports:
            if binding[0] == STAR_IMPORT:
                raise _Unsliceable("star import")
            imports.setdefault(binding[0], set()).add(binding[1])
    # Only names some chunk binds at module level are the module's: the rest are builtins or undefined.
    names = set().union(*(c.stores for c in chunks))
    for chunk in chunks:
        chunk.binds = chunk.stores | (chunk.changed & names) if chunk.changed else chunk.stores
    return imports


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _scan(stmts: list[ast.stmt], imports: list) -> tuple[set[str], set[str], set[tuple[str, tuple[str, ...]]], int,
                                                         int]:
    """What top-level statements bind at module level (stores, with `global` names of their functions),
    the root names they store into (`x.a = ...`, `x[k] = ...`, anywhere), and every name and attribute
    chain they read, as (root, attributes), how many `def`s and how many scopes (defs, lambdas, classes)
    they hold; `imports` gets their import
    statements. One iterative walk
    (pass 2 runs it on every kept file: `ast.walk` and a visitor class are several times slower)."""
    stores: set[str] = set()
    changed: set[str] = set()
    refs: set[tuple[str, tuple[str, ...]]] = set()
    defs = scopes = 0
    Name, Attribute, Subscript, Load, AST = ast.Name, ast.Attribute, ast.Subscript, ast.Load, ast.AST
    stack: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in stmts]  # (node, inside a def or class body)
    while stack:
        node, inner = stack.pop()
        cls = node.__class__
        if cls is Name:
            refs.add((node.id, ()))  # every name, read or not, as pass 1's `prefilter.references` counts them
            if node.ctx.__class__ is not Load and not inner:
                stores.add(node.id)
            continue
        if cls is Attribute or cls is Subscript:
            if node.ctx.__class__ is not Load:  # stored into: its root name
                root = node.value
                while root.__class__ in (Attribute, Subscript, ast.Call, ast.Starred):
                    root = root.func if root.__class__ is ast.Call else root.value
                if root.__class__ is Name:
                    changed.add(root.id)
            if cls is Attribute:
                parts = [node.attr]
                value = node.value
                while value.__class__ is Attribute:
                    parts.append(value.attr)
                    value = value.value
                if value.__class__ is Name:
                    refs.add((value.id, tuple(reversed(parts))))  # the inner chains are visited too
        elif cls is ast.Import or cls is ast.ImportFrom:
            imports.append(node)
            if not inner:
                stores.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
            continue
        elif cls in _SCOPES:
            scopes += 1
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
                defs += 1
            if not inner and cls is not ast.Lambda:
                stores.add(node.name)
            # decorators, defaults, annotations and bases run where the def is; the body is a scope
            for name in child_fields(cls):
                value = getattr(node, name, None)
                body = name == "body" or (cls is ast.Lambda and name == "body")
                items = value if value.__class__ is list else [value]
                stack.extend((item, inner or body) for item in items if isinstance(item, AST))
            continue
        elif cls is ast.Global:
            stores.update(node.names)
            continue
        elif not inner and cls is ast.ExceptHandler and node.name:
            stores.add(node.name)
        elif not inner and cls in (ast.MatchAs, ast.MatchStar) and node.name:
            stores.add(node.name)
        elif not inner and cls is ast.MatchMapping and node.rest:
            stores.add(node.rest)
        for name in child_fields(cls):
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend((item, inner) for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                stack.append((value, inner))
    return stores, changed, refs, defs, scopes


def _seeds(chunks: list[Chunk], imports: dict[str, set[str]], index) -> set[int]:
    """Chunks whose code refers to a transform or lax loop (a name or attribute chain resolved through the
    file's imports, as pass 1 resolves them), or to a name the project index resolves to a jitted
    function; and chunks that spell a constructor keyword whose value every traced body may read."""
    keywords = {keyword for _, keyword in jaxapi.CONSTRUCTORS.values() if keyword}
    seeds = set()
    cache: dict[str, bool] = {}

    def matters(q: str) -> bool:
        hit = cache.get(q)
        if hit is None:
            hit = cache[q] = q in TRACE_NAMES or (index is not None and "." in q and names_jitted(index, q))
        return hit

    for k, c in enumerate(chunks):
        if not c.words.isdisjoint(keywords):
            seeds.add(k)
            continue
        for root, parts in c.refs:
            if root in imports and any(matters(extend(t, parts)) for t in imports.get(root, ())):
                seeds.add(k)
                break
    return seeds


def file_context(chunks: list[Chunk]) -> set[int]:
    """Chunks that fixes read as the file's (rules/_helpers.jax_module): every top-level import (is `jax`
    imported before the statement?) and the statements up to the first that is not the docstring or a
    `from __future__` import (where `import jax` is added). Kept whenever anything is kept."""
    out = {k for k, c in enumerate(chunks) if c.has_import}
    for k, c in enumerate(chunks):
        out.add(k)
        if k and not c.future:
            break
    return out


def _closure(chunks: list[Chunk], seeds: set[int]) -> set[int]:
    """Nothing when no chunk can hold a finding; else the seeds, then (forward) every chunk reading a name a seed or such a chunk binds: these may hold
    a finding or pass values into functions that do; then (backward) every chunk binding a name that a
    kept chunk's text holds: the kept ones read it."""
    if not seeds:
        return set()
    relevant = _grow(chunks, set(seeds), lambda c, read, bound: not c.words.isdisjoint(bound))
    return _grow(chunks, relevant, lambda c, read, bound: not c.binds.isdisjoint(read))


def _grow(chunks: list[Chunk], keep: set[int], joins) -> set[int]:
    read: set[str] = set()  # the words of the kept chunks
    bound: set[str] = set()  # the names the kept chunks bind (imports aside: seeds cover what they bind)

    def take(c: Chunk) -> None:
        read.update(c.words)
        if not c.is_import:
            bound.update(c.binds)

    for k in keep:
        take(chunks[k])
    todo = [k for k in range(len(chunks)) if k not in keep]
    grew = True
    while grew and todo:
        grew = False
        rest = []
        for k in todo:
            if joins(chunks[k], read, bound):
                keep.add(k)
                take(chunks[k])
                grew = True
            else:
                rest.append(k)
        todo = rest
    return keep


# ------------------------------------------------------------------------------------------ parsing


@dataclass
class SlicedModule:
    """A libcst module of the kept chunks' statements, and where each statement's code starts."""

    module: "cst.Module"
    starts: list[tuple["cst.CSTNode", int]]  # (top-level statement, 1-based line of its code)
    kept_lines: int
    total_lines: int


def parse_sliced(text: str, tree: ast.Module, module_name: str | None, is_package: bool,
                 index=None, entries: "set[str] | frozenset[str]" = frozenset()) -> SlicedModule | None:
    """The kept chunks parsed with libcst, run by run, as one module; None: parse the whole file."""
    # why: the language server's pass 1 chunks with this module before its engine loads; libcst (0.2 s) is for parses
    import libcst as cst

    found = plan(text, tree, module_name, is_package, index, entries=entries)
    if found is None:
        return None
    body: list = []
    starts: list = []
    indent = default_indent(found.chunks)
    for span in found.spans:
        try:
            part = cstparse.parse_module(found.span_text(text, span))
        except Exception:  # not parsed alone (libcst's parser differs from CPython's here): whole file
            return None
        if len(part.body) != span[1] - span[0]:
            return None
        if part.default_indent != indent and any(found.chunks[k].indent is not None for k in range(*span)):
            return None  # its blocks' code in a module of the file's default indent would not be theirs
        body.extend(part.body)
        starts.extend((stmt, found.chunks[k].code_line) for stmt, k in zip(part.body, range(*span)))
    # `default_newline`: the file has no `\r`.
    sliced = cst.Module(body=body, header=(), footer=(), default_indent=indent, default_newline="\n",
                        has_trailing_newline=True)
    return SlicedModule(sliced, starts, found.kept_lines, text.count("\n") + 1)
