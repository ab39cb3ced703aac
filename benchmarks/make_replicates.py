"""Write the bundled simulated table of blood pressure measured by two devices on three visits.

Simulated, not observed: ``N_PATIENTS`` patients, each measured by two devices (``cuff``,
``wrist``) on each of ``N_VISITS`` visits (one reading per device and visit). The model is
crossed patients x devices x visits:

    systolic = TRUE_MEAN + patient + device bias + visit + patient x visit + error,

with a patient effect ``N(0, PATIENT_SD^2)``, a fixed bias per device (``BIAS``), a visit
effect ``N(0, VISIT_SD^2)`` shared by every patient, a patient x visit effect
``N(0, PATIENT_VISIT_SD^2)`` (the patient's pressure on the day, seen by both devices) and an
error ``N(0, ERROR_SD[device]^2)``, rounded to whole mmHg. Drawn from numpy's
``default_rng(SEED)`` in this order: the visit effects, then per patient its effect, its
patient x visit effects, and for each visit and device in turn the error.

So the readings of one device on one patient are replicates (each visit a replicate), the
error-variance ratio of the devices is known (``(ERROR_SD["wrist"] / ERROR_SD["cuff"])^2``
= 2.25), and visits are a facet crossed with patients and devices.

Writes ``blood-pressure.csv`` (``patient``, ``device``, ``visit``, ``systolic``) into both
``examples/`` and ``src/accord/datasets/data/``:

    uv run --no-sync python benchmarks/make_replicates.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 36
N_PATIENTS = 40
N_VISITS = 3
TRUE_MEAN = 132.0
PATIENT_SD = 14.0
VISIT_SD = 2.0
PATIENT_VISIT_SD = 4.0
BIAS = {"cuff": 0.0, "wrist": 4.0}
ERROR_SD = {"cuff": 4.0, "wrist": 6.0}
ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "examples", ROOT / "src" / "accord" / "datasets" / "data")
NAME = "blood-pressure.csv"


def simulate(seed: int = SEED) -> list[str]:
    """The table's lines: a header, then one reading a line."""
    rng = np.random.default_rng(seed)
    visits = rng.normal(0.0, VISIT_SD, N_VISITS)
    lines = ["patient,device,visit,systolic"]
    for patient in range(1, N_PATIENTS + 1):
        level = TRUE_MEAN + rng.normal(0.0, PATIENT_SD)
        days = rng.normal(0.0, PATIENT_VISIT_SD, N_VISITS)
        for visit in range(N_VISITS):
            for device in BIAS:
                error = rng.normal(0.0, ERROR_SD[device])
                value = level + BIAS[device] + visits[visit] + days[visit] + error
                lines.append(f"p{patient:02d},{device},{visit + 1},{round(value)}")
    return lines


def main() -> None:
    lines = simulate()
    for folder in FOLDERS:
        (folder / NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} readings of {N_PATIENTS} patients, seed {SEED}")


if __name__ == "__main__":
    main()
