"""Write the bundled simulated pairwise-judge log and its runs table.

Simulated, not observed: a judge ``judge-model`` compares ``model-x`` with ``model-y`` on
``N_QUESTIONS`` questions, each pair shown in both orders. Per question, in this order, from
numpy's ``default_rng(SEED)``:

1. the lengths of the two answers in characters, ``model-x`` then ``model-y``
   (``round(exp(N(log 1500, 0.45)))`` each);
2. the quality difference ``model-x`` minus ``model-y``, ``N(0.2, 1)``;
3. the position coin: with probability ``POSITION_SHARE`` the judge does not read the pair
   and prefers whichever answer is shown first, in both orders;
4. for each order (``model-x`` first, then ``model-y`` first) the judge's noise ``N(0, 0.6)``.

Otherwise the judge's score of the first-shown answer over the second is its quality
difference plus ``LENGTH_WEIGHT`` per 1,000 characters of length difference (first minus
second) plus the noise; a score within ``TIE_BAND`` of zero is a tie, else the sign gives the
winner. So the log has a built-in position bias (a share of pairs favour the first position in
both orders) and a mild length bias.

Writes ``judge-pairs.jsonl`` (one judgment per line: ``question_id``, ``turn``, ``model_a``
shown first, ``model_b``, ``judge``, ``winner`` in ``model_a``/``model_b``/``tie``,
``length_a``, ``length_b``) and ``judge-pair-runs.csv`` (``question_id``, ``judge``,
``order`` 1 or 2, ``preferred`` the model preferred or ``tie``) into both
``examples/`` and ``src/accord/datasets/data/``:

    uv run --no-sync python benchmarks/make_judge_pairs.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SEED = 2026
N_QUESTIONS = 76
POSITION_SHARE = 0.25
LENGTH_WEIGHT = 0.5
TIE_BAND = 0.25
JUDGE = "judge-model"
MODELS = ("model-x", "model-y")
ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "examples", ROOT / "src" / "accord" / "datasets" / "data")


def _verdict(score: float) -> str:
    if abs(score) < TIE_BAND:
        return "tie"
    return "model_a" if score > 0 else "model_b"


def simulate(seed: int = SEED) -> tuple[list[dict[str, object]], list[str], list[int]]:
    """The judgments (records), the runs table (CSV lines) and the questions the judge
    judged blind (the first answer preferred in both orders)."""
    rng = np.random.default_rng(seed)
    records: list[dict[str, object]] = []
    runs = ["question_id,judge,order,preferred"]
    blinds: list[int] = []
    for question in range(1, N_QUESTIONS + 1):
        lengths = [round(float(np.exp(rng.normal(np.log(1500), 0.45)))) for _ in MODELS]
        quality = float(rng.normal(0.2, 1.0))
        blind = bool(rng.random() < POSITION_SHARE)
        if blind:
            blinds.append(question)
        for order in (1, 2):
            noise = float(rng.normal(0.0, 0.6))
            first, second = (0, 1) if order == 1 else (1, 0)
            sign = 1.0 if order == 1 else -1.0
            score = sign * quality + LENGTH_WEIGHT * (lengths[first] - lengths[second]) / 1000
            winner = "model_a" if blind else _verdict(score + noise)
            records.append(
                {
                    "question_id": question,
                    "turn": 1,
                    "model_a": MODELS[first],
                    "model_b": MODELS[second],
                    "judge": JUDGE,
                    "winner": winner,
                    "length_a": lengths[first],
                    "length_b": lengths[second],
                }
            )
            preferred = {"model_a": MODELS[first], "model_b": MODELS[second]}.get(winner, "tie")
            runs.append(f"{question},{JUDGE},{order},{preferred}")
    return records, runs, blinds


def main() -> None:
    records, runs, blinds = simulate()
    for folder in FOLDERS:
        lines = "".join(json.dumps(r) + "\n" for r in records)
        (folder / "judge-pairs.jsonl").write_text(lines, encoding="utf-8")
        (folder / "judge-pair-runs.csv").write_text("\n".join(runs) + "\n", encoding="utf-8")
    blind = f"{len(blinds)} pairs judged blind"
    print(f"{len(records)} judgments, {len(runs) - 1} runs rows, {blind}, seed {SEED}")


if __name__ == "__main__":
    main()
