"""``agreement(inference=accord.Inference(...))``, and the keywords it replaced, deprecated."""

from __future__ import annotations

import pytest

import accord


def rows(table: accord.AgreementTable) -> list[tuple[str, float, float, float]]:
    return [(c.name, c.statistic, c.standard_error, c.test_value) for c in table.coefficients]


def test_the_old_inference_keywords_warn_and_give_the_same_table() -> None:
    r = accord.datasets.load_diagnoses()
    wanted = ["fleiss_kappa", "gwet_ac1"]
    new = accord.agreement(
        r,
        coefficients=wanted,
        inference=accord.Inference(
            se="unconditional", rater_population_size=60, test_value=0.4, alternative="greater"
        ),
    )
    with pytest.warns(DeprecationWarning, match=r"pass inference=accord\.Inference\(se="):
        old = accord.agreement(
            r,
            coefficients=wanted,
            se="unconditional",
            rater_population_size=60,
            test_value=0.4,
            alternative="greater",
        )
    assert rows(old) == rows(new)
    assert new.coefficients[0].test_value == 0.4  # the options reached the rows


def test_the_old_bootstrap_keywords_warn_and_give_the_same_intervals() -> None:
    r = accord.datasets.load_diagnoses()
    new = accord.agreement(
        r,
        coefficients=["fleiss_kappa"],
        inference=accord.Inference(ci="bootstrap", n_boot=1000, seed=3, population_size=100),
    )
    with pytest.warns(DeprecationWarning, match=r"agreement\(ci=\.\.\., n_boot=\.\.\., rng="):
        old = accord.agreement(
            r,
            coefficients=["fleiss_kappa"],
            ci="bootstrap",
            n_boot=1000,
            rng=3,
            population_size=100,
        )
    one, other = old.to_frame().iloc[0], new.to_frame().iloc[0]
    assert "BCa" in other["ci_method"]
    keys = ("statistic", "ci_low", "ci_high", "standard_error", "population_size")
    assert [one[k] for k in keys] == [other[k] for k in keys]
    assert other["population_size"] == 100


def test_an_old_keyword_with_the_new_object_is_a_one_line_error() -> None:
    with pytest.raises(accord.InvalidInputError, match=r"got se and inference=") as caught:
        accord.agreement(accord.datasets.load_diagnoses(), se="items", inference=accord.Inference())
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("inference", "match"),
    [
        (accord.Inference(ci="jackknife"), "ci"),
        (accord.Inference(se="subject"), "'se' parameter of agreement"),
        (accord.Inference(confidence_level=1.5), "confidence_level"),
        (accord.Inference(confidence_level=0.9), "intervals are at 95%"),
        ({"se": "items"}, "must be an accord.Inference"),
    ],
)
def test_bad_inference_is_a_clear_error(inference: object, match: str) -> None:
    with pytest.raises(accord.InvalidInputError, match=match):
        accord.agreement(accord.datasets.load_diagnoses(), inference=inference)  # type: ignore[arg-type]
