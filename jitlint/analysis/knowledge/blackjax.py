"""BlackJAX: the top-level algorithms (`blackjax.nuts(...)`, `blackjax.meanfield_vi(...)`, ...) return
`SamplingAlgorithm`/`VIAlgorithm`/`AdaptationAlgorithm` NamedTuples of functions (`init`, `step`), stable
at every access. The SMC step calls the functions it is given (the mutation kernel, the weights, the
resampling) each time it runs."""

from __future__ import annotations

STABLE_FIELD_FACTORIES = {"blackjax.": "a BlackJAX algorithm"}
CALLERS = {"blackjax.smc.base.step"}
