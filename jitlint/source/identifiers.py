"""Identifiers as Python reads them: NFKC-normalized (PEP 3131), so `ﬁnd` is `find` and `jax.ｊｉｔ` is
`jax.jit`. libcst keeps identifiers as written; the analysis compares them as strings. A text with an
identifier NFKC changes is analysed in its normalized spelling, and each position is mapped back to the
text as written (a normalized identifier may be longer: `ﬁ` is `fi`). Its findings get no fixes: a fix
is written from the normalized text, and would respell the user's identifiers.
"""

from __future__ import annotations

import dataclasses
import io
import tokenize
import unicodedata


@dataclasses.dataclass(frozen=True)
class Respelt:
    text: str  # the text with every identifier NFKC-normalized
    # per line (1-based): (column as written, length as written, length normalized), 0-based, in order
    edits: dict[int, tuple[tuple[int, int, int], ...]]

    def column(self, line: int, col: int) -> int:
        """The 1-based column as written of 1-based column `col` of the normalized text."""
        offset, at = 0, col - 1
        for start, old, new in self.edits.get(line, ()):
            begin = start + offset
            if at >= begin + new:
                offset += new - old
            elif at > begin:  # inside a respelt identifier: its end, or its start
                return start + (old if at == begin + new else 0) + 1
            else:
                break
        return at - offset + 1

    def placed(self, finding):
        """The finding at the text's own positions, without its fix."""
        witness = tuple(dataclasses.replace(step, col=self.column(step.line, step.col))
                        if step.path == finding.path else step for step in finding.witness)
        return dataclasses.replace(finding, col=self.column(finding.line, finding.col),
                                   end_col=self.column(finding.end_line, finding.end_col), fix=None,
                                   witness=witness)


def respelt(text: str) -> Respelt | None:
    """The text with its identifiers normalized, or None where none changes (every ASCII text)."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):  # (a quick check: no tokenizing)
        return None
    if "\r" in text.replace("\r\n", ""):  # lone CR: tokenize counts lines otherwise
        return None
    edits: dict[int, list[tuple[int, int, int]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and not token.string.isascii():
                normal = unicodedata.normalize("NFKC", token.string)
                if normal != token.string:
                    edits.setdefault(token.start[0], []).append((token.start[1], len(token.string), len(normal)))
    except (tokenize.TokenError, SyntaxError):
        return None
    if not edits:
        return None
    rows = text.split("\n")
    for line, spans in edits.items():
        row = rows[line - 1]
        out, last = [], 0
        for start, old, _ in spans:
            out.append(row[last:start])
            out.append(unicodedata.normalize("NFKC", row[start:start + old]))
            last = start + old
        out.append(row[last:])
        rows[line - 1] = "".join(out)
    return Respelt("\n".join(rows), {k: tuple(v) for k, v in edits.items()})
