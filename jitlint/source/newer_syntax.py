"""Files written for a newer Python than the one running jitlint.

CPython parses only its own version's grammar; libcst reads newer syntax too (ruff, likewise, reads
newer syntax than its host). For a text CPython refuses but libcst parses:

- the syntax that changes nothing jitlint analyses, type parameters (`def f[T](x)`, `class A[*Ts]:`) and
  `type X[T] = ...` aliases (Python 3.12), is blanked out in place, so CPython parses the same text with
  every position unchanged and the file is analysed as usual (libcst still parses the file as written);
- f-strings of Python 3.12's grammar (quotes reused inside, expressions over several lines, comments or
  backslashes in them) are written, for CPython only, as the tuple of their expressions at the same
  positions (`f"{d["k"]:>{w}} x"` becomes `( d["k"],          )`): pass 1 sees every name the
  expressions read, and the rules read libcst's tree of the file as written (the quick tree of such a
  file is not used: it would hold the tuples);
- other newer syntax (3.14 template strings, `except A, B:`) is named with the version it needs: the file
  is valid Python, never a syntax error.

Only a text CPython has refused comes here, so a file the running Python reads costs nothing.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings

from jitlint.core.deep import run_deep
from jitlint.core.finding import LINE_BREAK
from jitlint.source import cstparse  # (imports no libcst until it parses)

RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
# What newer syntax looks like: type parameters, `type` aliases, f- and t-strings, `except A, B:`. Only a
# refused text with one of these is given to libcst (whose parser is not asked about every broken file).
SIGNS = re.compile(r"^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+\w+[ \t]*\[|^[ \t]*type[ \t]+\w|"
                   r"(?<![\w.])[fFtT][rR]?['\"]|(?<![\w.])[rR][fFtT]['\"]|^[ \t]*except[ \t][^:(]*,", re.MULTILINE)


class NewerSyntax(SyntaxError):
    """Valid Python of a newer version than the running one, which jitlint cannot analyse here."""

    def __init__(self, feature: str, version: str, line: int, col: int):
        super().__init__(f"not analysed: it uses {feature}, which needs Python {version} or newer to analyse; "
                         f"jitlint runs on Python {RUNNING}")
        self.lineno, self.offset = line, col


def downlevel(text: str, error: SyntaxError) -> tuple[str | None, NewerSyntax | None]:
    """For a text CPython refused with `error`: (the same text with type parameters and aliases blanked
    and 3.12 f-strings rewritten, which CPython parses, or None; the newer syntax the text needs, when it
    cannot be rewritten, or None: then it is not valid Python and `error` stands)."""
    blanked, newer, _ = described(text, error)
    return blanked, newer


def described(text: str, error: SyntaxError) -> tuple[str | None, NewerSyntax | None, NewerSyntax | None]:
    """`downlevel`'s pair, and the first newer syntax the text uses (also where it could be rewritten)."""
    if not SIGNS.search(text) or "nested" in (error.msg or "") or "too complex" in (error.msg or ""):
        return None, None, None
    try:
        return run_deep(_downlevel, text, error)  # (libcst's parser recurses on the thread's own stack)
    except RecursionError:
        return None, None, None


def _downlevel(text: str, error: SyntaxError) -> tuple[str | None, NewerSyntax | None, NewerSyntax | None]:
    try:
        import libcst as cst  # why: only texts the running CPython refuses need libcst here
        from libcst.metadata import MetadataWrapper, PositionProvider  # why: as libcst, above

        module = cstparse.parse_module(text)
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except RecursionError:
        return None, None, None
    except Exception:  # libcst refuses it too: a syntax error
        return None, None, None

    lines = LINE_BREAK.split(text)
    breaks = LINE_BREAK.findall(text)
    newer: NewerSyntax | None = None
    seen: list[NewerSyntax] = []  # every newer syntax found, rewritten or not
    blanked = False
    # Type parameters first: an alias whose parameters span lines is then rewritten on blanked lines.
    for node, where in positions.items():
        if isinstance(node, cst.TypeParameters):
            _blank(lines, where.start, where.end)
            seen.append(NewerSyntax("type parameters", "3.12", where.start.line, where.start.column + 1))
            blanked = True
    for node, where in positions.items():
        start = where.start
        if isinstance(node, cst.TypeAlias):
            # `type Name[T] = value` becomes `Name      = value`: the name at the keyword's place, the `=`
            # where it stands (found after the name and any type parameters, which may span lines).
            after = positions[node.type_parameters or node.name].end
            row = lines[after.line - 1]
            equals = row.find("=", after.column)
            name = node.name.value
            first = lines[start.line - 1]
            room = (equals if after.line == start.line else len(first) - 1) - start.column - len(name)
            if equals < 0 or room <= 0:
                newer = newer or NewerSyntax("a `type` alias", "3.12", start.line, start.column + 1)
                continue
            if after.line == start.line:
                lines[start.line - 1] = first[:start.column] + name + " " * room + first[equals:]
            else:  # the parameters' lines end in joins: the name, then the `=` on the parameters' last line
                lines[start.line - 1] = first[:start.column] + name + " " * room + "\\"
                lines[after.line - 1] = " " * equals + row[equals:]
            seen.append(NewerSyntax("a `type` alias", "3.12", start.line, start.column + 1))
            blanked = True
        elif type(node).__name__ == "TemplatedString" and (newer is None or (start.line, start.column + 1) <
                                                           (newer.lineno, newer.offset)):
            newer = NewerSyntax("a template string (t-string)", "3.14", start.line, start.column + 1)
    if newer is not None:  # a template string, an alias that cannot be blanked: not analysed here
        return None, newer, min(seen + [newer], key=_place)
    named = _named_by_error(positions, error, cst)  # what CPython's error is at, if newer syntax
    if named is not None:
        seen.append(named)
    first = min(seen, key=_place) if seen else None
    if blanked and (candidate := _parses(lines, breaks)) is not None:
        return candidate, None, first
    if (blanked or named is not None) and _rewrite_fstrings(positions, lines, cst) and \
            (candidate := _parses(lines, breaks)) is not None:
        return candidate, None, first
    return None, named, first  # (None: CPython's error is at no newer syntax, so it stands)


def _place(newer: NewerSyntax) -> tuple[int, int]:
    return newer.lineno or 0, newer.offset or 0


def _parses(lines: list[str], breaks: list[str]) -> str | None:
    """The text of `lines`, where CPython parses it, else None."""
    candidate = "".join(line + brk for line, brk in zip(lines, breaks + [""]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(candidate)
        return candidate
    except Exception:
        return None


def _rewrite_fstrings(positions, lines: list[str], cst) -> bool:
    """Rewrite, in `lines`, each string holding an f-string (with the strings implicitly joined to it) as
    the tuple of its expressions at their places: the opening quote becomes `(`, the closing one `)`, the
    character after each expression `,`, and every other character of the string a blank (line breaks
    stay, inside the brackets). Format specifications are blanked with what they hold. Whether anything
    was rewritten. (Linear in the strings' length: a huge f-string is no hang.)"""
    joined = {id(part) for node in positions if isinstance(node, cst.ConcatenatedString)
              for part in (node.left, node.right)}
    units = [node for node in positions if isinstance(node, (cst.FormattedString, cst.ConcatenatedString))
             and id(node) not in joined]
    units.sort(key=lambda node: (positions[node].start.line, positions[node].start.column))
    original = list(lines)
    rows: dict[int, list[str]] = {}
    open_units: list[tuple[tuple[int, int], list]] = []  # (end, kept spans) of the strings around the next
    done = False
    for unit in units:
        strings = _strings_of(unit, cst)
        if not any(isinstance(s, cst.FormattedString) for s in strings) or \
                any(type(s).__name__ == "TemplatedString" for s in strings):
            continue
        where = positions[unit]
        start = (where.start.line, where.start.column)
        while open_units and open_units[-1][0] <= start:
            open_units.pop()
        if open_units and not any(_inside(span, *start) for span in open_units[-1][1]):
            continue  # inside an outer string's format specification: gone with it
        kept = [positions[part.expression] for s in strings for part in getattr(s, "parts", ())
                if isinstance(part, cst.FormattedStringExpression)]
        for line in range(where.start.line, where.end.line + 1):
            row = rows.setdefault(line, list(lines[line - 1]))
            first = where.start.column if line == where.start.line else 0
            last = where.end.column if line == where.end.line else len(row)
            row[first:last] = " " * (last - first)
        for span in kept:  # the expressions as written, then a comma after each
            for line in range(span.start.line, span.end.line + 1):
                row, text = rows[line], original[line - 1]
                first = span.start.column if line == span.start.line else 0
                last = span.end.column if line == span.end.line else len(text)
                row[first:last] = text[first:last]
            rows[span.end.line][span.end.column] = ","
        rows[where.start.line][where.start.column] = "("
        rows[where.end.line][where.end.column - 1] = ")"
        open_units.append(((where.end.line, where.end.column), kept))
        done = True
    for line, row in rows.items():
        lines[line - 1] = "".join(row)
    return done


def _strings_of(node, cst) -> list:
    """The strings an implicitly joined string is made of (itself, for a single one)."""
    if isinstance(node, cst.ConcatenatedString):
        return _strings_of(node.left, cst) + _strings_of(node.right, cst)
    return [node]


def _inside(span, line: int, col: int) -> bool:
    return (span.start.line, span.start.column) <= (line, col) < (span.end.line, span.end.column)


def _blank(lines: list[str], start, end) -> None:
    """Blank the text from `start` to `end` in place. A span over several lines ends each of its lines but
    the last with a backslash, an explicit line join: the brackets that had continued the statement are
    gone, and every position stays where it was."""
    if start.line == end.line:
        row = lines[start.line - 1]
        lines[start.line - 1] = row[:start.column] + " " * (end.column - start.column) + row[end.column:]
        return
    first = lines[start.line - 1]
    lines[start.line - 1] = first[:start.column] + " " * max(len(first) - start.column - 1, 0) + "\\"
    for line in range(start.line, end.line - 1):
        lines[line] = " " * max(len(lines[line]) - 1, 0) + "\\"
    last = lines[end.line - 1]
    lines[end.line - 1] = " " * end.column + last[end.column:]


def _named_by_error(positions, error: SyntaxError, cst) -> NewerSyntax | None:
    """The newer syntax at CPython's error, for what cannot be blanked: an f-string CPython 3.11 cannot
    read (quotes reused inside, backslashes or comments in its expressions), `except A, B:`."""
    line = error.lineno or 0
    for node, where in positions.items():
        if not where.start.line <= line <= where.end.line:
            continue
        if isinstance(node, cst.FormattedString) and sys.version_info < (3, 12):
            return NewerSyntax("an f-string of Python 3.12's grammar", "3.12", where.start.line, where.start.column + 1)
        if isinstance(node, cst.ExceptHandler) and sys.version_info < (3, 14) and where.start.line == line and \
                isinstance(node.type, cst.Tuple) and not node.type.lpar:
            return NewerSyntax("`except` with several types and no parentheses", "3.14",
                               where.start.line, where.start.column + 1)
    return None
