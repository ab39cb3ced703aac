"""Names (items, raters, labels) as presenters show them: bidirectional-text controls made
visible, very long names elided.

A right-to-left override (U+202E) inside a name makes ``gnp.exe`` display as ``exe.png``
(the "Trojan Source" attack, Boucher & Anderson 2021, https://doi.org/10.48550/arXiv.2111.00169),
and an unclosed embedding or isolate reorders the text after the name. Presenters show every
such control as its escape (``\\u202e``), so what a reader sees is what the data holds; the
HTML report also isolates each name from its surroundings (``<bdi>``), so that a name in a
right-to-left script does not reorder the numbers beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["BIDI_CONTROLS", "NAME_MAX", "WORDS", "elide", "listed", "register_words",
           "role_name", "show_controls", "shown_name"]  # fmt: skip

#: The explicit bidirectional formatting characters (Unicode Standard Annex #9, 2.1-2.6):
#: embeddings, overrides and their terminator, isolates and theirs, and the three marks.
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)

#: Characters of a name shown in a table cell before it is elided (figure axes: 28).
NAME_MAX = 40

_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in BIDI_CONTROLS}


def show_controls(text: str) -> str:
    """``text`` with every bidirectional control shown as its escape.

    >>> show_controls("\\u202egnp.exe")
    '\\\\u202egnp.exe'
    >>> show_controls("plain")
    'plain'
    """
    return text.translate(_ESCAPES)


def elide(text: str, limit: int = NAME_MAX) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis when longer.

    >>> elide("a" * 50, 10)
    'aaaaaaaaa…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def shown_name(name: object, limit: int | None = NAME_MAX) -> str:
    """A name for display: controls made visible (:func:`show_controls`), then elided to
    ``limit`` characters (None: in full).

    >>> shown_name("\\u202egnp.exe")
    '\\\\u202egnp.exe'
    """
    text = show_controls(str(name))
    return text if limit is None else elide(text, limit)


def role_name(name: object, role: str) -> str:
    """A rater (or annotator) named in a sentence or a header: as written, with its ``role``
    before it when the name is a bare number (an annotation tool's user id, ``7``), so that
    it reads as a name and not as a count.

    >>> role_name(7, "rater"), role_name("MRI", "rater")
    ('rater 7', 'MRI')
    """
    text = shown_name(name)
    return f"{role} {text}" if text.replace(".", "", 1).isdigit() else text


def listed(names: Any, limit: int = 12) -> str:
    """Names as written, comma-separated, the first ``limit`` of them and how many more.

    >>> listed(["note1", "note2"]), listed(range(15), limit=3)
    ('note1, note2', '0, 1, 2 and 12 more')
    """
    names = [shown_name(n) for n in names]
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


#: The sentence each kind of result is read with, by the class name of the result (or of a
#: class it derives from): written by :mod:`accord._verdict`, the one place that writes the
#: words the command line and the report print, which registers them with
#: :func:`register_words`; a notebook shows them above the result's fields
#: (:meth:`accord._results.Result._repr_html_`).
WORDS: dict[str, Callable[[Any], str]] = {}


def register_words(kind: str, words: Callable[[Any], str]) -> None:
    """Let results of the class named ``kind`` (and its subclasses) show ``words(result)``
    in a notebook."""
    WORDS[kind] = words
