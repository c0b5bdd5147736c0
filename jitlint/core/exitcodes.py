"""The exit codes of every jitlint command (`check`, `run`, ...): ruff's conventions."""

EXIT_CLEAN = 0  # no findings
EXIT_FINDINGS = 1  # findings
EXIT_ERROR = 2  # bad usage, bad settings or an internal error
