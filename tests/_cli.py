"""What the tests of the command line share."""

from __future__ import annotations

import json
from typing import Any


def cli_json(text: str) -> Any:
    """The result of a command's ``--format json`` output, with its read report (the
    envelope's ``input``) as ``report``, for tests of a result's numbers (the envelope itself
    is tested in ``tests/cli/test_cli_json.py``)."""
    envelope = json.loads(text)
    result = envelope["result"]
    if not isinstance(result, dict):
        return result
    return {"report": envelope["input"], **result}
