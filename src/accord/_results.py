"""Result types shared by every coefficient.

Every coefficient returns a frozen dataclass carrying the statistic, what is needed for
inference, and the conventions used (``method``). Compute and display are separate: results
never print; presenters call :meth:`Coefficient.to_dict`.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._bands import Band, Distribution, Scale, ScaleLike, band_name, check_scale, membership, pick
from ._bootstrap import bootstrap_interval
from ._errors import InvalidInputError, warn_degenerate
from ._interval import CIMethod as CIMethod
from ._interval import ConfidenceInterval as ConfidenceInterval
from ._interval import check_level as check_level
from ._interval import t_interval as t_interval
from ._interval import t_pvalue as t_pvalue
from ._interval import t_quantile as t_quantile
from ._interval import t_sf as t_sf
from ._names import WORDS
from ._types import Alternative, FloatArray

#: Longest line and most lines of a result's ``repr``.
REPR_WIDTH = 100
REPR_LINES = 10


def to_plain(value: Any) -> Any:
    """Convert numpy, pandas and dataclass values to plain Python for JSON and dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return value.to_dict()
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, pd.DataFrame):
        return [
            {str(k): to_plain(v) for k, v in row.items()} for row in value.to_dict(orient="records")
        ]
    if isinstance(value, pd.Series):
        return [to_plain(v) for v in value.tolist()]
    if isinstance(value, np.ndarray):
        return [to_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    if isinstance(value, frozenset | set):  # a set of labels: its labels in order
        return sorted((to_plain(v) for v in value), key=lambda v: (type(v).__name__, v))
    return value


def plain_fields(result: Any, skip: Collection[str] = ()) -> dict[str, Any]:
    """The dataclass fields of ``result`` by name, as plain Python (:func:`to_plain`), but
    those named in ``skip``."""
    return {
        f.name: to_plain(getattr(result, f.name))
        for f in dataclasses.fields(result)
        if f.name not in skip
    }


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """Serialise a result (or anything :func:`to_plain` handles) to strict JSON.

    NaN and infinities become ``null``, as in the command line's JSON (whose envelope also lists
    where each infinity was); keys keep the result's field names.

    >>> dumps({"ratio": float("inf"), "kappa": float("nan"), "n": 3}, indent=None)
    '{"ratio": null, "kappa": null, "n": 3}'
    """
    return json.dumps(_nan_to_none(to_plain(value)), indent=indent, allow_nan=False)


def _short_value(value: Any) -> str:
    """One short display string for a field value: numbers to 4 significant digits, tables
    and arrays by their shape, long sequences by their length."""
    if isinstance(value, Result):
        head = value._headline() or type(value).__name__
        return head if len(head) <= 60 else head[:59] + "\u2026"
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return f"{int(value):,}" if abs(int(value)) >= 10_000 else str(int(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):.4g}"
    if isinstance(value, pd.DataFrame):
        cols = ", ".join(map(str, value.columns[:6])) + (", ..." if value.shape[1] > 6 else "")
        return f"DataFrame {value.shape[0]} x {value.shape[1]} [{cols}]"
    if isinstance(value, pd.Series):
        return f"Series of {len(value)}"
    if isinstance(value, np.ndarray):
        return f"array {' x '.join(map(str, value.shape)) or 'scalar'} {value.dtype}"
    if isinstance(value, tuple | list) and len(value) > 6:
        head = ", ".join(_short_value(v) for v in value[:3])
        return f"({head}, ... {len(value)} in all)"
    if isinstance(value, tuple | list):
        return (
            "(" + ", ".join(_short_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
        )
    if isinstance(value, Mapping):
        return f"{type(value).__name__} of {len(value)}"
    if value is None:
        return "None"
    return str(value)


#: Lines the headline of a ``repr`` may take before it is cut.
HEADLINE_LINES = 3


def _wrapped(line: str) -> list[str]:
    """``line`` wrapped at :data:`REPR_WIDTH`, continued lines indented, at most
    :data:`HEADLINE_LINES` lines (the last cut with an ellipsis).

    >>> [len(line) for line in _wrapped("JudgeAgreement: " + "word " * 30)]
    [100, 68]
    """
    import textwrap

    text = " ".join(line.split())
    return textwrap.wrap(text, width=REPR_WIDTH, subsequent_indent="    ",
                         max_lines=HEADLINE_LINES, placeholder=" \u2026") or [text]  # fmt: skip


def _clip(line: str, width: int = REPR_WIDTH) -> str:
    line = " ".join(line.split()) if "\n" in line else line
    return line if len(line) <= width else line[: width - 1] + "\u2026"


class Result:
    """What every result shares for display: a short ``repr`` and an HTML table.

    ``repr`` is at most :data:`REPR_LINES` lines of at most :data:`REPR_WIDTH` characters:
    the class and its headline, then one line per field (tables and arrays by their shape).
    Notebooks show :meth:`_repr_html_`: the same fields as a table, and the result's table
    (``to_frame()``, or its first table field) under it. The fields themselves are unchanged;
    ``to_dict()`` gives all of them.

    A subclass that is a dataclass keeps this ``repr``: it is set on the subclass before
    the dataclass decorator runs, and a dataclass never replaces a ``__repr__`` the class
    already has.
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Result.__repr__  # type: ignore[method-assign]

    def _headline(self) -> str:
        """The class's one-line answer: its ``str`` when it defines one, else empty;
        subclasses override."""
        for klass in type(self).__mro__:
            if klass is Result or klass is object:
                break
            if "__str__" in klass.__dict__:
                return str(self)
        statistic = getattr(self, "statistic", None)
        if isinstance(statistic, float | int) and not isinstance(statistic, bool):
            return f"{getattr(self, 'name', 'statistic')} = {statistic:.4g}"
        return ""

    def _fields(self) -> list[tuple[str, Any]]:
        """The (name, value) pairs shown: the dataclass fields a plain repr would show."""
        if not dataclasses.is_dataclass(self):
            return []
        return [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self) if f.repr]

    def _repr_lines(self) -> list[str]:
        head = type(self).__name__
        headline = self._headline()
        # the headline is the answer: wrapped (up to HEADLINE_LINES lines), not cut
        lines = _wrapped(f"{head}: {headline}" if headline else head)
        body: list[str] = []
        for name, value in self._fields():
            if (
                isinstance(value, tuple | list)
                and value
                and all(isinstance(v, Result) for v in value)
            ):
                body.append(f"  {name}: {len(value)}")
                body += [_clip(f"    {v._headline() or type(v).__name__}") for v in value]
            else:
                body.append(_clip(f"  {name}: {_short_value(value)}"))
        room = REPR_LINES - len(lines)
        if len(body) > room:
            rest = len(body) - (room - 1)
            body = [*body[: room - 1], f"  ... {rest} more lines (all fields in to_dict())"]
        return lines + body

    def __repr__(self) -> str:
        return "\n".join(self._repr_lines())

    def _table(self) -> pd.DataFrame | None:
        """The table a notebook shows under the fields: ``to_frame()`` or the first frame."""
        to_frame = getattr(self, "to_frame", None)
        if callable(to_frame):
            try:
                frame = to_frame()
            except Exception:  # a result whose table needs arguments shows its fields only
                frame = None
            if isinstance(frame, pd.DataFrame):
                return frame
        for _, value in self._fields():
            if isinstance(value, pd.DataFrame):
                return value
        return None

    def _words(self) -> str:
        """The sentence the command line and the report print for this result
        (:data:`WORDS`), or empty when none is registered or it cannot be written."""
        for klass in type(self).__mro__:
            words = WORDS.get(klass.__name__)
            if words is not None:
                try:
                    return words(self)
                except Exception:  # a display never raises: the fields still show
                    return ""
        return ""

    def _repr_markdown_(self) -> str:
        """The result in Markdown: its class and headline, the sentence the command line
        prints (:meth:`_words`), and its fields as a table."""
        headline, words = self._headline(), self._words()

        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        lines = [f"**{type(self).__name__}**" + (f": {cell(headline)}" if headline else "")]
        lines += [f"\n{cell(words)}"] if words else []
        lines += ["", "| field | value |", "|---|---|"]
        lines += [f"| {name} | {cell(_short_value(v))} |" for name, v in self._fields()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """An HTML table of the fields and the result's table (first 20 rows), under the
        sentence the command line prints (:meth:`_words`)."""
        esc = html.escape
        headline = self._headline()
        words = self._words()
        rows = "".join(
            f"<tr><th style='text-align:left'>{esc(name)}</th>"
            f"<td style='text-align:left'>{esc(_short_value(value))}</td></tr>"
            for name, value in self._fields()
        )
        out = (
            f"<div class='accord-result'><table><caption style='text-align:left'>"
            f"<b>{esc(type(self).__name__)}</b>"
            + (f": {esc(headline)}" if headline else "")
            + f"</caption><tbody>{rows}</tbody></table>"
        )
        if words:
            out = out.replace(
                "<table>", f"<p class='accord-words'><b>{esc(words)}</b></p><table>", 1
            )
        table = self._table()
        if table is not None:
            more = len(table) - 20
            out += table.head(20).to_html(index=False, na_rep="NaN", float_format="{:.4g}".format)
            if more > 0:
                out += f"<p>... {more} more rows</p>"
        return out + "</div>"


class Record(Result):
    """A result whose :meth:`to_dict` is its fields as plain Python (:func:`plain_fields`)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return plain_fields(self)


@dataclasses.dataclass(frozen=True, slots=True)
class Coefficient(Result):
    """A chance-corrected agreement coefficient with what is needed for inference.

    Attributes
    ----------
    name : str
        The coefficient's function name, e.g. ``"fleiss_kappa"``.
    statistic : float
        The estimate; NaN when undefined for the data (see ``reason``).
    standard_error : float
        The general (non-null) standard error, of the kind ``se_kind`` says; NaN where none
        is available.
    n_items : int
        Items that entered the estimate.
    n_raters : int
        Raters with at least one rating among those items.
    categories : tuple
        The category domain used (declared, or observed sorted values).
    method : str
        The variant, the chance model and the variance formula, in words.
    observed_agreement, chance_agreement : float
        ``p_a`` and ``p_e`` of ``(p_a - p_e) / (1 - p_e)`` (for alpha, ``1 - D_o`` and
        ``1 - D_e`` on the agreement-weight scale).
    weights : str
        Name of the weighting scheme (``"identity"`` when unweighted).
    standard_error_null : float
        Standard error under the hypothesis ``statistic = 0`` where one is classic, else NaN.
    n_items_unpairable : int
        Items with fewer than two ratings (no pair to compare).
    population_size : float
        Number of items in the population for the finite-population correction
        (``inf`` when none was applied).
    reason : str or None
        Why the statistic is NaN, when it is.
    bounds : tuple of float
        The coefficient's range; analytic intervals are truncated to it.
    se_kind : {"raters", "items", "unconditional"}
        Which standard error ``standard_error`` is (kappaetc's ``se()``): conditional on
        the raters (the items are the sample; the default), conditional on the items (the
        raters are the sample: a jackknife over raters) or unconditional (both).
    rater_population_size : float
        Raters in the population for the finite-population correction of the variance
        over raters (``inf`` when none was applied).
    standard_error_given_raters, standard_error_given_items : float
        The two components: the standard error conditional on the raters (Gwet's
        linearisation over items) and conditional on the items (the jackknife over
        raters; NaN unless it was asked for). The unconditional standard error is the
        square root of the sum of their squares.
    test_value : float
        The value the p-value tests (kappaetc's ``testvalue()``; 0 by default).
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis of the p-value.
    replicates : ndarray or None
        Bootstrap replicates, when a bootstrap was run.
    jackknife : ndarray or None
        Leave-one-item-out values, for BCa intervals.
    rater_jackknife : ndarray or None
        Leave-one-rater-out values, when the jackknife over raters was run.
    """

    name: str
    statistic: float
    standard_error: float
    n_items: int
    n_raters: int
    categories: tuple[Any, ...]
    method: str
    observed_agreement: float = math.nan
    chance_agreement: float = math.nan
    weights: str = "identity"
    standard_error_null: float = math.nan
    n_items_unpairable: int = 0
    population_size: float = math.inf
    reason: str | None = None
    bounds: tuple[float, float] = (-1.0, 1.0)
    se_kind: str = "raters"
    rater_population_size: float = math.inf
    standard_error_given_raters: float = math.nan
    standard_error_given_items: float = math.nan
    test_value: float = 0.0
    alternative: str = "two-sided"
    replicates: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)
    jackknife: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)
    rater_jackknife: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)

    def _headline(self) -> str:
        form = getattr(self, "form", "")
        if form:
            name = f"{self.name} {form}"
        elif self.weights not in ("identity", ""):
            name = f"{self.name} ({self.weights})"
        else:
            name = self.name
        try:
            ci = self.confidence_interval()
            interval = (
                f" (95% CI {ci.low:.4g} to {ci.high:.4g})"
                if math.isfinite(ci.low) and math.isfinite(ci.high)
                else ""
            )
        except Exception:  # an interval that needs what the result lacks is left out
            interval = ""
        return f"{name} = {self.statistic:.4g}{interval}"

    def _fields(self) -> list[tuple[str, Any]]:
        shown: list[tuple[str, Any]] = [
            ("standard_error", self.standard_error),
            ("n_items", self.n_items),
            ("n_raters", self.n_raters),
            ("categories", self.categories),
            ("weights", self.weights),
            ("method", self.method),
        ]
        if self.se_kind != "raters":
            shown.insert(1, ("se_kind", self.se_kind))
        if self.test_value != 0.0 or self.alternative != "two-sided":
            shown.insert(1, ("test", f"{self.alternative} against {self.test_value:g}"))
        if self.reason:
            shown.insert(0, ("reason", self.reason))
        return shown

    @property
    def df(self) -> float:
        """Degrees of freedom of the t reference, as kappaetc: ``n_items - 1`` for the
        standard error conditional on the raters, ``n_raters - 1`` for the one conditional
        on the items, and ``inf`` (the normal) for the unconditional one."""
        if self.se_kind == "items":
            return max(self.n_raters - 1, 0)
        if self.se_kind == "unconditional":
            return math.inf
        return max(self.n_items - 1, 0)

    @property
    def n_categories(self) -> int:
        """Number of categories in the domain."""
        return len(self.categories)

    @property
    def pvalue(self) -> float:
        """p-value of ``statistic = test_value`` against ``alternative`` (two-sided test of
        0 by default; t reference on :attr:`df` degrees of freedom)."""
        return self.test(self.alternative)  # type: ignore[arg-type]

    @property
    def test_statistic(self) -> float:
        """The t (or, with ``inf`` df, z) statistic ``(statistic - test_value) / SE``."""
        se = self.standard_error
        if not (math.isfinite(self.statistic) and math.isfinite(se)) or se <= 0.0:
            return math.nan
        return (self.statistic - self.test_value) / se

    @property
    def ci_description(self) -> str:
        """How the interval of :meth:`to_dict` is computed, in words (its ``ci_method``).

        Results whose default interval is not the t interval override this property.
        """
        if self.df == math.inf:
            return f"normal interval, truncated to {list(self.bounds)}"
        return f"t interval, {self.df} df, truncated to {list(self.bounds)}"

    def test(self, alternative: Alternative = "two-sided") -> float:
        """p-value of ``statistic = test_value`` (0 unless the coefficient was computed
        with another ``test_value``) against ``alternative`` with the general SE: a
        two-sided alternative, ``"greater"`` (H0: at most ``test_value``; kappaetc's
        ``testvalue(<#)``) or ``"less"`` (H0: at least; ``testvalue(>#)``)."""
        return t_pvalue(self.statistic - self.test_value, self.standard_error, self.df,
                        alternative)  # fmt: skip

    def confidence_interval(
        self, level: float = 0.95, method: CIMethod = "analytic"
    ) -> ConfidenceInterval:
        """Confidence interval for the coefficient.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level, any value strictly between 0 and 1.
        method : {"analytic", "percentile", "bca"}
            ``"analytic"``: statistic +- t(1 - alpha/2, n_items - 1) * SE, truncated to
            ``bounds``. ``"percentile"`` and ``"bca"`` need bootstrap ``replicates``.
        """
        check_level(level)
        if method == "analytic":
            return t_interval(self.statistic, self.standard_error, self.df, level, self.bounds)
        if method in ("percentile", "bca"):
            return bootstrap_interval(
                self.statistic, self.replicates, self.jackknife, level=level, method=method
            )
        raise InvalidInputError(
            "The 'method' parameter of confidence_interval must be one of "
            f"{{'analytic', 'percentile', 'bca'}}. Got {method!r} instead."
        )

    def benchmark(
        self,
        scale: ScaleLike = "landis-koch",
        level: float = 0.95,
        *,
        distribution: Distribution = "normal",
    ) -> Benchmark:
        """The probability that the coefficient lies in each band of a benchmark scale, and
        the band it reaches with probability ``level`` (Gwet 2014, ch. 6).

        Parameters
        ----------
        scale : {"landis-koch", "fleiss", "altman", "koo-li", "krippendorff"} or list
            The benchmark scale (:data:`accord._bands.SCALES`), or ascending
            ``(lower edge, name)`` pairs of the bands above the lowest one: ``[(0.667,
            "acceptable")]`` gives Hayes & Krippendorff's (2007) ``q = P(alpha < 0.667)`` as
            the probability of the lowest band.
        level : float, default 0.95
            The cumulative probability a band must reach to be retained.
        distribution : {"normal", "t", "bootstrap"}, default "normal"
            The distribution of the true coefficient: normal with the standard error (Gwet's
            choice), Student's t with ``n_items - 1`` df, or the bootstrap ``replicates``
            (needs ``ci="bootstrap"``). The first two are truncated to ``[-1, 1]``.

        Returns
        -------
        Benchmark
            The band table (top band first) and the band retained.

        Raises
        ------
        InvalidInputError
            Percent agreement (not chance-corrected), an unknown scale or distribution, or
            ``"bootstrap"`` without replicates.

        Examples
        --------
        Gwet's AC1 of 0.77544 with standard error 0.14295 (irrCAC's benchmarking vignette):
        substantial on its face, moderate once its uncertainty is counted.

        >>> from accord import Coefficient
        >>> ac1 = Coefficient("gwet_ac1", 0.77544, 0.14295, 12, 4, (1, 2, 3, 4, 5), "")
        >>> b = ac1.benchmark("landis-koch")
        >>> b.band, b.point_band, round(b.probability, 5)
        ('moderate', 'substantial', 0.99542)
        """
        return make_benchmark(self, scale, level, distribution)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain-Python dict of the result's fields plus the default interval and p-value."""
        out = coefficient_fields(self, level)
        ci = self.confidence_interval(level)
        out.update(ci_method=self.ci_description, ci_low=ci.low, ci_high=ci.high)
        return out


def coefficient_fields(result: Coefficient, level: float) -> dict[str, Any]:
    """The fields of a coefficient as plain Python (no replicates), plus df, p-value and level:
    :meth:`Coefficient.to_dict` without its interval."""
    out = plain_fields(result, ("replicates", "jackknife", "rater_jackknife"))
    out.update(
        n_categories=result.n_categories,
        df=result.df,
        pvalue=result.pvalue,
        alternative=result.alternative,
        test_statistic=result.test_statistic,
        se_method=_se_words(result),
        confidence_level=level,
    )
    return out


def _se_words(result: Coefficient) -> str:
    """What the standard error answers (:data:`SE_WORDS`); empty for a result without one
    (the ICC's F test, Light's bootstrap) unless another kind was asked for."""
    if result.se_kind == "raters" and not math.isfinite(result.standard_error):
        return ""
    return SE_WORDS.get(result.se_kind, result.se_kind)


#: What each standard error answers, in words (the ``se_method`` of a coefficient's dict).
SE_WORDS = {
    "raters": "conditional on the raters (items sampled): generalises to other items rated "
    "by these raters",
    "items": "conditional on the items (raters sampled; jackknife over raters, Gwet 2008): "
    "generalises to other raters of these items",
    "unconditional": "unconditional (items and raters sampled; Gwet 2008: the sum of the "
    "two variances): generalises to other items and other raters",
}


def undefined_fields(reason: str, fields: Mapping[str, Any], stacklevel: int = 3) -> dict[str, Any]:
    """The fields of a coefficient that is undefined on its data: NaN statistic and standard
    error with the ``reason``, after a :class:`~accord.DegenerateDataWarning` that names it
    (``stacklevel`` counted from the function that calls this one: 3, its caller).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     out = undefined_fields("every rating is in one category", {"name": "kappa"})
    >>> out["statistic"], out["reason"], out["name"]
    (nan, 'every rating is in one category', 'kappa')
    """
    warn_degenerate(reason, stacklevel=stacklevel + 1)
    return dict(statistic=math.nan, standard_error=math.nan, reason=reason, **fields)


#: Coefficients that are not chance-corrected: no benchmark scale applies to them.
NOT_BENCHMARKED = frozenset({"percent_agreement"})


@dataclasses.dataclass(frozen=True, slots=True)
class Benchmark(Result):
    """A coefficient read against a benchmark scale with its uncertainty (Gwet 2014, ch. 6).

    Attributes
    ----------
    coefficient : str
        The coefficient's name, e.g. ``"fleiss_kappa"``.
    statistic, standard_error : float
        The estimate and the standard error the probabilities come from.
    scale : str
        The scale's name (``"custom"`` for bands given as a list).
    source : str
        Who proposed the scale, e.g. ``"Landis & Koch"``.
    level : float
        The cumulative probability a band must reach to be retained.
    distribution : str
        ``"normal"``, ``"t"`` or ``"bootstrap"``.
    df : float
        Degrees of freedom of the t reference (``inf`` for the normal).
    n_replicates : int
        Bootstrap replicates used (0 unless ``distribution="bootstrap"``).
    bands : tuple of Band
        Top band first: ``name``, ``low``, ``high``, ``probability`` (that the true value
        lies in the band) and ``cumulative`` (that it lies in the band or above).
    band : str
        The highest band whose cumulative probability reaches ``level`` ("undefined" when
        the probabilities are NaN).
    threshold : float
        The lower edge of that band (the true value is at least this with probability
        :attr:`probability`).
    probability : float
        The cumulative probability of the band retained.
    point_band : str
        The band the estimate itself falls in.
    reason : str or None
        Why the probabilities are NaN, when they are.
    """

    coefficient: str
    statistic: float
    standard_error: float
    scale: str
    source: str
    level: float
    distribution: str
    df: float
    n_replicates: int
    bands: tuple[Band, ...]
    band: str
    threshold: float
    probability: float
    point_band: str
    reason: str | None = None

    def __str__(self) -> str:
        if self.reason:
            return f"{self.source}: undefined ({self.reason})"
        return (
            f"{self.source}: {self.band}, P(true >= {self.threshold:.3g}) = "
            f"{self.probability:.3f}; the estimate alone: {self.point_band}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per band, top band first: band, low, high, probability, cumulative."""
        return pd.DataFrame(
            [b._asdict() for b in self.bands],
            columns=["name", "low", "high", "probability", "cumulative"],
        ).rename(columns={"name": "band"})

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields, the bands as one dict each."""
        out = {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        out["bands"] = [dict(b._asdict()) for b in self.bands]
        return out


def make_benchmark(
    coef: Coefficient, scale: ScaleLike, level: float, distribution: Distribution
) -> Benchmark:
    """:meth:`Coefficient.benchmark`: check the options and fill the band table."""
    if coef.name in NOT_BENCHMARKED:
        raise InvalidInputError(
            f"{coef.name} is not chance-corrected: no benchmark scale applies to it"
        )
    sc: Scale = check_scale(scale)
    check_level(level)
    if distribution not in ("normal", "t", "bootstrap"):
        raise InvalidInputError(
            "The 'distribution' parameter of benchmark must be one of {'normal', 't', "
            f"'bootstrap'}}. Got {distribution!r} instead."
        )
    replicates = None
    if distribution == "bootstrap":
        if coef.replicates is None:
            raise InvalidInputError(
                "benchmark(distribution='bootstrap') needs bootstrap replicates: compute the "
                "coefficient with ci='bootstrap'"
            )
        replicates = [float(v) for v in np.asarray(coef.replicates).ravel()]
    df = float(coef.df) if distribution == "t" else math.inf
    if distribution == "t" and coef.df < 1:
        df = math.nan
    se = math.nan if math.isnan(df) else coef.standard_error
    bands = membership(sc, coef.statistic, se, df=df, replicates=replicates)
    chosen = pick(bands, level)
    reason = None
    if chosen is None:
        reason = _benchmark_reason(coef, distribution, df)
    return Benchmark(
        coefficient=coef.name,
        statistic=coef.statistic,
        standard_error=coef.standard_error,
        scale=sc.key,
        source=sc.source,
        level=level,
        distribution=distribution,
        df=df,
        n_replicates=0 if replicates is None else len(replicates),
        bands=bands,
        band="undefined" if chosen is None else chosen.name,
        threshold=math.nan if chosen is None else chosen.low,
        probability=math.nan if chosen is None else chosen.cumulative,
        point_band=band_name(coef.statistic, sc),
        reason=reason,
    )


def _benchmark_reason(coef: Coefficient, distribution: str, df: float) -> str:
    if not math.isfinite(coef.statistic):
        return f"the coefficient is undefined: {coef.reason or 'NaN'}"
    if distribution == "bootstrap":
        return "no bootstrap replicate is finite"
    if math.isnan(df):
        return "the t reference needs at least two items"
    return f"no standard error: {coef.reason or 'NaN'}"
