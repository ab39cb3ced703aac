"""``python -m accord``: the command-line interface."""

from .cli import main

main()
