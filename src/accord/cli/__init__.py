"""accord's command-line interface (``accord --help``).

Each subcommand lives in its own module and registers itself on :data:`app`; heavy imports
happen inside the commands so that ``accord --help`` stays fast.
"""

from __future__ import annotations

import importlib

from ._app import AccordCommand, app

# Importing a command module registers its command; this order is the order of `accord --help`.
COMMANDS = (
    "agree",
    "pair",
    "judge",
    "judge_rate",
    "compare",
    "consensus",
    "truth",
    "calibrate",
    "confidence",
    "spans",
    "report",
    "plan",
    "demo",
)
for _command in COMMANDS:
    importlib.import_module(f"._{_command}", __name__)
for _info in app.registered_commands:
    _info.cls = AccordCommand

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``accord`` console script."""
    app()
