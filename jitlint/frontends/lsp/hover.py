"""Hover: the rule's short documentation on a flagged range."""

from __future__ import annotations

import textwrap

from lsprotocol import types

from jitlint.catalog.links import rule_docs_url
from jitlint.core.finding import Finding
from jitlint.frontends.lsp.convert import finding_end, finding_start


def hover_markdown(finding: Finding, docs_url: str | None = None) -> str:
    # why: the registry imports every rule and libcst, which the server starts without (the preload loads them)
    from jitlint.rules.registry import rule_by_code

    parts = [f"**{finding.code}** {finding.message}"]
    rule = rule_by_code(finding.code)
    if rule is not None:
        parts += [f"**{rule.code} `{rule.name}`**: {rule.summary}",
                  f"**What it does.** {_prose(rule.what)}",
                  f"**Why is this bad?** {_prose(rule.why)}"]
    href = rule_docs_url(finding.code, docs_url)
    if href:
        parts.append(f"[{finding.code} documentation]({href})")
    return "\n\n".join(parts)


def _prose(text: str) -> str:
    return textwrap.dedent(text).strip()


# ------------------------------------------------------------------------------------------ handlers


async def hover(ls, params: types.HoverParams):
    result = await ls.lint(params.text_document.uri)
    if result is None:
        return None
    at = result.positions.from_client(params.position)
    hits = [i for i, f in enumerate(result.findings) if finding_start(f) <= at <= finding_end(f)]
    if not hits:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                     value="\n\n---\n\n".join(hover_markdown(result.findings[i], result.config.docs_url)
                                                              for i in hits)),
        range=result.diagnostics[hits[0]].range)
