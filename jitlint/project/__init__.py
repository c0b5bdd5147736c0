"""The project every front end stands on: configuration once, the index, the cache, incremental re-lint."""
