"""Pairwise preference judgments (MT-Bench human judgments, Chatbot Arena battles, LLM judge
logs): which of two models' answers a judge preferred."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .._errors import InvalidInputError
from .._types import Duplicates
from ..data.preferences import preferences_in
from ..data.ratings import Ratings
from .exports import export_records

__all__ = ["read_pairwise", "read_pairwise_judgments"]


def read_pairwise(
    path: str | Path,
    *,
    question: str = "question_id",
    model_a: str = "model_a",
    model_b: str = "model_b",
    judge: str = "judge",
    winner: str = "winner",
    turn: str | None = "turn",
    duplicates: Duplicates = "raise",
) -> Ratings:
    """Read pairwise preference judgments as ratings: each judge's verdict on each pair.

    The item is the question (and the turn, when the records have one) with the unordered
    pair of models, ``"81, turn 1: gpt-4 vs vicuna-13b"``; the rater is the judge; the label
    is the model preferred or ``"tie"``, so that a verdict reads the same whichever model
    was shown first. ``winner`` is ``model_a``, ``model_b`` or a tie (``tie``,
    ``tie (bothbad)``, ...: any verdict starting with ``tie``), as in the MT-Bench human
    judgments and Chatbot Arena. For agreement with and without ties, and the consistency
    of a judge shown the same pair in both orders, see
    :func:`accord.pairwise_preference_agreement`.

    Parameters
    ----------
    path : str or Path
        ``.json`` (an array of records, as FastChat writes them), ``.jsonl``, ``.parquet``
        (as the Hugging Face dataset ``lmsys/mt_bench_human_judgments``) or ``.csv``.
    question, model_a, model_b, judge, winner : str
        The keys (columns) of the records. A judge given as a list (FastChat's
        ``["gpt-4", "pair-v2"]``) is joined with ``/``.
    turn : str or None, default "turn"
        The key of the turn of a multi-turn conversation, when the records have it (each
        turn is its own item); None never reads one.
    duplicates : {"raise", "first", "last"}, default "raise"
        A judge who judged the same pair twice (both orders, say): as in
        :meth:`accord.Ratings.from_long`.

    Returns
    -------
    Ratings
        Nominal, with the models and ``"tie"`` as categories.

    Raises
    ------
    InvalidInputError
        A missing key, a verdict that is neither model nor a tie, a model judged against
        itself (each naming the records, counted from 1).

    References
    ----------
    .. [1] Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with
       MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and Benchmarks.
       https://arxiv.org/abs/2306.05685
    .. [2] LMSYS. mt_bench_human_judgments (Hugging Face dataset: question_id, model_a,
       model_b, winner, judge, turn). https://huggingface.co/datasets/lmsys/mt_bench_human_judgments

    Examples
    --------
    >>> import accord
    >>> exports = accord.datasets.path("annotation-tools")
    >>> r = accord.read_pairwise(exports / "pairwise.jsonl", duplicates="first")
    >>> print(r.report)  # doctest: +NORMALIZE_WHITESPACE
    read 10 rows: 8 ratings of 3 items by 3 raters; dropped 2 (2 duplicate (item, rater):
    kept the first)
    """
    where = str(path)
    found = list(export_records(path, what="pairwise judgments"))
    if not found:
        raise InvalidInputError(f"{where}: the file holds no judgments")
    keys = (question, model_a, model_b, judge, winner)
    for record in found:
        absent = [k for k in keys if k not in record.value]
        if absent:
            raise record.error(
                f"no {', '.join(map(repr, absent))}; its keys are: "
                + ", ".join(map(repr, record.value))
            )
    records = [r.value for r in found]
    table = {
        k: [r.get(k) for r in records]
        for k in (*keys, turn)
        if k is not None and any(k in r for r in records)
    }
    try:
        prefs = preferences_in(table, keys, turn=turn)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    ratings = Ratings.from_arrays(
        prefs.items(),
        prefs.judge,
        prefs.preferred,
        duplicates=duplicates,
        columns=("item", judge, winner),
        source=where,
        na_values=[],
    )
    return ratings


def read_pairwise_judgments(path: str | Path) -> pd.DataFrame:
    """The records of a pairwise judge log as a table, one judgment a row and one column per
    key (a key a record lacks is missing there): what :func:`accord.position_bias`,
    :func:`accord.length_bias`, :func:`accord.self_preference` and
    :func:`accord.pairwise_preference_agreement` take. Files as :func:`read_pairwise`; a
    judge given as a list (FastChat's ``["gpt-4", "pair-v2"]``) is joined with ``/``.

    >>> import accord
    >>> log = read_pairwise_judgments(accord.datasets.path("judge-pairs.jsonl"))
    >>> log.shape, log["judge"].iloc[0]
    ((152, 8), 'judge-model')
    """
    found = [r.value for r in export_records(path, what="pairwise judgments")]
    if not found:
        raise InvalidInputError(f"{path}: the file holds no judgments")
    frame = pd.DataFrame.from_records(found)
    for name in frame.columns:
        if frame[name].map(lambda v: isinstance(v, list | tuple)).any():
            frame[name] = frame[name].map(
                lambda v: "/".join(map(str, v)) if isinstance(v, list | tuple) else v
            )
    return frame
