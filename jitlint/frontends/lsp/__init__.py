"""`jitlint lsp`: the language server, one module per feature.

- main: the command line (options, log), importable without pygls; server: the server, every feature
  registered; first_lint: the helper process that does the first lints while the server starts.
- framing: JSON-RPC over stdio; protocol: pygls' protocol, mended; client: capabilities and messages.
- convert: positions and findings as diagnostics; settings: pyproject.toml and the client's settings.
- documents: open documents and their lints; notebooks: notebook cells, linted together; index: the
  workspace's project index; preload: the engine loading meanwhile, and the helper's hand-over.
- publish: diagnostics, pulled or pushed; actions: fixes and `# noqa`; hover: the rule's documentation;
  lifecycle: initialize, initialized and shutdown.

This package's __init__ imports nothing: the helper process (first_lint) runs without pygls.
"""
