"""The analysis: pass 1 (index, prefilter), the value lattice, trace contexts, the module's facts, the evaluator
and the worklist running it, library knowledge (see docs/analysis.md)."""
