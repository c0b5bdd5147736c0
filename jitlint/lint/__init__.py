"""The per-file lint pipeline: parse, analyse, run the rules, map positions, apply noqa and fixes."""
