"""A tiny package run with `jitlint run -m jaxapp --steps N`."""
