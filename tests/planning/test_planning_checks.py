"""The planners' range checks say their ranges as a user reads them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import accord


@pytest.mark.parametrize(
    ("call", "words"),
    [
        # rho may be 0 (the bound -1e-12 inside is round-off), never 1
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=1.0, n_raters=2),
         "The 'rho1' parameter of sample_size_icc must be a number of at least 0 and below 1. "
         "Got 1.0 instead."),
        (lambda: accord.sample_size_icc(rho0=-0.2, rho1=0.5, n_raters=2),
         "The 'rho0' parameter of sample_size_icc must be a number of at least 0 and below 1. "
         "Got -0.2 instead."),
    ],
)  # fmt: skip
def test_a_bound_moved_by_round_off_is_said_as_its_round_value(
    call: Callable[[], object], words: str
) -> None:
    with pytest.raises(accord.InvalidInputError) as caught:
        call()
    assert str(caught.value) == words
    assert "e-12" not in str(caught.value)
    assert accord.sample_size_icc(rho0=0.0, rho1=0.5, n_raters=2).n_items > 0  # 0 is allowed
