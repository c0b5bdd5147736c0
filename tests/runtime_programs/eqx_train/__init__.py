"""An Equinox + optax-style training program laid out as users lay one out, run with
`jitlint run -m eqx_train.train` (tests/runtime/test_frameworks.py)."""
