"""`jitlint lsp`: its options and its log, then the server (jitlint.frontends.lsp.server) on stdin/stdout.

This module imports without pygls and lsprotocol (the `lsp` extra), so that `jitlint lsp` can say how to
install them.
"""

from __future__ import annotations

import argparse
import logging
import sys

from jitlint.frontends.lsp.first_lint import FirstLints

try:
    from jitlint.frontends.lsp.server import create_server

    PYGLS_MISSING: ImportError | None = None
except ImportError as exc:  # pragma: no cover - the `lsp` extra is not installed: main() says so
    if (exc.name or "").partition(".")[0] == "jitlint":
        raise  # (a jitlint module that does not import is a bug, not a missing extra)
    PYGLS_MISSING = exc


def main(argv: list[str] | None = None, first_lints: FirstLints | None = None) -> int:
    """`first_lints`: the helper process `jitlint lsp` started before importing this module."""
    parser = argparse.ArgumentParser(prog="jitlint lsp", description="The jitlint language server (stdio).")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only mode)")
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log here (default: stderr)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log more (-v: info, -vv: every message)")
    args = parser.parse_args(argv)
    if PYGLS_MISSING is not None:
        if first_lints is not None:
            first_lints.stop()
        sys.stderr.write("jitlint: error: the language server needs pygls: pip install 'jitlint[lsp]'\n")
        return 2
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
               else logging.StreamHandler(sys.stderr))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    server = create_server(first_lints)
    if first_lints is None:
        # libcst and the rules load while the client and the server shake hands (the first lint needs them)
        server.start_preload()
    server.start_io()
    return 0
