"""Keywords of a front door kept for one release after they moved into an options object."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._errors import InvalidInputError

__all__ = ["moved_keywords"]

T = TypeVar("T")


def moved_keywords(
    owner: str,
    options: dict[str, Any],
    given: T | None,
    moved: Mapping[str, str],
    make: Callable[..., T],
    new_form: str,
    *,
    stacklevel: int = 3,
    known: Mapping[str, Any] | None = None,
) -> T | None:
    """``given``, or the object ``make`` builds from the deprecated keywords of ``options``.

    ``moved`` maps each old keyword of ``owner`` to the field of the new object it became
    (``new_form`` spells that object for the user, e.g. ``"inference=accord.Inference"``).
    The old keywords are taken out of ``options`` (before its check against the fields of
    a source), each use warns with a :class:`DeprecationWarning` naming the new form, and
    giving an old keyword together with the new object is an error. ``known`` holds the
    fields of the new object that other arguments already give (a rater id given as
    ``judge=``): passed to ``make`` and spelled first in the warning, those that are not None.

    Examples
    --------
    >>> import warnings
    >>> opts = {"rng": 3, "item": "i"}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     moved_keywords("f", opts, None, {"rng": "seed"}, dict, "options=dict")
    {'seed': 3}
    >>> opts, str(caught[0].message)
    ({'item': 'i'}, 'f(rng=...) is deprecated: pass options=dict(seed=3)')
    """
    old = [key for key in moved if key in options]
    if not old:
        return given
    if given is not None:
        raise InvalidInputError(
            f"{owner}() got {', '.join(old)} and {new_form.split('=')[0]}=: the former "
            f"moved into {new_form}(...); pass only the latter"
        )
    fields = {name: value for name, value in (known or {}).items() if value is not None}
    fields |= {moved[key]: options.pop(key) for key in old}
    spelled = ", ".join(f"{name}={_spelled(value)}" for name, value in fields.items())
    keys = ", ".join(f"{key}=..." for key in old)
    warnings.warn(
        f"{owner}({keys}) is deprecated: pass {new_form}({spelled})",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return make(**fields)


def _spelled(value: Any) -> str:
    """A value as the warning spells it: a data frame by its type (not its rows).

    >>> import pandas as pd
    >>> _spelled(0.2), _spelled(pd.DataFrame({"a": [1]}))
    ('0.2', '<DataFrame>')
    """
    return f"<{type(value).__name__}>" if hasattr(value, "columns") else repr(value)
