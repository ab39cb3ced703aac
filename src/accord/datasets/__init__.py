"""Small real data sets bundled with accord, the ones its documentation and ``accord demo`` use.

Each ``load_*`` function reads one bundled file with the columns its page describes;
:func:`path` gives the file itself (for the command line, or another reader), and
:func:`copy_to` writes them all to a folder. The provenance of each set is in its loader's
docstring (and in ``README.md`` beside the files).

>>> from accord import datasets
>>> datasets.NAMES[1:4]
('diagnoses.csv', 'birads.csv', 'birads-table.csv')
>>> datasets.path("diagnoses.csv").name
'diagnoses.csv'
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InvalidInputError

if TYPE_CHECKING:
    import pandas as pd

    from ..data.ratings import Ratings
    from ..data.spans import Spans
    from ..data.table import ContingencyTable

#: The bundled files and folders, by name.
NAMES = (
    "README.md",
    "diagnoses.csv",
    "birads.csv",
    "birads-table.csv",
    "panel.csv",
    "pefr.csv",
    "pandalm.csv",
    "pandalm-judged.csv",
    "pandalm-LICENSE.txt",
    "judge-pairs.jsonl",
    "judge-pair-runs.csv",
    "judge-drift.csv",
    "judge-runs.csv",
    "blood-pressure.csv",
    "sclite-test3b-words.csv",
    "sclite-test3b.sgml",
    "spans",
    "annotation-tools",
)


def path(name: str) -> Path:
    """The bundled file (or folder) ``name``, one of :data:`NAMES`.

    >>> path("birads.csv").is_file(), path("spans").is_dir()
    (True, True)
    """
    if name not in NAMES:
        raise InvalidInputError(
            f"no bundled data set {name!r}; there are {', '.join(map(repr, NAMES))}"
        )
    return Path(str(resources.files(__name__).joinpath("data", name)))


def copy_to(folder: str | Path) -> list[Path]:
    """Copy the bundled files into ``folder`` (created if needed), leaving any file already
    there as it is; returns the paths written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     written = copy_to(tmp)
    ...     sorted(p.name for p in written)[:2]
    ['README.md', 'annotation-tools']
    """
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in NAMES:
        source, dest = path(name), target / name
        if dest.exists():
            continue
        if source.is_dir():
            shutil.copytree(source, dest)
        else:
            shutil.copyfile(source, dest)
        written.append(dest)
    return written


def load_diagnoses() -> Ratings:
    """Psychiatric diagnoses of 30 patients by 6 raters each, 5 nominal categories.

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin*, 76(5), 378-382. https://doi.org/10.1037/h0031619 (Table 1).
    Each patient was diagnosed by 6 psychiatrists drawn from a pool of 43 (the raters
    ``rater1``..``rater6`` are the first to sixth rating of each patient, not the same person
    across patients) into Depression, Personality Disorder, Schizophrenia, Neurosis and Other.
    The ratings are those distributed as the ``diagnoses`` data set of the R package irr
    (Gamer et al.), recoded from 1-5 to the category names. Published: Fleiss' kappa 0.430.

    File ``diagnoses.csv``: columns ``patient``, ``rater``, ``diagnosis``; 180 rows.

    >>> import accord
    >>> ratings = accord.datasets.load_diagnoses()
    >>> print(ratings.report)
    read 180 rows: 180 ratings of 30 items by 6 raters; nothing dropped
    >>> round(accord.fleiss_kappa(ratings).statistic, 3)
    0.43
    """
    from ..io.ratings import read_ratings

    return read_ratings(path("diagnoses.csv"), item="patient", rater="rater", label="diagnosis")


def load_birads() -> Ratings:
    """BI-RADS classes (1-5, ordinal) of 186 breast findings by two modalities, US and ABVS.

    Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an informational index
    for diagnostic agreement in dichotomous and multivalue ordered-categorical ratings.
    *Medical & Biological Engineering & Computing*, 58, 3089-3099.
    https://doi.org/10.1007/s11517-020-02261-2 (Table 2, from Girometti et al. 2018): 186
    additional MRI findings classified by hand-held ultrasound (US) and by an automated breast
    volume scanner (ABVS). Published: Cohen's kappa 0.821, informational agreement 0.729;
    dichotomised BI-RADS 1-2 vs 3-5, kappa 0.944 and IA 0.836.

    File ``birads.csv``: columns ``finding`` (1..186, numbered in table order), ``modality``
    (``ABVS`` or ``US``), ``birads`` (1..5); 372 rows. :func:`load_birads_table` reads the same
    data as the paper's contingency table.

    >>> import accord
    >>> ratings = accord.datasets.load_birads()
    >>> round(accord.cohen_kappa(ratings).statistic, 3)
    0.821
    """
    from ..io.ratings import read_ratings

    return read_ratings(
        path("birads.csv"), item="finding", rater="modality", label="birads", level="ordinal"
    )


def load_birads_table() -> ContingencyTable:
    """The BI-RADS readings of :func:`load_birads` as the paper's 5 x 5 contingency table
    (rows ABVS, columns US; categories BR1..BR5). File ``birads-table.csv``.

    >>> import accord
    >>> table = accord.datasets.load_birads_table()
    >>> table.n, round(accord.informational_agreement(table, n_boot=0).statistic, 3)
    (186.0, 0.729)
    """
    from ..data.table import ContingencyTable

    return ContingencyTable.read_csv(path("birads-table.csv"))


def load_panel() -> pd.DataFrame:
    """A simulated review panel: 40 proposals, 12 reviewers, 4 scores per proposal.

    Not real data: drawn from the model of MacKay, Kenna, Low & Parker (2017), Calibration
    with confidence: a principled method for panel assessment, *Royal Society Open Science*
    4, 160760 (https://doi.org/10.1098/rsos.160760), by
    ``accord.simulate_panel(40, 12, raters_per_item=4, value_mean=5.0, value_sd=1.5,
    bias_sd=0.8, noise_sd=0.6, confidence_spread=0.4, rng=2017)``, with items renamed
    ``P01``..``P40``, raters ``reviewer_1``..``reviewer_12``, scores rounded to 0.01 and
    confidences to 0.001.

    File ``panel.csv``: columns ``proposal``, ``reviewer``, ``score``, ``confidence`` (the
    reviewer's confidence c = 1 / sd^2 in the score) and ``level`` (the same confidence as a
    level H, M or L); 160 rows.

    >>> import accord
    >>> panel = accord.datasets.load_panel()
    >>> panel.shape, panel["reviewer"].nunique()
    ((160, 5), 12)
    """
    import pandas as pd

    return pd.read_csv(path("panel.csv"))


def load_pefr() -> Ratings:
    """Peak expiratory flow rate (l/min) of 17 people by two meters, Wright and mini-Wright.

    Bland, J. M., & Altman, D. G. (1986). Statistical methods for assessing agreement between
    two methods of clinical measurement. *Lancet*, 327(8476), 307-310.
    https://doi.org/10.1016/S0140-6736(86)90837-8 (Table 1, first reading with each meter).
    Published: mean difference (Wright - mini-Wright) -2.1 l/min, SD 38.8, limits of
    agreement (2 SD) -79.7 to 75.4.

    File ``pefr.csv``: columns ``subject`` (1..17), ``meter`` (``Wright`` or
    ``mini-Wright``), ``pefr``; 34 rows. Read at interval level.

    >>> import accord
    >>> ratings = accord.datasets.load_pefr()
    >>> ba = accord.bland_altman(ratings, reference="mini-Wright", multiplier=2)
    >>> round(ba.limits[0].bias, 1)
    -2.1
    """
    from ..io.ratings import read_ratings

    return read_ratings(
        path("pefr.csv"), item="subject", rater="meter", label="pefr", level="interval"
    )


def load_pandalm() -> Ratings:
    """Which of two responses is better: 3 annotators and 2 LLM judges on 999 instructions.

    PandaLM's human-annotated test set and its judges' verdicts: Wang, Y., Yu, Z., Zeng, Z.,
    et al. (2024). PandaLM: An Automatic Evaluation Benchmark for LLM Instruction Tuning
    Optimization. *ICLR 2024*. arXiv:2306.05087. https://github.com/WeOpenML/PandaLM (commit
    3c785d0, Apache License 2.0, bundled as ``pandalm-LICENSE.txt``): files
    ``data/testset-v1.json`` (labels ``annotator1``..``annotator3``),
    ``data/gpt-3.5-turbo-testset-v1.json`` (``gpt_result``) and
    ``data/pandalm-7b-testset-v1.json`` (``pandalm_result``). Each item is an instruction
    (from the self-instruct human evaluation set) with two responses by instruction-tuned
    models of about 7B parameters; three human evaluators labelled independently which
    response is better, and the set kept the 999 items (of about 2,500) on which they
    diverged little.

    Recoded: ``1`` -> ``first``, ``2`` -> ``second``, ``0`` and ``Tie`` -> ``tie``; the 25
    gpt-3.5-turbo verdicts recorded as ``garbage`` (no label) are left out, so that judge
    rated 974 items. Nothing else is changed: every item and label of the source is kept.
    Published (the repository's README): Cohen's kappa between the annotators 0.85 (1-2),
    0.88 (1-3), 0.86 (2-3).

    File ``pandalm.csv``: columns ``item`` (0..998, the source's ``idx``), ``rater``
    (``annotator1``..``annotator3``, ``gpt-3.5-turbo``, ``pandalm-7b``), ``preference``;
    4970 rows. Read as nominal.

    >>> import accord
    >>> ratings = accord.datasets.load_pandalm()
    >>> print(ratings.report)
    read 4,970 rows: 4,970 ratings of 999 items by 5 raters; nothing dropped
    >>> pair = ("annotator1", "annotator3")
    >>> round(accord.cohen_kappa(ratings, raters=pair).statistic, 2)
    0.88
    """
    from ..io.ratings import read_ratings

    return read_ratings(path("pandalm.csv"), item="item", rater="rater", label="preference")


def load_sclite_words() -> pd.DataFrame:
    """The scored words of NIST sclite's test "test3b", with their confidences.

    SCTK, the NIST Scoring Toolkit (public domain), test data ``src/sclite/testdata``: the
    hypothesis ``lvc_hypc.ctm`` (with word confidences) aligned against ``lvc_ref.stm`` by
    sclite (``-o sgml``, bundled as ``sclite-test3b.sgml``): 4 speakers, 61 segments.
    One row per scored hypothesis word: ``speaker``, ``eval`` (C correct, S substitution,
    I insertion; deletions have no hypothesis word), ``correct`` (1/0), ``confidence``.
    sclite's own report gives NCE 0.256, 0.174, 0.145, 0.197 for the four speakers and
    0.205 pooled.

    File ``sclite-test3b-words.csv``; 1724 rows.

    >>> import accord
    >>> words = accord.datasets.load_sclite_words()
    >>> nce = accord.normalized_cross_entropy(words["correct"], words["confidence"])
    >>> len(words), round(nce.statistic, 3)
    (1724, 0.205)
    """
    import pandas as pd

    return pd.read_csv(path("sclite-test3b-words.csv"))


def load_spans() -> Spans:
    """Drugs and diseases marked by 3 annotators in 2 short notes (brat standoff).

    Written by hand for accord's documentation and tests, not from a published corpus: one
    folder per annotator (``ann1``..``ann3``), each with ``note1`` and ``note2`` (``.ann`` and
    ``.txt``); labels ``DRUG`` and ``DISEASE``. Over both notes, exact matching gives pair F1
    10/17, 10/17 and 6/16.

    Folder ``spans``.

    >>> import accord
    >>> spans = accord.datasets.load_spans()
    >>> result = accord.span_agreement(spans)
    >>> result.n_annotators, result.n_documents
    (3, 2)
    """
    from ..io.spans import read_brat

    return read_brat(path("spans"))


__all__ = [
    "NAMES",
    "copy_to",
    "load_birads",
    "load_birads_table",
    "load_diagnoses",
    "load_pandalm",
    "load_panel",
    "load_pefr",
    "load_sclite_words",
    "load_spans",
    "path",
]
