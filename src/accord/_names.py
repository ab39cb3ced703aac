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

__all__ = ["BIDI_CONTROLS", "NAME_MAX", "elide", "show_controls", "shown_name"]

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
