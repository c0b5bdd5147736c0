"""The analysis: pass 1 (index, prefilter), the value lattice, trace contexts, the evaluator, library knowledge."""
