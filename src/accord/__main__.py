"""``python -m accord``: the command-line interface."""

from accord.cli import main

main()
