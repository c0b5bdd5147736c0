"""BlackJAX: the top-level algorithms (`blackjax.nuts(...)`, `blackjax.meanfield_vi(...)`, ...) return
`SamplingAlgorithm`/`VIAlgorithm`/`AdaptationAlgorithm` NamedTuples of functions (`init`, `step`), stable
at every access."""

from __future__ import annotations

STABLE_FIELD_FACTORIES = {"blackjax.": "a BlackJAX algorithm"}
