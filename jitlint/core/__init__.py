"""The core records every layer exchanges: findings, settings, exit codes, noqa comments, text edits."""
