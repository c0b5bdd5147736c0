"""The front ends, each a thin adapter over `jitlint.project`: the CLI, the flake8 plugin, the language server."""
