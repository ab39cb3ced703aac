"""Steps of the EM loop computed faster than numpy's own call, to the same bits."""

from __future__ import annotations

import numpy as np
import pytest

from accord.truth._em import column_means


@pytest.mark.parametrize("q", [2, 3, 5, 8, 13, 33])
@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 1000, 70_001])
def test_column_means_are_numpys_mean_to_the_last_bit(q: int, n: int) -> None:
    rng = np.random.default_rng(q * 1000 + n)
    x = rng.random((n, q)) * rng.choice([1e-8, 1.0, 1e3], size=(n, 1))  # terms of any size
    assert np.array_equal(column_means(x), x.mean(axis=0))
    column_major = np.asfortranarray(x)  # numpy adds pairwise here: the mean itself
    assert np.array_equal(column_means(column_major), column_major.mean(axis=0))
