"""The counts view of the many-raters coefficients: ratings, item x category counts and
count patterns are one kind of input; the chance models are data; alpha has its module."""

from __future__ import annotations

import importlib
import inspect
import math
import re
import types
import typing
import warnings
from typing import Any

import krippendorff
import numpy as np
import pytest

import accord
from accord.agreement import _counts, many_raters
from accord.agreement import krippendorff as alpha_module
from accord.stats.patterns import CountPatterns

#: irrCAC's ``distrib.6raters`` (15 items, 6 raters, 5 categories): two pairs of items
#: share their counts, so its 15 rows are 13 count patterns.
DISTRIB_6RATERS = np.array(
    [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
     [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
     [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
)  # fmt: skip


def _patterns() -> CountPatterns:
    return CountPatterns.from_counts(DISTRIB_6RATERS)


def test_count_patterns_are_an_input_of_the_estimators() -> None:
    """Count patterns give the published values of their items.

    Gwet (2014), irrCAC 1.4 on ``distrib.6raters``: ``pa.coeff.dist`` 0.5511111 (SE
    0.06649714), ``gwet.ac1.dist`` 0.4448007 (SE 0.08418757).
    """
    patterns = _patterns()
    assert patterns.n_patterns == 13
    pa = accord.percent_agreement(patterns)
    assert (round(pa.statistic, 7), round(pa.standard_error, 8)) == (0.5511111, 0.06649714)
    assert pa.n_items == 15
    ac1 = accord.gwet_ac1(patterns)
    assert (round(ac1.statistic, 7), round(ac1.standard_error, 8)) == (0.4448007, 0.08418757)


def test_alpha_on_count_patterns_equals_the_peer_on_value_counts() -> None:
    # Peer: krippendorff.alpha(value_counts=DISTRIB_6RATERS, level_of_measurement=...)
    for level in ("nominal", "interval"):
        peer = krippendorff.alpha(value_counts=DISTRIB_6RATERS, level_of_measurement=level)
        ours = accord.krippendorff_alpha(
            _patterns(), level=level, categories=[1.0, 2.0, 3.0, 4.0, 5.0]
        )
        assert math.isclose(ours.statistic, peer, rel_tol=1e-12), level


def test_count_patterns_refuse_the_bootstrap_in_one_line() -> None:
    with pytest.raises(accord.InvalidInputError, match="ci='analytic'"):
        accord.fleiss_kappa(_patterns(), ci="bootstrap", n_boot=10, rng=0)


def test_one_row_per_item_is_multiplicity_one() -> None:
    view = _counts.prepare(DISTRIB_6RATERS)
    assert view.multiplicity is None and view.mult.is_unit
    assert view.items.n == 15 and view.items is view.items  # computed once
    np.testing.assert_array_equal(view.item_rows, np.arange(15))
    packed = _counts.prepare(_patterns())
    assert packed.items.n == 15 and packed.items.n2 == 15
    np.testing.assert_array_equal(packed.counts[packed.item_rows], DISTRIB_6RATERS)


# ------------------------------------------------------------------ chance models as data

MEMBERS = [
    many_raters._FLEISS_KAPPA,
    many_raters._GWET_AC1,
    many_raters._BRENNAN_PREDIGER,
    many_raters._PERCENT_AGREEMENT,
    many_raters._CONGER_KAPPA,
]


@pytest.mark.parametrize("member", MEMBERS, ids=lambda m: m.name)
def test_a_chance_model_holds_its_p_e_and_its_bootstrap_form(member: Any) -> None:
    """The bootstrap form of each chance model, at the totals of the whole sample, is the
    model's own p_e (the two are one object, not two dispatches on a name)."""
    rng = np.random.default_rng(4)
    wide = rng.integers(0, 3, size=(30, 4)).astype(float)
    wide[rng.random(wide.shape) < 0.2] = np.nan
    view = _counts.prepare(accord.Ratings.from_wide(wide))
    w = np.eye(3)
    pe, _, rater_feats = member.chance.on_view(view, w, "bootstrap")
    it = view.items
    pa_i = np.zeros(it.counts.shape[0])
    feats = many_raters._bootstrap_features(it, pa_i, rater_feats)
    totals = np.asarray(feats.sum(axis=0)).reshape(1, -1)
    pi = totals[:, 3:6] / totals[:, 2:3]
    assert math.isclose(member.chance.on_totals(totals, pi, w, 3)[0], pe, rel_tol=1e-12)


def test_brennan_prediger_chance_is_one_over_q() -> None:
    # By hand: uniform chance over 3 categories, identity weights: T_w / q^2 = 3/9.
    view = _counts.prepare(np.array([[2, 0, 0], [1, 1, 0]]))
    pe, pe_i, _ = many_raters._BRENNAN_PREDIGER.chance.on_view(view, np.eye(3), "analytic")
    assert pe == pytest.approx(1 / 3) and pe_i.tolist() == pytest.approx([1 / 3, 1 / 3])


def test_alpha_lives_in_its_own_module() -> None:
    assert accord.krippendorff_alpha is alpha_module.krippendorff_alpha
    assert many_raters.krippendorff_alpha is alpha_module.krippendorff_alpha
    assert not hasattr(many_raters, "_alpha_parts")
    assert not hasattr(many_raters, "_compress")


# ------------------------------------------------------------------ no private type in signatures


def _named(tp: Any) -> list[str]:
    """The names of the accord classes an annotation mentions (through unions, generics
    and type aliases)."""
    if isinstance(tp, type):
        return [tp.__qualname__] if tp.__module__.startswith("accord") else []
    names = []
    for arg in typing.get_args(tp):
        names += _named(arg)
    origin = typing.get_origin(tp)
    if isinstance(origin, type) and origin is not types.UnionType:
        names += _named(origin)
    return names


def _private_names(fn: Any) -> dict[str, list[str]]:
    """Per parameter, the private accord names its annotation mentions."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hints = typing.get_type_hints(fn)
    except TypeError:  # an annotation the running Python cannot evaluate: read its text
        raw = inspect.get_annotations(fn)
        return {k: re.findall(r"\b_[A-Za-z]\w*", str(v)) for k, v in raw.items()}
    return {k: [n for n in _named(tp) if n.startswith("_")] for k, tp in hints.items()}


def _estimators() -> list[tuple[str, Any]]:
    out = []
    # accord.agreement is the front door; the package of the estimators is the module
    for module in (accord, importlib.import_module("accord.agreement")):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                out.append((f"{module.__name__}.{name}", obj))
    return out


@pytest.mark.parametrize(
    ("name", "fn"), _estimators(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_no_public_signature_mentions_a_private_type(name: str, fn: Any) -> None:
    private = {k: v for k, v in _private_names(fn).items() if v}
    assert not private, f"{name} names private types in its signature: {private}"


class _Hidden:
    """A private type, as if defined in the package."""


_Hidden.__module__ = "accord.agreement._hidden"


def _leaky(data: accord.Ratings | _Hidden) -> None:
    """A front door that would leak a private type."""


def test_the_signature_check_sees_a_private_type() -> None:
    assert _private_names(_leaky) == {"data": ["_Hidden"], "return": []}
