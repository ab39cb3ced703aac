"""Replicates of a long table (:func:`accord.measurements.replicates.replicates_of_rows`): the
repeated rows of an (item, rater) as the ratings the repeated-measures CCC and Deming from
replicates read.

Reference values: the same functions called on the raw long columns, the replicates paired
by hand (``repeated_concordance`` takes the rows as they are; ``deming`` takes the l-th
replicate of x beside the l-th of y, with the subject of each pair).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import accord
from accord import ColumnNotFoundError, InvalidInputError
from accord.measurements.regression import method_regression
from accord.measurements.repeated_concordance import concordance_of_replicates
from accord.measurements.replicates import has_repeats, replicates_of_rows

# Five patients, methods a and b; a measured each patient three times, b twice (patient 5:
# once). Rows in file order; "rep" numbers the replicates, and b's are replicates 2 and 3
# of a's (b missed the first occasion).
ROWS = [
    # patient, method, rep, value
    (1, "a", 1, 10.0), (1, "a", 2, 11.0), (1, "a", 3, 10.5), (1, "b", 2, 10.2), (1, "b", 3, 11.4),
    (2, "a", 1, 20.0), (2, "a", 2, 21.5), (2, "a", 3, 20.4), (2, "b", 2, 22.0), (2, "b", 3, 21.1),
    (3, "a", 1, 15.0), (3, "a", 2, 14.2), (3, "a", 3, 15.9), (3, "b", 2, 16.3), (3, "b", 3, 15.5),
    (4, "a", 1, 30.1), (4, "a", 2, 29.0), (4, "a", 3, 30.6), (4, "b", 2, 31.2), (4, "b", 3, 30.2),
    (5, "a", 1, 25.3), (5, "a", 2, 24.1), (5, "a", 3, 25.0), (5, "b", 2, 26.4),
]  # fmt: skip


def frame() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["patient", "method", "rep", "value"])


def test_the_ccc_of_the_replicates_is_that_of_the_raw_rows() -> None:
    df = frame()
    want = accord.repeated_concordance(df["value"], df["patient"], df["method"])
    for column in (None, "rep"):  # the CCC does not depend on how replicates are paired
        reps = replicates_of_rows(df, item="patient", rater="method", label="value",
                                  replicate=column)  # fmt: skip
        assert (reps.n_subjects, reps.most_replicates) == (5, 3)
        got = concordance_of_replicates(reps.ratings, reps.subject)
        assert got.n_measurements == len(df) and not got.balanced
        for name in ("statistic", "between_subjects", "subject_method", "within",
                     "between_methods", "standard_error"):  # fmt: skip
            assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-12)
        assert tuple(got.ci) == pytest.approx(tuple(want.ci), rel=1e-12)


def _deming_by_hand(pairs: list[tuple[int, int, int]]) -> accord.Deming:
    """Deming of b on a (as method_regression puts the second rater on the first's axis:
    x = b, y = a) from the replicate pairs ``(patient, rep of a, rep of b)``."""
    value = {(p, m, r): v for p, m, r, v in ROWS}
    x = [value[(p, "b", rb)] for p, _, rb in pairs]
    y = [value[(p, "a", ra)] for p, ra, _ in pairs]
    return accord.deming(x, y, subject=[p for p, _, _ in pairs], error_ratio="replicates",
                         names=("b", "a"))  # fmt: skip


def test_the_replicate_column_pairs_the_replicates_for_deming() -> None:
    df = frame()
    by_column = [(p, r, r) for p in range(1, 5) for r in (2, 3)] + [(5, 2, 2)]
    by_order = [(p, r, r + 1) for p in range(1, 5) for r in (1, 2)] + [(5, 1, 2)]
    for column, pairs in (("rep", by_column), (None, by_order)):
        reps = replicates_of_rows(df, item="patient", rater="method", label="value",
                                  replicate=column)  # fmt: skip
        got = method_regression(reps.ratings, method="deming", error_ratio="replicates",
                                subject=reps.subject).fits[0]  # fmt: skip
        want = _deming_by_hand(pairs)
        assert (got.first, got.second, got.n_pairs, got.n_measurements) == ("b", "a", 5, 9)
        for name in ("slope", "intercept", "slope_se", "intercept_se", "error_ratio",
                     "within_sd_x", "within_sd_y"):  # fmt: skip
            assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-12)
    # the pairing changes the ratio: the two readings differ
    assert _deming_by_hand(by_column).error_ratio != pytest.approx(
        _deming_by_hand(by_order).error_ratio, rel=1e-6
    )


def test_rows_in_another_order_number_the_same_replicates_by_column() -> None:
    df = frame()
    # rows shuffled, rater a still first (the raters keep the order in which they appear)
    shuffled = df.sample(frac=1.0, random_state=1).sort_values("method", kind="stable")
    a = replicates_of_rows(df, item="patient", rater="method", label="value", replicate="rep")
    b = replicates_of_rows(shuffled, item="patient", rater="method", label="value",
                           replicate="rep")  # fmt: skip
    fit = {
        k: method_regression(r.ratings, method="deming", error_ratio="replicates",
                             subject=r.subject).fits[0].slope
        for k, r in (("a", a), ("b", b))
    }  # fmt: skip
    assert fit["a"] == pytest.approx(fit["b"], rel=1e-12)
    # numbered by the shuffled order instead, the pairs (and the line) are others
    c = replicates_of_rows(shuffled, item="patient", rater="method", label="value")
    other = method_regression(c.ratings, method="deming", error_ratio="replicates",
                              subject=c.subject).fits[0].slope  # fmt: skip
    assert other != pytest.approx(fit["a"], rel=1e-6)


def test_missing_measurements_are_left_out_and_repeats_detected() -> None:
    df = frame()
    df.loc[0, "value"] = np.nan  # patient 1, a's first replicate
    reps = replicates_of_rows(df, item="patient", rater="method", label="value")
    assert reps.ratings.report.ratings == len(df) - 1
    assert has_repeats(df, "patient", "method", "value")
    once = df.drop_duplicates(["patient", "method"])
    assert not has_repeats(once, "patient", "method", "value")


def test_a_bad_replicate_column_is_refused_naming_it() -> None:
    df = frame()
    with pytest.raises(ColumnNotFoundError, match="'occasion'"):
        replicates_of_rows(df, item="patient", rater="method", label="value",
                           replicate="occasion")  # fmt: skip
    gap = df.astype({"rep": "float64"})
    gap.loc[3, "rep"] = np.nan
    with pytest.raises(InvalidInputError, match=r"column 'rep': no replicate on rows 4 "):
        replicates_of_rows(gap, item="patient", rater="method", label="value", replicate="rep")
    twice = df.copy()
    twice.loc[1, "rep"] = 1  # patient 1, a: replicate 1 twice (rows 1 and 2)
    with pytest.raises(InvalidInputError, match=r"rater 'a' measured item 1 more than once "
                       r"in replicate 1 \(rows 1, 2\)"):  # fmt: skip
        replicates_of_rows(twice, item="patient", rater="method", label="value",
                           replicate="rep")  # fmt: skip


def test_the_bundled_blood_pressure_is_what_its_script_writes() -> None:
    """``examples/blood-pressure.csv`` is ``benchmarks/make_replicates.py``'s output: 40
    patients x 2 devices x 3 visits, one reading each, so each device's readings of a patient
    are three replicates."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "make_replicates.py"
    spec = importlib.util.spec_from_file_location("make_replicates", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bundled = accord.datasets.path("blood-pressure.csv")
    assert bundled.read_text(encoding="utf-8").splitlines() == module.simulate()
    frame = pd.read_csv(bundled)
    assert len(frame) == 240
    cells = frame.groupby(["patient", "device", "visit"]).size()
    assert len(cells) == 240 and set(cells) == {1}
    assert frame.groupby(["patient", "device"]).size().eq(3).all()
