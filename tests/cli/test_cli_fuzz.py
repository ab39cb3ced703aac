"""Every command on broken input: exit status 2 and one line on stderr, never a traceback.

Random bytes under every suffix, good files cut short at any byte (Parquet, CSV, JSON Lines)
and column names that are not in the file are fed to agree, pair, consensus, calibrate,
confidence, spans and report in process (typer's CliRunner). The examples are bounded so the
test runs in seconds.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()

#: Each command with the options that read the columns of the base file.
COMMANDS: dict[str, list[str]] = {
    "agree": ["agree", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "pair": ["pair", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "consensus": ["consensus", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "calibrate": ["calibrate", "{path}", "--item", "item", "--rater", "rater", "--score", "score"],
    "confidence": ["confidence", "{path}", "--correct", "ok", "--confidence", "conf"],
    "spans": ["spans", "{path}", "-i", "table", "--annotator", "rater", "--document", "item"],
    "report": ["report", "{path}", "--item", "item", "--rater", "rater", "--label", "label", "-q"],
}
#: The column options of each command, one of which a fuzzed name replaces.
COLUMN_OPTIONS = {
    "--item",
    "--rater",
    "--label",
    "--score",
    "--correct",
    "--confidence",
    "--annotator",
    "--document",
}
#: The numeric options of each command and the options that take one of a few words, each
#: fed values outside its domain (the base command's columns as above). Not a count so large
#: that a valid run would take long: 10**20 is beyond every integer type numpy draws with.
NUMERIC_OPTIONS: dict[str, list[str]] = {
    "agree": ["--n-boot", "--seed", "--population-size"],
    "pair": ["--n-boot", "--seed"],
    "judge": ["--epsilon", "--q", "--min-raters-per-item", "--min-items-per-rater", "--n-boot",
              "--seed"],
    "compare": ["--multiplier", "--confidence-level"],
    "consensus": ["--base", "--top"],
    "calibrate": ["--sigma", "--confidence-factor", "--seed"],
    "confidence": ["--bins", "--folds", "--seed"],
    "report": ["--seed", "--epsilon"],
    "plan": ["--rho0", "--rho1", "--raters", "--alpha", "--power", "--prevalence"],
}  # fmt: skip
CHOICE_OPTIONS: dict[str, list[str]] = {
    "agree": ["--level", "--ci", "--weights", "--coefficients", "--duplicates", "--labels-as",
              "--engine", "--format", "--distance", "--from"],
    "pair": ["--level", "--weights", "--format"],
    "judge": ["--scoring", "--test", "--format"],
    "compare": ["--scale", "--limits-ci", "--format"],
    "consensus": ["--reference", "--missing", "--level", "--engine"],
    "calibrate": ["--gauge", "--uncertainty", "--range-convention", "--engine"],
    "confidence": ["--binning", "--recalibrate", "--out-of-range", "--engine"],
    "spans": ["--input-format", "--match", "--by", "--format"],
    "report": ["--level", "--engine", "--duplicates"],
    "plan": ["--coefficient", "--alternative", "--method", "--format"],
}  # fmt: skip
#: What each numeric option is fed: negative, zero, huge, not a number, not finite.
BAD_NUMBERS = ("-1", "0", "-0.5", "1e308", "100000000000000000000", "abc", "nan", "-inf", "")
#: The commands the option sweep adds to :data:`COMMANDS` (beside the base file's columns).
EXTRA_COMMANDS: dict[str, list[str]] = {
    "judge": ["judge", "{path}", "--item", "item", "--rater", "rater", "--label", "label",
              "--judge", "b", "--epsilon", "0.15", "--min-items-per-rater", "2"],
    "compare": ["compare", "{path}", "--item", "item", "--rater", "rater", "--score", "score"],
    "plan": ["plan", "--coefficient", "kappa", "--rho0", "0.4", "--rho1", "0.6",
             "--prevalence", "0.3"],
}  # fmt: skip
SUFFIXES = (".csv", ".tsv", ".parquet", ".jsonl", ".csv.gz")
FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def base_frame() -> pd.DataFrame:
    """Ratings with every column the commands read: two raters on four items."""
    rows = []
    for i in range(4):
        for r, rater in enumerate(("a", "b")):
            rows.append(
                {
                    "item": f"i{i}",
                    "rater": rater,
                    "label": ("x", "y")[(i + r * (i == 3)) % 2],
                    "score": float(i + r),
                    "conf": 0.25 + 0.125 * (i + r),
                    "ok": int((i + r) % 2 == 0),
                    "start": 2 * i,
                    "end": 2 * i + 1 + r,
                }
            )
    return pd.DataFrame(rows)


def good_bytes(suffix: str, folder: Path) -> bytes:
    """The base frame written as a file of the given kind."""
    path = folder / f"base{suffix}"
    frame = base_frame()
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    return path.read_bytes()


def run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"accord {' '.join(args)} raised {type(exc).__name__}: {exc}"
    )
    return result.exit_code, result.stderr


def assert_one_line_error(code: int, stderr: str, args: list[str]) -> None:
    lines = stderr.strip().splitlines()
    assert code == 2, f"accord {' '.join(args)} exited {code}: {stderr}"
    assert "Traceback" not in stderr
    assert len(lines) == 1, f"accord {' '.join(args)}: {stderr}"
    assert lines[0].startswith("accord: error: ")


def command_args(name: str, path: Path, tmp: Path) -> list[str]:
    args = [a.format(path=path) for a in COMMANDS[name]]
    if name == "report":
        args += ["-o", str(tmp / "out.html")]
    return args


@FUZZ
@given(
    data=st.binary(min_size=0, max_size=400),
    suffix=st.sampled_from(SUFFIXES),
    name=st.sampled_from(sorted(COMMANDS)),
)
def test_random_bytes_are_one_line_errors(
    tmp_path: Path, data: bytes, suffix: str, name: str
) -> None:
    path = tmp_path / f"random{suffix}"
    path.write_bytes(data)
    args = command_args(name, path, tmp_path)
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)


@FUZZ
@given(
    suffix=st.sampled_from((".csv", ".parquet", ".jsonl")),
    name=st.sampled_from(sorted(COMMANDS)),
    cut=st.floats(min_value=0.0, max_value=0.999),
)
def test_truncated_files_never_give_a_traceback(
    tmp_path: Path, suffix: str, name: str, cut: float
) -> None:
    whole = good_bytes(suffix, tmp_path)
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(whole[: int(len(whole) * cut)])
    args = command_args(name, path, tmp_path)
    code, stderr = run(args)
    # A CSV or JSON Lines file cut at a line end is a shorter good file; anything else is
    # a one-line error.
    if code != 0 or suffix == ".parquet":
        assert_one_line_error(code, stderr, args)


@pytest.mark.slow
@FUZZ
@given(
    column=st.text(min_size=0, max_size=12).filter(lambda c: c not in base_frame().columns),
    suffix=st.sampled_from((".csv", ".tsv", ".parquet", ".jsonl")),
    name=st.sampled_from(sorted(COMMANDS)),
    which=st.integers(min_value=0, max_value=5),
)
def test_unknown_column_names_are_one_line_errors(
    tmp_path: Path, column: str, suffix: str, name: str, which: int
) -> None:
    path = tmp_path / f"base{suffix}"
    path.write_bytes(good_bytes(suffix, tmp_path))
    args = command_args(name, path, tmp_path)
    positions = [i + 1 for i, a in enumerate(args) if a in COLUMN_OPTIONS]
    args[positions[which % len(positions)]] = column
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_directory_is_a_one_line_error(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "ratings.csv"
    folder.mkdir()
    args = command_args(name, folder, tmp_path)
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)
    assert "directory" in stderr or "folder" in stderr


def option_args(name: str, tmp: Path) -> list[str]:
    """The base command of ``name`` on the base frame written as CSV."""
    path = tmp / "base.csv"
    if not path.exists():
        base_frame().to_csv(path, index=False)
    template = EXTRA_COMMANDS.get(name) or COMMANDS[name]
    args = [a.format(path=path) for a in template]
    if name == "report":
        args += ["-o", str(tmp / "out.html")]
    return args


def with_option(args: list[str], flag: str, value: str) -> list[str]:
    """``args`` with ``flag`` set to ``value`` (replaced when the base command sets it)."""
    out = list(args)
    if flag in out:
        out[out.index(flag) + 1] = value
    else:
        out += [flag, value]
    return out


def assert_error_or_answer(code: int, stderr: str, args: list[str]) -> None:
    """A value outside an option's domain: a one-line error, or the right answer (exit 0)."""
    if code != 0:
        assert_one_line_error(code, stderr, args)
    assert "Traceback" not in stderr


@FUZZ
@given(
    choice=st.sampled_from(
        [(name, flag) for name, flags in sorted(NUMERIC_OPTIONS.items()) for flag in flags]
    ),
    value=st.sampled_from(BAD_NUMBERS),
)
def test_numeric_options_out_of_their_domain(
    tmp_path: Path, choice: tuple[str, str], value: str
) -> None:
    name, flag = choice
    args = with_option(option_args(name, tmp_path), flag, value)
    if flag == "--n-boot" and name == "agree":
        args += ["--ci", "bootstrap"]
    code, stderr = run(args)
    assert_error_or_answer(code, stderr, args)
    if value in ("-1", "abc") and flag in ("--seed", "--n-boot"):
        assert code == 2, f"accord {' '.join(args)} accepted {value}"
    if value == "100000000000000000000" and flag == "--n-boot":  # more than memory holds
        assert code == 2, f"accord {' '.join(args)} accepted {value}"


@FUZZ
@given(
    choice=st.sampled_from(
        [(name, flag) for name, flags in sorted(CHOICE_OPTIONS.items()) for flag in flags]
    ),
    value=st.sampled_from(("bogus", "", "NOMINAL", "1")),
)
def test_unknown_choices_are_one_line_errors(
    tmp_path: Path, choice: tuple[str, str], value: str
) -> None:
    name, flag = choice
    args = with_option(option_args(name, tmp_path), flag, value)
    code, stderr = run(args)
    assert_error_or_answer(code, stderr, args)
    if value == "bogus":
        assert code == 2, f"accord {' '.join(args)} accepted {value}"


#: Columns of odd dtypes, one of which replaces the item, rater or label column of
#: :func:`base_frame` (8 rows) before the Python entry points read it.
ODD_COLUMNS: dict[str, Any] = {
    "mixed objects": [1, "a", 2.5, None, True, "b", 3, "a"],
    "bool": [True, False, True, True, False, False, True, False],
    "datetime": pd.date_range("2020-01-01", periods=8),
    "timedelta": pd.to_timedelta(range(8), unit="s"),
    "categorical": pd.Categorical(list("xyxyxyxy")),
    "complex": np.arange(8) + 1j,
    "bytes": [b"a", b"b"] * 4,
    "tuples": [(1,), (2,)] * 4,
    "dicts": [{"a": 1}, {"b": 2}] * 4,
    "floats with nan and inf": [0.1, np.nan, 0.2, 0.3, 0.1, 0.2, np.inf, 0.1],
}


def entry_points() -> dict[str, Any]:
    """The Python front doors that read a frame by its item, rater and label columns."""
    import accord

    return {
        "agreement": accord.agreement,
        "agreement interval": lambda f, **kw: accord.agreement(f, level="interval", **kw),
        "consensus": accord.consensus,
        "from_long": accord.Ratings.from_long,
    }


def assert_result_or_input_error(call: Any, *args: Any, **kwargs: Any) -> None:
    """A result, or an accord InvalidInputError (a subclass), never another exception."""
    from accord import InvalidInputError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(*args, **kwargs)
        except InvalidInputError as exc:
            assert "\n" not in str(exc).strip(), str(exc)


@FUZZ
@given(
    kind=st.sampled_from(sorted(ODD_COLUMNS)),
    role=st.sampled_from(("item", "rater", "label")),
    door=st.sampled_from(sorted(entry_points())),
)
def test_python_entry_points_on_odd_dtypes(kind: str, role: str, door: str) -> None:
    frame = base_frame()
    frame[role] = ODD_COLUMNS[kind]
    assert_result_or_input_error(
        entry_points()[door], frame, item="item", rater="rater", label="label"
    )


@pytest.mark.parametrize("door", sorted(entry_points()))
@pytest.mark.parametrize("kind", ["pandas", "pyarrow"])
def test_python_entry_points_on_duplicate_column_names(door: str, kind: str) -> None:
    import pyarrow as pa

    frame = base_frame()[["item", "rater", "label", "label"]]
    data: Any = frame
    if kind == "pyarrow":
        data = pa.table([pa.array(frame.iloc[:, j].tolist()) for j in range(4)],
                        names=list(frame.columns))  # fmt: skip
    from accord import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"2 columns named 'label' \(columns 3, 4"):
        entry_points()[door](data, item="item", rater="rater", label="label")


@pytest.mark.parametrize("door", sorted(entry_points()))
def test_python_entry_points_on_non_string_column_names(door: str) -> None:
    frame = base_frame()[["item", "rater", "label"]]
    frame.columns = [0, 1, 2]
    assert_result_or_input_error(entry_points()[door], frame, item=0, rater=1, label=2)
    assert_result_or_input_error(entry_points()[door], frame, item="0", rater="1", label="2")
