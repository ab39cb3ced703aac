"""Agreement on each label of set-valued ratings: the label present or absent in each
rater's set, as a binary rating; kappa, alpha and positive specific agreement per label,
with macro (mean over labels) and micro (labels pooled) summaries."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError, option
from .._results import Coefficient, Result, plain_fields, to_plain
from .._types import BoolArray, FloatArray
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from .many_raters import fleiss_kappa, krippendorff_alpha
from .specific_many import pooled_specific_agreement
from .two_raters import cohen_kappa

__all__ = ["PerLabelAgreement", "per_label_agreement"]

#: The two categories of a label in a rater's set.
PRESENCE = ("absent", "present")

_MEASURES = ("kappa", "alpha", "psa")


@dataclasses.dataclass(frozen=True, slots=True)
class PerLabelAgreement(Result):
    """Agreement on each label of set-valued ratings, and its macro and micro summaries.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per label: ``label``; ``n_present`` (sets holding it) and ``prevalence``
        (their share of the sets); ``kappa``, ``kappa_se``, ``alpha``, ``alpha_se``,
        ``psa``, ``psa_se``; ``reason`` (why a value is NaN, else empty).
    kappa : str
        Which kappa: ``"cohen_kappa"`` (two raters) or ``"fleiss_kappa"``.
    macro_kappa, macro_alpha, macro_psa : float
        The mean over the labels where the measure is defined.
    micro_kappa, micro_alpha, micro_psa : float
        The measure on every (item, label) pooled into one binary rating.
    n_items, n_raters, n_labels : int
        Items and raters with a set; labels in the domain.
    """

    table: pd.DataFrame
    kappa: str
    macro_kappa: float
    macro_alpha: float
    macro_psa: float
    micro_kappa: float
    micro_alpha: float
    micro_psa: float
    n_items: int
    n_raters: int
    n_labels: int

    def __str__(self) -> str:
        return (
            f"per-label agreement over {self.n_labels} labels: macro {self.kappa} = "
            f"{self.macro_kappa:.4g}, alpha = {self.macro_alpha:.4g}, PSA = "
            f"{self.macro_psa:.4g}; micro {self.kappa} = {self.micro_kappa:.4g}, "
            f"alpha = {self.micro_alpha:.4g}, PSA = {self.micro_psa:.4g}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-label table."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain dict: the summaries and the table as a list of rows."""
        out = plain_fields(self, ("table",))
        out["labels"] = to_plain(self.table)
        return out


def _binary(ratings: Ratings, present: BoolArray, **codes: Any) -> Ratings:
    """The ratings with each set replaced by whether it holds a label (absent/present)."""
    return dataclasses.replace(
        ratings,
        label_codes=present.astype(np.int64),
        categories=PRESENCE,
        categories_declared=True,
        category_order="absent < present",
        label_sets=None,
        values=None,
        **codes,
    )


def _measures(binary: Ratings, two: bool) -> tuple[list[float], str]:
    """Kappa, alpha and PSA of binary ratings with their SEs, and why any is NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        kappa: Coefficient = cohen_kappa(binary) if two else fleiss_kappa(binary)
        alpha = krippendorff_alpha(binary)
        psa = pooled_specific_agreement(binary, positive="present")
    values = [
        kappa.statistic,
        kappa.standard_error,
        alpha.statistic,
        alpha.standard_error,
        psa.statistic,
        psa.standard_error,
    ]
    reasons = dict.fromkeys(r for r in (kappa.reason, alpha.reason, psa.reason) if r)
    return [float(v) for v in values], "; ".join(reasons)


def per_label_agreement(ratings: Ratings, **read_options: Never) -> PerLabelAgreement:
    r"""Agreement on each label of set-valued ratings, as present or absent.

    Each label becomes a binary rating: for every (item, rater) with a set, whether the set
    holds the label. On it: kappa (Cohen's for two raters, Fleiss' for more), Krippendorff's
    alpha (nominal) and the pooled positive specific agreement
    :math:`PSA = \sum_i n_i^+(n_i^+ - 1) / \sum_i n_i^+(n_i - 1)` (two raters:
    :math:`2a / (2a + b + c)`). The macro summary is the mean over the labels where a
    measure is defined; the micro summary computes each measure once on every
    (item, label) pooled as one binary item.

    Parameters
    ----------
    ratings : Ratings
        Set-valued ratings (``multi_label=True``).

    Returns
    -------
    PerLabelAgreement
        ``table`` (one row per label), ``macro_*`` and ``micro_*`` summaries, ``kappa``
        (which kappa), ``n_items``, ``n_raters``, ``n_labels``.

    Notes
    -----
    A label no rater gave (or every rater always gave) has no disagreement to expect:
    kappa and alpha are NaN there, with the reason in the table, and the macro means leave
    it out. Items a rater did not rate are missing for every label, never "absent".

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Uebersax, J. S. (1982). A design-independent method for measuring the
       reliability of psychiatric diagnosis. Journal of Psychiatric Research, 17(4),
       335-342. https://doi.org/10.1016/0022-3956(82)90039-5

    Examples
    --------
    >>> import pandas as pd, accord
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                       "label": [["x", "y"], ["x"], ["y"], ["y"], [], ["x"]]})
    >>> r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label",
    ...                              multi_label=True)
    >>> res = per_label_agreement(r)
    >>> res.table[["label", "n_present", "psa"]].round(4).to_dict("list")
    {'label': ['x', 'y'], 'n_present': [3, 3], 'psa': [0.6667, 0.6667]}
    """
    refuse_read_options("per_label_agreement", read_options)
    sets = ratings.label_sets
    if not isinstance(ratings, Ratings) or sets is None:
        raise InvalidInputError(
            "per_label_agreement needs set-valued ratings: read them with "
            f"{option('multi_label', True)}"
        )
    two = _n_raters(ratings) == 2
    held = sets.of(ratings.label_codes)  # (n_ratings, n_labels)
    rows = []
    for j, label in enumerate(sets.labels):
        values, reason = _measures(_binary(ratings, held[:, j]), two)
        n_present = int(held[:, j].sum())
        rows.append([label, n_present, n_present / max(ratings.n_ratings, 1), *values, reason])
    columns = ["label", "n_present", "prevalence"]
    columns += [f"{m}{s}" for m in _MEASURES for s in ("", "_se")] + ["reason"]
    table = pd.DataFrame(rows, columns=columns)
    micro = _measures(_pooled(ratings, held), two)[0] if sets.n_labels else [math.nan] * 6
    return PerLabelAgreement(
        table=table,
        kappa="cohen_kappa" if two else "fleiss_kappa",
        macro_kappa=_mean(table["kappa"]),
        macro_alpha=_mean(table["alpha"]),
        macro_psa=_mean(table["psa"]),
        micro_kappa=micro[0],
        micro_alpha=micro[2],
        micro_psa=micro[4],
        n_items=int(np.count_nonzero(np.bincount(ratings.item_codes, minlength=1))),
        n_raters=_n_raters(ratings),
        n_labels=sets.n_labels,
    )


def _pooled(ratings: Ratings, held: BoolArray) -> Ratings:
    """Every (item, label) as one binary item: label ``j`` of item ``i`` is item
    ``i * n_labels + j``."""
    n_labels = held.shape[1]
    items = (ratings.item_codes[:, None] * n_labels + np.arange(n_labels)).reshape(-1)
    decode = np.empty(ratings.n_items * n_labels, dtype=object)
    decode[:] = list(range(decode.size))
    return _binary(
        ratings,
        held.reshape(-1),
        item_codes=items.astype(np.int64),
        rater_codes=np.repeat(ratings.rater_codes, n_labels),
        items=decode,
    )


def _n_raters(ratings: Ratings) -> int:
    return int(np.count_nonzero(np.bincount(ratings.rater_codes, minlength=ratings.n_raters)))


def _mean(column: pd.Series) -> float:
    """Mean of the defined values (NaN when none is)."""
    values: FloatArray = column.to_numpy(dtype=np.float64)
    defined = values[np.isfinite(values)]
    return float(defined.mean()) if defined.size else math.nan
