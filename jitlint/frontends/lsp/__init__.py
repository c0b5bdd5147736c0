"""`jitlint lsp`: the language server, one module per feature."""
