"""A Flax NNX training program laid out as users lay one out, run with `jitlint run -m nnx_train.train`
(tests/runtime/test_frameworks.py)."""
