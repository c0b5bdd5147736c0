"""`# noqa` comments, with flake8's meaning (prefix match), except that a malformed list of codes
(`# noqa: JIT`) suppresses nothing and is reported, instead of silently acting as a blanket."""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass

from jitlint.core.finding import LINE_BREAK, python_readline  # Python's lines (`str.splitlines` also breaks at \f, \x85 ...)
from jitlint.core.fixes import comments as all_comments, compiles

# `# noqa`, `# NOQA`, `# noqa: JIT501`, `# noqa:JIT5,JIT401`
_NOQA = re.compile(r"#\s*noqa(?P<sep>\s*:\s*(?P<codes>[^#]*))?", re.IGNORECASE)
_CODE = re.compile(r"^[A-Z]+[0-9]+$")
_FILE_NOQA = re.compile(r"#\s*jitlint\s*:\s*noqa\b", re.IGNORECASE)


@dataclass(frozen=True)
class NoqaDirective:
    codes: tuple[str, ...] | None  # None: blanket


@dataclass(frozen=True)
class NoqaWarning:
    line: int
    message: str


def comments_by_line(source: str) -> dict[int, str]:
    """Comment text per 1-based line, from the tokenizer (so `#` inside strings is not a comment)."""
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(python_readline(source)):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        for i, line in enumerate(LINE_BREAK.split(source), 1):
            if "#" in line:
                out[i] = line[line.index("#"):]
    return out


def parse_noqa(comment: str) -> tuple[NoqaDirective | None, str | None]:
    """The directive in a comment, and a warning when its code list is malformed."""
    m = _NOQA.search(comment)
    if m is None:
        return None, None
    if m.group("sep") is None:
        return NoqaDirective(None), None
    raw = m.group("codes").strip()
    codes = tuple(c for c in re.split(r"[,\s]+", raw) if c)
    if not codes:
        return None, "`# noqa:` has no codes after the colon; it suppresses nothing (write `# noqa` or list codes)"
    # Like flake8, stop at the first word that is not a code (trailing prose after the codes is fine).
    good: list[str] = []
    for c in codes:
        if _CODE.match(c.upper()):
            good.append(c.upper())
        else:
            break
    if not good:
        return None, (f"`# noqa: {codes[0]}` is not a valid code list (codes look like JIT501 or the "
                      f"prefix JIT5); it suppresses nothing")
    return NoqaDirective(tuple(good)), None


def file_is_suppressed(source: str) -> bool:
    """`# jitlint: noqa` on a line of its own skips the whole file (like `# flake8: noqa`)."""
    if "jitlint" not in source:
        return False
    return any(_FILE_NOQA.match(line.strip()) for line in LINE_BREAK.split(source))


class Suppressions:
    def __init__(self, source: str):
        self.directives: dict[int, NoqaDirective] = {}
        self.warnings: list[NoqaWarning] = []
        if "noqa" not in source.lower():
            return
        for line, comment in comments_by_line(source).items():
            directive, warning = parse_noqa(comment)
            if directive is not None:
                self.directives[line] = directive
            if warning is not None:
                self.warnings.append(NoqaWarning(line, warning))

    def suppresses(self, line: int, code: str) -> bool:
        d = self.directives.get(line)
        if d is None:
            return False
        return d.codes is None or code.startswith(d.codes)


def add_code_to_comment(comment: str | None, code: str) -> str | None:
    """The comment that also suppresses `code`: the code merged into an existing `# noqa: A, B` list,
    `# noqa: CODE` added to a comment without one, or a new comment. None if `comment` already
    suppresses `code` (a bare `# noqa` does)."""
    if not comment:
        return f"# noqa: {code}"
    m = _NOQA.search(comment)
    if m is None:
        return f"{comment}  # noqa: {code}"
    directive, _ = parse_noqa(comment)
    if directive is not None and (directive.codes is None or code.startswith(directive.codes)):
        return None
    start = m.start("codes")
    if directive is None:  # `# noqa:` with no valid codes: put the code first, keep the rest as prose
        rest = comment[start:]
        return f"{comment[:start].rstrip()} {code}{', ' if rest.strip() else ''}{rest}"
    # after the last valid code, so trailing prose stays behind the list
    words = list(re.finditer(r"[^,\s]+", m.group("codes")))
    end = start + words[len(directive.codes) - 1].end()
    return f"{comment[:end]}, {code}{comment[end:]}"


class LineComments:
    """Where `# noqa` can go in a text: each line's comment (found as the engine finds them), and the
    lines whose end lies inside a token (a multi-line string), where a `#` would be text, not a comment.
    Built once per text: many findings must not re-tokenize per finding."""

    def __init__(self, source: str):
        self.comments = comments_by_line(source)
        self.inside_token: set[int] = set()
        try:
            for tok in tokenize.generate_tokens(python_readline(source)):
                if tok.start[0] < tok.end[0]:
                    self.inside_token.update(range(tok.start[0], tok.end[0]))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass  # text with a syntax error: the lines as they are


def noqa_change(content: str, comments: LineComments, line: int, code: str) -> tuple[int, str] | None:
    """How to make a 1-based line (`content`, without its line break) also suppress `code`: (the 0-based
    column from which its end is replaced, the new text). None if the line already suppresses it or cannot
    carry a comment (its end is inside a string, or it continues with `\\`)."""
    comment = comments.comments.get(line)
    if comment is not None and content.endswith(comment):
        start = len(content) - len(comment)
        new = add_code_to_comment(comment, code)
    elif line in comments.inside_token or content.endswith("\\"):
        return None
    else:
        start = len(content)
        new = "  " + add_code_to_comment(None, code)
    if new is None:
        return None
    return start, new


def add_noqa(text: str, codes_by_line: dict[int, list[str]]) -> tuple[str, int, list[int]]:
    """The text with `# noqa: CODE` for each (line, code), how many codes were added, and the lines that
    cannot carry a comment; each line keeps its own line ending. Unchanged (0) where the result would not
    compile as the text did, or would lose a comment."""
    parts = LINE_BREAK.split(text)
    breaks = LINE_BREAK.findall(text)
    comments = LineComments(text)
    added = 0
    refused = []
    for line, codes in sorted(codes_by_line.items()):
        if not 1 <= line <= len(parts):
            continue
        if line in comments.inside_token or (parts[line - 1].endswith("\\") and line not in comments.comments):
            refused.append(line)
            continue
        for code in dict.fromkeys(codes):
            change = noqa_change(parts[line - 1], comments, line, code)
            if change is None:
                continue
            start, new = change
            parts[line - 1] = parts[line - 1][:start] + new
            comments.comments[line] = new.lstrip()
            added += 1
    if not added:
        return text, 0, refused
    new_text = "".join(p + b for p, b in zip(parts, [*breaks, ""]))
    old_comments, new_comments = all_comments(text), all_comments(new_text)
    if (compiles(text) and not compiles(new_text)) or old_comments is None or new_comments is None \
            or len(new_comments) < len(old_comments):
        return text, 0, sorted(codes_by_line)
    return new_text, added, refused
