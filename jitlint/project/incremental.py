"""Incremental re-lint for the language server: per-document memory of what an edit did not touch.

A document's kept top-level chunks (jitlint.lint.slicing) fall into independent groups (`slicing.components`):
a group's analysis alone equals the whole module's analysis restricted to it. `Document.findings` keeps

* the libcst statement of every chunk, by the chunk's text: an edit re-parses only the chunks it changed,
  and of a changed def or class only the pieces that changed (`_pieces`: its header with its first body
  statement, then each body statement with the lines before it), put together in a module of the whole
  text's default indent (`slicing.default_indent`);
* what each chunk binds and refers to (jitlint.lint.slicing), and which chunks compile: pass 1 of an edited
  text walks and compiles only the chunks it changed (`pass_one`);
* the findings of every group, by the texts of its chunks (and the rules): a group none of whose chunks
  changed keeps its findings, moved by as many lines as its chunks moved; the others are analysed again.
  A group whose fixes asked facts of the whole file (`RuleContext.file_fact`) is kept while the same
  questions get the same answers, the file's imports and first statements sit as they did around it, and
  its fixes edit only their own statements; one whose fix read the whole text is analysed again.

Which chunks form which group is decided afresh on every text (CPython's `ast`, cheap), so a change that
joins or splits groups (a new name read, a helper renamed) only changes which groups are looked up. The
findings equal those of a full lint of the same text, always (tests/project/test_incremental.py checks that after
every edit of random edit sequences); where slicing does not apply, or a group's analysis runs out of its
budget, or positions cannot be checked, the engine lints the whole text.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from jitlint.analysis import foreign
from jitlint.analysis import prefilter  # prefilter.references, looked up per call: tests patch it
from jitlint.analysis.whole_file import WholeFile
from jitlint.source import cstparse  # cstparse.parse_module, likewise
from jitlint.source import python as python_source
from jitlint.source.python import BACKSLASH_ONLY_LINE, parse_python

if TYPE_CHECKING:
    from jitlint.core.finding import Finding


class _Batch:
    """One analysis of the groups an edit left without findings (all of them at once: one module)."""

    __slots__ = ("used", "answers", "reusable")

    def __init__(self, used: int, answers: dict, reusable: bool = True) -> None:
        self.used = used  # analysis budget it used: at least what any of its groups would use alone
        self.answers = answers  # what it asked the project index, and the answers: its findings depend on them
        # False when a rule read the whole file (a fix's `import jax`, its text): analysed again next time
        self.reusable = reusable

    def still_valid(self, index) -> bool:
        """Does the index answer as it did (the index changes while the user edits other files)?"""
        if not self.answers:
            return True
        if index is None:
            return False
        return all(getattr(index, question)(*args) == answer for (question, args), answer in self.answers.items())


class _AskedIndex:
    """The project index, remembering every question and answer (the questions the analysis and the
    rules may ask: QUESTIONS)."""

    QUESTIONS = ("lookup", "is_memoizer", "plain_method", "value_kind", "star_binding")

    def __init__(self, index) -> None:
        self._index = index
        self.answers: dict = {}

    def __getattr__(self, name: str):
        if name not in self.QUESTIONS:
            raise AttributeError(name)  # anything else: the rules must not see what was not recorded
        ask = getattr(self._index, name)

        def asked(*args):
            found = self.answers[(name, args)] = ask(*args)
            return found

        return asked


def state_of(states: dict, uri: str, key: object) -> "Document":
    """The document's state in `states` (a new one the first time), forgotten unless it was built with
    the same `key` (the settings, the path: `Document.reset_unless`)."""
    state = states.get(uri)
    if state is None:
        state = states[uri] = Document()
    state.reset_unless(key)
    return state


class Document:
    """What the server remembers of one open document. Not thread-safe: one lint at a time per document
    (the server's lint thread)."""

    def __init__(self) -> None:
        # chunk text -> its libcst statement, and the default indent of the parse that made it
        self._statements: dict[str, tuple[object, str]] = {}
        self._pieces: dict[tuple, object] = {}  # the pieces of defs and classes (`_pieces`) -> their statements
        self._chunk_pieces: dict[str, list[tuple]] = {}  # chunk text -> its pieces
        self._chunked = None  # (text, tree, module, package, chunks, memo) chunked by pass 1 (`pass_one`)
        self._compiled: set[tuple] = set()  # (chunk text, __future__ flags) that compile
        self._chunk_facts: dict[str, tuple] = {}  # chunk text -> what it binds and reads (jitlint.lint.slicing)
        # group key -> (its findings, the first lines of its chunks then, the batch that analysed it, what its
        # fixes read of the rest of the file: `_file_key`, or None when they read nothing of it)
        self._groups: dict[tuple, tuple[list["Finding"], tuple[int, ...], _Batch, object]] = {}
        self._key: object = None
        self.reused = 0  # groups whose findings the last lint reused (for tests and benchmarks)
        self.analysed = 0  # groups it analysed
        self.whole = False  # whether the last lint was left to the engine's whole-text lint (findings None)

    def reset_unless(self, key: object) -> None:
        """Forget the findings when what they depend on besides the text and the index changed (the
        settings, the path). (Findings that depend on the index are reused only while it answers the same.)"""
        if key != self._key:
            self._key = key
            self._groups.clear()
            self._chunk_facts.clear()  # (relative imports depend on the module name)
            self._chunked = None
            self._compiled = set()

    def pass_one(self, module_name: str | None, is_package: bool) -> dict:
        """Pass 1's `references_of` and `compile_check` (jitlint.analysis.prefilter.file_facts) for this document's
        texts, from its chunks: what each refers to and whether it compiles are remembered by its text,
        so an edit walks and compiles only the chunks it changed. The chunks are kept for `findings`."""
        # why: the server imports this module at start-up, and slicing costs 2 ms more (its preload loads it)
        from jitlint.lint import slicing

        def references(text: str, tree) -> set[str]:
            chunked = self._chunk(text, tree, module_name, is_package)
            if chunked is None:
                return prefilter.references(tree, module_name, is_package)
            return slicing.references(chunked[0])

        def compile_check(tree, text: str, path: str):
            chunked = self._chunk(text, tree, module_name, is_package)
            if chunked is None:
                return python_source.compile_error(tree, text, path)
            chunks, line_starts = chunked
            texts = slicing.chunk_texts(text, chunks, line_starts)
            # (a `global` or `nonlocal` of the module's own scope: not in a def or a class body)
            parts = [(chunk_text, list(chunk.stmts), slicing.lone_def(chunk) is None
                      and not chunk.words.isdisjoint(("global", "nonlocal")))
                     for chunk, chunk_text in zip(chunks, texts)]
            error = python_source.compile_error_in_parts(tree, text, path, parts, self._compiled)
            kept = set(texts)
            self._compiled = {key for key in self._compiled if key[0] in kept}
            return error

        return {"references_of": references, "compile_check": compile_check}

    def _chunk(self, text: str, tree, module_name: str | None, is_package: bool):
        """`slicing.chunk_file` of the text, its chunks' facts from those remembered; None: not chunked."""
        from jitlint.lint import slicing  # why: as in pass_one (the server starts without it)

        last = self._chunked
        if last is not None and last[0] is text and last[1] is tree and last[2:4] == (module_name, is_package):
            return last[4]
        memo = dict(self._chunk_facts)
        self._chunked = None
        try:
            chunked = slicing.chunk_file(text, tree, module_name, is_package, memo)
        except Exception:  # (outside the engine's guard of the analysis: pass 1 must not fail here)
            chunked = None
        if chunked is None:
            return None
        chunks, line_starts = chunked
        self._chunk_facts = {t: memo[t] for t in slicing.chunk_texts(text, chunks, line_starts) if t in memo}
        self._chunked = (text, tree, module_name, is_package, chunked, self._chunk_facts)
        return chunked

    def findings(self, rules, source: str, path: str, module_name: str | None, is_package: bool,
                 index, incoming: tuple = ()) -> list["Finding"] | None:
        """The rules' findings on `source` (before `# noqa` and selection), or None: lint it whole.
        `incoming`: the contexts other files' traced code gives its functions (jitlint.analysis.foreign)."""
        self.reused = self.analysed = 0
        out = self._findings(rules, source, path, module_name, is_package, index, incoming)
        self.whole = out is None
        return out

    def _findings(self, rules, source, path, module_name, is_package, index, incoming) -> list["Finding"] | None:
        from jitlint.lint import slicing  # why: as in pass_one (the server starts without it)

        tree, error = parse_python(source)
        if error is not None or BACKSLASH_ONLY_LINE.search(source) or not python_source.runs_here(tree):
            # (a line holding only `\`: libcst may read it otherwise; newer syntax: its findings get no
            # fixes. The whole-file path sees to both)
            return None
        chunked = self._chunk(source, tree, module_name, is_package)  # (pass 1's, usually)
        self._chunked = None
        if chunked is None:
            return None
        found = slicing.plan(source, tree, module_name, is_package, index, chunked=chunked,
                             entries={call.function for call in incoming})
        if found is None:
            return None
        chunks = found.chunks
        texts = [found.chunk_text(source, k) for k in range(len(chunks))]
        # A group's findings depend on its statements' own text (not on the comments before them), and
        # are kept with the lines where those start.
        own = [found.statement_text(source, k) for k in range(len(chunks))]
        codes = tuple(rule.code for rule in rules)
        file_key = _FileKey(source, tree, texts, slicing.file_context(chunks))
        groups: dict[tuple, tuple[list[Finding], tuple[int, ...], _Batch, object]] = {}
        missing: list[tuple[tuple, list[int]]] = []
        components = slicing.components(found)
        occurrences: dict[tuple, int] = {}
        for members in components:
            texts_of = tuple(own[k] for k in members)
            # two groups of the same text (a statement written twice): each keeps its own findings
            nth = occurrences[texts_of] = occurrences.get(texts_of, -1) + 1
            key = (codes, module_name, is_package, path, texts_of, nth, foreign.digest(incoming))
            lines = tuple(chunks[k].first for k in members)
            cached = self._groups.get(key)
            if cached is not None and cached[2].reusable and cached[2].still_valid(index) and (
                    cached[3] is None or file_key(members, cached[3][0]) == cached[3][1]):
                groups[key] = (_moved(cached[0], cached[1], lines), lines, cached[2], cached[3])
            else:
                missing.append((key, members))
        self.reused, self.analysed = len(groups), len(missing)
        if missing:
            analysed = self._analyse(rules, source, path, module_name, is_package, index, found, texts, missing,
                                     components, file_key, incoming)
            if analysed is None:
                return None
            groups.update(analysed)
        self._groups = groups
        # The groups' work together (each batch counted once: an upper bound) within the budget of the
        # whole kept module (at least 50 per def): the whole analysis would not have stopped early either.
        used = sum(batch.used for batch in {id(g[2]): g[2] for g in groups.values()}.values())
        defs = sum(chunks[k].defs for a, b in found.spans for k in range(a, b))
        if used >= 50 * (defs + 10):
            return None
        out = [f for g in groups.values() for f in g[0]]
        if len({(f.code, f.line, f.col) for f in out}) != len(out):
            return None  # two groups report at one place (a shared import chunk): let the engine decide
        return out

    def _analyse(self, rules, source, path, module_name, is_package, index, found, texts, missing, components,
                 file_key, incoming):
        """The missing groups' findings, from one analysis of a module of all their chunks, with the file's
        imports and first statements (and their groups) beside them as fixes read them
        (`slicing.file_context`); None: lint the text whole."""
        # why: the server starts without libcst, the analysis and the rules (0.2 s): its preload loads them
        import libcst as cst

        from jitlint.lint import slicing  # why: as in pass_one (the server starts without it)
        from jitlint.analysis.facade import analyze  # why: as libcst above
        from jitlint.lint.positions import SliceMismatch, to_findings  # why: it imports libcst, as above
        from jitlint.lint.witnesses import with_witnesses  # why: it imports the analysis, as above
        from jitlint.rules.base import RuleContext  # why: likewise

        chunks = found.chunks
        context = slicing.file_context(chunks)
        order = {k for _, members in missing for k in members} | context
        order |= {k for members in components if context.intersection(members) - {
            j for j in members if chunks[j].is_import} for k in members}
        order = sorted(order)
        statements = self._parse(source, found, texts, order)
        if statements is None:
            return None
        body = [statements[k] for k in order]
        starts = [(statements[k], chunks[k].code_line) for k in order]
        module = cst.Module(body=body, header=(), footer=(), default_indent=slicing.default_indent(chunks),
                            default_newline="\n", has_trailing_newline=True)
        asked = _AskedIndex(index) if index is not None else None
        analysis = analyze(module, module_name, is_package, incoming, asked)
        if analysis.out_of_budget:
            return None
        ctx = RuleContext(analysis, path, asked, source, file_key.whole_file)
        reports, read_facts, anywhere = _reports(rules, ctx)
        try:
            reports, witnesses = with_witnesses(analysis, reports, path.endswith(".ipynb"))
            findings = to_findings(module, path, reports, source, starts, analysis.top_level, witnesses) \
                if reports else []
        except SliceMismatch:
            return None
        owner: dict[int, int] = {}  # chunk -> the missing group holding it (None: several)
        for g, (_, members) in enumerate(missing):
            for k in members:
                owner[k] = -1 if k in owner else g
        batch = _Batch(analysis.budget_used, asked.answers if asked is not None else {}, not anywhere)
        one_off = _Batch(batch.used, batch.answers, False)  # for groups to analyse again next time
        where = analysis.top_level.index_of  # the statement holding a node (None: not in the module)
        flagged: set[int] = set()
        # Groups with a finding whose fix read only the file's facts (jitlint.analysis.whole_file) and its imports
        # and first statements: reused while those are the same, if every edit of their fixes lies in the
        # finding's own statement (an `import jax` added at the top does not move with the group).
        with_facts: dict[int, set] = {}  # group -> the questions its fixes asked
        for node, questions in read_facts:
            g = owner.get(order[where(node)], -1) if where(node) is not None else -1
            with_facts.setdefault(g, set()).update(questions)
        flagged |= {-1} if -1 in with_facts else set()
        per_group: list[list[Finding]] = [[] for _ in missing]
        firsts = [chunks[k].first for k in order]
        for f in findings:
            k = order[max(i for i, first in enumerate(firsts) if first <= f.line)]
            if k not in owner:
                continue  # a chunk of a group analysed only as context: its own findings are kept
            if owner[k] < 0:
                return None  # in a chunk two groups share (an import): which group's is it?
            per_group[owner[k]].append(f)
            if owner[k] in with_facts and f.fix is not None and not _edits_within(f, chunks, k):
                flagged.add(owner[k])
        if -1 in flagged:
            batch = one_off  # (a shared chunk, or a node not found: every group of the batch)
        return {key: (per_group[g], tuple(chunks[k].first for k in members), one_off if g in flagged else batch,
                      _asked(file_key, members, with_facts[g]) if g in with_facts else None)
                for g, (key, members) in enumerate(missing)}

    def _parse(self, source: str, found, texts: list[str], order: list[int]) -> dict | None:
        """The libcst statement of each chunk of `order`: remembered by text; a def or class whose text
        changed, from the pieces of it that did not (`_by_pieces`); the rest parsed run by run.
        None where a statement's indented blocks were parsed with another default indent than the whole
        text's (`slicing.default_indent`): its code would not be its own in a module of that indent."""
        from jitlint.lint import slicing  # why: as in pass_one (the server starts without it)

        indent = slicing.default_indent(found.chunks)
        out = {}
        todo = []
        used: set[int] = set()
        for k in order:
            remembered = self._statements.get(texts[k])
            # a text twice in the file: two statements; a def built from pieces may hold a body statement
            # of another def remembered (`return y` in both, the other not analysed then): not both
            if remembered is not None and id(remembered[0]) not in used \
                    and used.isdisjoint(_member_ids(remembered[0])):
                out[k] = remembered
                used.add(id(remembered[0]))
                used.update(_member_ids(remembered[0]))  # (pieces of it are not to be shared either)
            else:
                todo.append(k)
        # chunk -> its pieces, for the defs and classes of this text
        pieces_of = {k: p for k in todo if (p := _pieces(source, found, k, indent)) is not None}
        pieces: dict[tuple, object] = {}  # what this text's pieces are (the next edit can reuse them)
        runs: list[list[int]] = []
        for k in todo:
            known = pieces_of.get(k)
            if known is not None and any(key in self._pieces for key in known):
                stmt = self._by_pieces(known, pieces, used)
            else:
                stmt = None
            if stmt is not None:
                out[k] = (stmt, indent)
            elif runs and runs[-1][-1] == k - 1:
                runs[-1].append(k)
            else:
                runs.append([k])
        for run in runs:
            try:
                part = cstparse.parse_module(found.span_text(source, (run[0], run[-1] + 1)))
            except Exception:
                return None
            if len(part.body) != len(run):
                return None
            out.update((k, (stmt, part.default_indent)) for k, stmt in zip(run, part.body))
            if part.default_indent == indent:
                for k, stmt in zip(run, part.body):
                    if k in pieces_of:
                        _remember_pieces(stmt, pieces_of[k], pieces)
        kept = {texts[k]: remembered for k, remembered in out.items()}
        for t in texts:  # keep the statements of this text only (what the next edit can reuse)
            if t not in kept and t in self._statements:
                kept[t] = self._statements[t]
        self._statements = kept
        chunk_pieces = {texts[k]: keys for k, keys in pieces_of.items()}
        for t in texts:  # and the pieces of its defs and classes
            keys = chunk_pieces.get(t) or self._chunk_pieces.get(t)
            if keys is not None:
                chunk_pieces[t] = keys
                pieces.update((key, self._pieces[key]) for key in keys if key not in pieces and key in self._pieces)
        self._chunk_pieces = chunk_pieces
        self._pieces = pieces
        if any(found.chunks[k].indent is not None and parsed_with != indent for k, (_, parsed_with) in out.items()):
            return None
        return {k: stmt for k, (stmt, _) in out.items()}

    def _by_pieces(self, texts: list[tuple], pieces: dict, used: set[int]):
        """A def or class from its pieces' statements: remembered, or each piece parsed alone (the first
        with the header, the others in a wrapper `async def` whose block has their indentation); None
        where a piece does not parse to the one statement it should. `used`: the statements (by id) in
        the module already: a piece written twice in the file (`return x`) is two statements."""
        import libcst as cst  # why: the server starts without libcst (0.2 s): its preload loads it

        statements = []
        taken: set[int] = set()  # added to `used` once the statement is whole

        def free(stmt, n: int) -> bool:
            return stmt is not None and _piece_id(stmt, n) not in used and _piece_id(stmt, n) not in taken

        for n, key in enumerate(texts):
            stmt = self._pieces.get(key)
            if not free(stmt, n):
                stmt = pieces.get(key)
            if not free(stmt, n):
                try:
                    part = cstparse.parse_module(key[1] if n == 0 else _WRAPPER + key[1])
                except Exception:
                    return None
                if len(part.body) != 1 or part.default_indent != key[0]:
                    return None
                stmt = part.body[0]
                if n:
                    inner = stmt.body.body
                    if len(inner) != 1:
                        return None
                    stmt = inner[0]
                elif stmt.body.__class__ is not cst.IndentedBlock or len(stmt.body.body) != 1:
                    return None
            pieces[key] = stmt
            taken.add(_piece_id(stmt, n))
            statements.append(stmt)
        used |= taken
        head = statements[0]
        return head.with_changes(body=head.body.with_changes(body=(head.body.body[0], *statements[1:])))


_WRAPPER = "async def _():\n"  # a block where any statement of a def's or class's body parses


def _pieces(source: str, found, k: int, indent: str) -> list[tuple] | None:
    """A def or class chunk (on its own, with an indented body of several statements, indented by the
    text's default `indent`) in pieces: its header with the first body statement, then each other body
    statement with the lines before it; as (indent, text) keys. None where libcst could give a line
    between two body statements to the first one's block (a comment indented deeper than the second),
    or where the chunk is not such a statement."""
    from jitlint.lint.slicing import first_line, leading_whitespace, lone_def, statement_lines  # why: as in pass_one

    chunk = found.chunks[k]
    stmt = lone_def(chunk)
    if chunk.indent != indent or stmt is None:
        return None
    body = stmt.body
    if len(body) < 2 or body[0].lineno <= stmt.lineno:
        return None
    lines = statement_lines(body)
    if len(lines) < 2:
        return None
    firsts = [first_line(group[0]) for group in lines]
    ends = [max(s.end_lineno for s in group) for group in lines]  # last line of each body statement line
    starts = found.line_starts

    def text(a: int, b: int) -> str:  # lines a..b, 1-based, inclusive
        return source[starts[a - 1]:starts[b] if b < len(starts) else len(source)]

    for n in range(1, len(ends)):
        for line in text(ends[n - 1] + 1, firsts[n] - 1).split("\n"):  # the lines between two statements
            if len(leading_whitespace(line)) > len(indent):
                return None
    out = [(indent, text(chunk.start + 1, ends[0]))]
    out += [(indent, text(ends[n - 1] + 1, ends[n])) for n in range(1, len(ends))]
    return out if sum(len(t) for _, t in out) == len(found.chunk_text(source, k)) else None


def _member_ids(stmt) -> list[int]:
    import libcst as cst  # why: the server starts without libcst (0.2 s): its preload loads it

    block = getattr(stmt, "body", None)
    return [id(member) for member in block.body] if block.__class__ is cst.IndentedBlock else []


def _piece_id(stmt, n: int) -> int:
    """The statement of the module that a piece's statement is (the first piece's: its first body statement)."""
    return id(stmt.body.body[0]) if n == 0 else id(stmt)


def _remember_pieces(stmt, texts: list[tuple], pieces: dict) -> None:
    """The pieces of a def or class parsed whole (the first: its header with its first body statement)."""
    import libcst as cst  # why: the server starts without libcst (0.2 s): its preload loads it

    block = stmt.body
    if block.__class__ is not cst.IndentedBlock or len(block.body) != len(texts):
        return
    pieces[texts[0]] = stmt.with_changes(body=block.with_changes(body=block.body[:1]))
    pieces.update(zip(texts[1:], block.body[1:]))


def _reports(rules, ctx) -> tuple[list, list, bool]:
    """The rules' reports; the nodes of those made while a rule asked facts of the file (`ctx.file_fact`:
    the names it binds, whether it stages, a fresh name; with its imports and first statements: a fix's
    `import jax`, its applicability), with the questions; and whether a rule asked any for no report."""
    reports, read_facts, anywhere = [], [], False
    for rule in rules:
        found = iter(rule.check(ctx))
        while True:
            ctx.read_file_facts = False
            ctx.asked_file = set()
            try:
                report = next(found)
            except StopIteration:
                anywhere = anywhere or ctx.read_file_facts
                break
            reports.append((rule, report))
            if ctx.read_file_facts:
                read_facts.append((report.node, frozenset(ctx.asked_file)))
    return reports, read_facts, anywhere


class _FileKey:
    """What a fix that asked facts of the file saw of the rest of it, for one group of chunks: the answers
    to its questions (jitlint.analysis.whole_file) and the file's imports and first statements, each with how many
    of the group's chunks come before it (is `jax` imported before the print?)."""

    def __init__(self, source: str, tree, texts: list[str], context: set[int]) -> None:
        self.whole_file = WholeFile(source, tree)  # answers worked out once per text, shared with the rules
        self._texts, self._context = texts, sorted(context)

    def __call__(self, members, questions) -> tuple:
        return (tuple((q, self.whole_file.answer(q)) for q in questions),
                tuple((self._texts[c], sum(1 for m in members if m < c)) for c in self._context))


def _asked(file_key: _FileKey, members, questions: set) -> tuple:
    """What a group's fixes asked of the file, and what they saw: (the questions, `file_key`'s answer)."""
    ordered = tuple(sorted(questions, key=repr))
    return ordered, file_key(members, ordered)


def _edits_within(f: "Finding", chunks, k: int) -> bool:
    """Do all of this finding's fix edits lie in chunk k (so that they move with it)?"""
    low = chunks[k].first
    high = chunks[k + 1].first if k + 1 < len(chunks) else None
    return all(e.line >= low and (high is None or e.end_line < high) for e in f.fix.edits)


def _chunk_shift(line: int, old: tuple[int, ...], new: tuple[int, ...]) -> int:
    """How far the chunk holding `line` (the last one starting at or before it) moved."""
    k = max((i for i, first in enumerate(old) if first <= line), default=0)
    return new[k] - old[k]


def _moved(findings: list["Finding"], old: tuple[int, ...], new: tuple[int, ...]) -> list["Finding"]:
    """The findings of a group whose chunks (first lines `old`) now start at lines `new`."""
    if old == new:
        return findings
    out = []
    for f in findings:
        # the statement holding the finding: the last one starting at or before its line
        k = max(i for i, first in enumerate(old) if first <= f.line)
        shift = new[k] - old[k]
        fix = f.fix
        if fix is not None:
            fix = dataclasses.replace(fix, edits=tuple(dataclasses.replace(e, line=e.line + shift,
                                                                           end_line=e.end_line + shift)
                                                       for e in fix.edits))
        # each witness step moves with the chunk holding it (all of them are in this group)
        # (a step in another file, where the caller's witness is, stays where it is)
        witness = tuple(dataclasses.replace(step, line=step.line + _chunk_shift(step.line, old, new))
                        if step.path == f.path else step for step in f.witness)
        out.append(dataclasses.replace(f, line=f.line + shift, end_line=f.end_line + shift, fix=fix, witness=witness))
    return out
