"""The ANOVA G-study read in batches (the stream engine's fold) equals the G-study of the
same rows in memory, for crossed and nested designs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from accord._errors import InvalidInputError
from accord.agreement.gtheory import g_study
from accord.front.gstudy import g_study_files

HERE = Path(__file__).parents[1] / "reference" / "gtheory"
COLUMNS = ["variance", "df", "sum_of_squares", "mean_square", "standard_error",
           "df_satterthwaite", "ci_low", "ci_high"]  # fmt: skip


def _crossed(n_p: int = 40, seed: int = 3) -> pd.DataFrame:
    """A complete p x r x o design (4 raters, 3 occasions), text ids, shuffled rows."""
    rng = np.random.default_rng(seed)
    p, r, o = (a.ravel() for a in np.meshgrid(np.arange(n_p), np.arange(4), np.arange(3),
                                              indexing="ij"))  # fmt: skip
    y = rng.normal(0, 1, n_p)[p] + rng.normal(0, 0.5, 4)[r] + rng.normal(0, 0.3, 3)[o]
    y = y + rng.normal(0, 0.6, (n_p, 4))[p, r] + rng.normal(0, 0.7, p.size)
    frame = pd.DataFrame({"item": [f"i{k}" for k in p], "rater": [f"r{k}" for k in r],
                          "occasion": o + 1, "score": y})  # fmt: skip
    return frame.sample(frac=1.0, random_state=1).reset_index(drop=True)


def _same(stream: object, memory: object) -> None:
    a, b = stream.components, memory.components  # type: ignore[attr-defined]
    assert a["effect"].tolist() == b["effect"].tolist()
    assert_allclose(a[COLUMNS].to_numpy(), b[COLUMNS].to_numpy(), rtol=1e-10, atol=1e-10)
    assert stream.sample_sizes == memory.sample_sizes  # type: ignore[attr-defined]
    assert stream.n_scores == memory.n_scores and stream.method == memory.method == "anova"  # type: ignore[attr-defined]
    assert stream.notes == memory.notes  # type: ignore[attr-defined]


@pytest.mark.parametrize("batch_size", [7, 100, 10_000])
def test_crossed_design_in_batches_equals_memory(tmp_path: Path, batch_size: int) -> None:
    frame = _crossed()
    frame.to_csv(tmp_path / "s.csv", index=False)
    facets = {"p": "item", "r": "rater", "o": "occasion"}
    memory = g_study(frame, design="p x r x o", facets=facets)
    _same(g_study_files(tmp_path / "s.csv", design="p x r x o", facets=facets,
                        batch_size=batch_size), memory)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "design", "facets"),
    [
        ("ps_r_balanced", "(p:s) x r", {"p": "person", "s": "site", "r": "rater"}),
        ("p_ro_balanced", "p x (r:o)", {"p": "person", "r": "rater", "o": "occasion"}),
        ("rp_balanced", "r:p", {"p": "person", "r": "rater"}),
        ("prxo_balanced", "p x r x o", {"p": "person", "r": "rater", "o": "occasion"}),
    ],
)
def test_nested_designs_in_batches_equal_memory(
    tmp_path: Path, name: str, design: str, facets: dict[str, str]
) -> None:
    frame = pd.read_csv(HERE / f"{name}.csv")
    path = tmp_path / f"{name}.parquet"
    frame.to_parquet(path)
    memory = g_study(frame, design=design, facets=facets, method="anova")
    _same(g_study_files(path, design=design, facets=facets, batch_size=13), memory)


def test_what_the_stream_engine_refuses(tmp_path: Path) -> None:
    frame = _crossed(n_p=6)
    facets = {"p": "item", "r": "rater", "o": "occasion"}
    path = tmp_path / "s.csv"
    frame.drop(index=[4]).to_csv(path, index=False)
    with pytest.raises(InvalidInputError, match=r"not balanced.*memory engine for REML"):
        g_study_files(path, design="p x r x o", facets=facets, batch_size=10)
    pd.concat([frame, frame]).to_csv(path, index=False)  # every cell scored twice
    with pytest.raises(InvalidInputError, match="not balanced"):
        g_study_files(path, design="p x r x o", facets=facets)
    bad = frame.astype({"score": object})
    bad.loc[8, "score"] = "n/a"
    bad.to_csv(path, index=False)
    with pytest.raises(InvalidInputError, match=r"'score' is empty or not a number in rows? 9"):
        g_study_files(path, design="p x r x o", facets=facets, batch_size=5)
    with pytest.raises(InvalidInputError, match="does not have"):
        g_study_files(path, design="p x r", facets={"o": "occasion"})
