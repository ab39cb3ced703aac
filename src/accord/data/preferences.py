"""Pairwise preference judgments: a judge shown two models' answers to a question says
which is better, or that they tie.

The data model that :func:`accord.read_pairwise` turns into ratings and that
:func:`accord.pairwise_preference_agreement` measures: one judgment per row, with the model
shown first (``model_a``) and second (``model_b``), and the verdict turned into the model
preferred (or ``"tie"``), so that a verdict reads the same whichever order the pair was
shown in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._validate import at_rows

__all__ = ["TIE", "Preferences", "preferences_in", "preferences_of"]

#: The label of a tie.
TIE = "tie"


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Preferences:
    """Validated pairwise judgments, one per row.

    Attributes
    ----------
    question : ndarray of str
        What was asked: the question id (and the turn, when there is one).
    first, second : ndarray of str
        The model shown first (``model_a``) and second (``model_b``).
    judge : ndarray of str
        Who judged.
    preferred : ndarray of str
        The model preferred, or ``"tie"``.
    """

    question: npt.NDArray[Any]
    first: npt.NDArray[Any]
    second: npt.NDArray[Any]
    judge: npt.NDArray[Any]
    preferred: npt.NDArray[Any]

    @property
    def n_judgments(self) -> int:
        """Number of judgments."""
        return int(self.question.size)

    def items(self) -> npt.NDArray[Any]:
        """The item of each judgment: the question and the unordered pair of models,
        ``"81: gpt-4 vs vicuna-13b"`` (models in alphabetical order)."""
        low = np.where(self.first <= self.second, self.first, self.second)
        high = np.where(self.first <= self.second, self.second, self.first)
        return np.array(
            [f"{q}: {a} vs {b}" for q, a, b in zip(self.question, low, high, strict=True)],
            dtype=object,
        )


def _text(values: Sequence[Any], name: str) -> npt.NDArray[Any]:
    """Ids as text; a judge given as a list (``["gpt-4", "pair-v2"]``) joined by ``/``."""
    out = np.empty(len(values), dtype=object)
    bad: list[int] = []
    for i, v in enumerate(values):
        if isinstance(v, list | tuple | np.ndarray):
            v = "/".join(str(x) for x in v)
        if v is None or (isinstance(v, float) and v != v) or v == "":
            bad.append(i)
        out[i] = str(v)
    if bad:
        raise InvalidInputError(f"column {name!r} is missing in {at_rows(bad)}")
    return out


def preferences_of(
    question: Sequence[Any],
    model_a: Sequence[Any],
    model_b: Sequence[Any],
    judge: Sequence[Any],
    winner: Sequence[Any],
    *,
    turn: Sequence[Any] | None = None,
    columns: tuple[str, str, str, str, str] = (
        "question_id",
        "model_a",
        "model_b",
        "judge",
        "winner",
    ),
) -> Preferences:
    """Check pairwise judgments and turn each verdict into the model preferred.

    ``winner`` is ``model_a`` or ``model_b`` (the model shown first or second), or a tie:
    ``tie`` and its kinds (``tie (bothbad)``, ``tie (inconsistent)``: any verdict that
    starts with ``tie``), as MT-Bench and Chatbot Arena write them.

    Raises
    ------
    InvalidInputError
        A missing value, a model judged against itself, or another verdict (naming the rows,
        counted from 1).

    Examples
    --------
    >>> p = preferences_of([81, 81], ["gpt-4", "llama-13b"], ["llama-13b", "gpt-4"],
    ...                    ["expert_1", "expert_1"], ["model_a", "tie"])
    >>> p.preferred.tolist(), p.items().tolist()
    (['gpt-4', 'tie'], ['81: gpt-4 vs llama-13b', '81: gpt-4 vs llama-13b'])
    """
    q_col, a_col, b_col, j_col, w_col = columns
    questions = _text(question, q_col)
    if turn is not None:
        turns = _text(turn, "turn")
        questions = np.array(
            [f"{q}, turn {t}" for q, t in zip(questions, turns, strict=True)], dtype=object
        )
    first, second = _text(model_a, a_col), _text(model_b, b_col)
    judges = _text(judge, j_col)
    verdicts = _text(winner, w_col)
    same = np.flatnonzero(first == second)
    if same.size:
        raise InvalidInputError(
            f"{at_rows(same)} {'judges' if same.size == 1 else 'judge'} a model against itself "
            "(first: "
            f"{first[same[0]]!r} in {a_col!r} and {b_col!r})"
        )
    is_tie = np.array([v.startswith(TIE) for v in verdicts], dtype=bool)
    is_a, is_b = verdicts == "model_a", verdicts == "model_b"
    bad = np.flatnonzero(~(is_tie | is_a | is_b))
    if bad.size:
        raise InvalidInputError(
            f"column {w_col!r} must be 'model_a', 'model_b' or a tie ('tie', 'tie (bothbad)', "
            f"...); {at_rows(bad)} {'is' if bad.size == 1 else 'are'} not (first: "
            f"{verdicts[bad[0]]!r})"
        )
    preferred = np.where(is_a, first, np.where(is_b, second, TIE)).astype(object)
    return Preferences(questions, first, second, judges, preferred)


def preferences_in(
    table: Mapping[str, Sequence[Any]],
    columns: tuple[str, str, str, str, str],
    *,
    turn: str | None = "turn",
) -> Preferences:
    """:func:`preferences_of` the named columns of a table: ``columns`` names the question,
    model_a, model_b, judge and winner columns, and the ``turn`` column is read when the
    table has it (None never reads one).

    Examples
    --------
    >>> table = {"q": [81], "a": ["gpt-4"], "b": ["llama-13b"], "j": ["expert_1"],
    ...          "w": ["model_b"], "turn": [2]}
    >>> preferences_in(table, ("q", "a", "b", "j", "w")).items().tolist()
    ['81, turn 2: gpt-4 vs llama-13b']
    >>> preferences_in(table, ("q", "a", "b", "j", "w"), turn=None).preferred.tolist()
    ['llama-13b']
    """
    turns = table[turn] if turn is not None and turn in table else None
    return preferences_of(*(table[k] for k in columns), turn=turns, columns=columns)
