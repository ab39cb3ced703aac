"""Readers: ratings, confidences and spans from the files users have.

The readers load on first use, so importing one of them does not import the others.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Discontinuous": "spans",
    "read_argilla": "argilla",
    "read_bio": "spans",
    "read_brat": "spans",
    "read_columns": "ratings",
    "read_confidences": "confidence",
    "read_export": "ratings",
    "read_label_studio": "label_studio",
    "read_pairwise": "pairwise",
    "read_prodigy": "prodigy",
    "read_ratings": "ratings",
    "read_sclite_sgml": "confidence",
    "read_spans": "spans",
    "read_table": "ratings",
    "read_texts": "spans",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
