"""`values.join`'s fast path for two taints (`_join2`, almost every join the analysis makes) is the general
join (`_join_all`) of the two, and gives back the first taint itself when it already holds the second."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from jitlint.analysis.values import Taint, _join2, _join_all

pytestmark = pytest.mark.slow  # a 3,000-example hypothesis sweep

flags = st.booleans()


def taints(elements=None) -> st.SearchStrategy[Taint]:
    return st.builds(Taint, level=st.integers(0, 3), origin=st.sampled_from(["x", "y", "jnp.ones(3)"]),
                     is_bool=flags, is_array=flags, container=flags, filtered=flags, from_constant=flags,
                     opaque=flags, elements=elements if elements is not None else st.none(),
                     class_name=st.sampled_from([None, "MLP", "Encoder"]))


# taints whose elements are taints (or Python values, None), of a few lengths
nested = taints(st.none() | st.lists(st.none() | taints(), min_size=1, max_size=3).map(tuple))


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(nested, nested)
def test_the_join_of_two_is_the_general_join(a: Taint, b: Taint):
    assert _join2(a, b) == _join_all([a, b])
    assert _join2(a, a) is a
    joined = _join2(a, b)
    if joined == a:
        assert joined is a  # nothing new built when `a` already holds `b`
