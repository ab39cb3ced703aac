"""accord's command-line interface (``accord --help``).

Each subcommand lives in its own module and registers itself on :data:`app`; heavy imports
happen inside the commands so that ``accord --help`` stays fast.
"""

from __future__ import annotations

from . import _agree, _demo  # noqa: F401  (registers the commands)
from ._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``accord`` console script."""
    app()
