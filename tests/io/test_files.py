"""Files as users have them: separators, byte-order marks, compression, encodings, and every
broken file or unwritable output as one line on stderr with exit status 2."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import pathlib
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord._errors import ColumnNotFoundError, FileReadError, InvalidInputError
from accord.cli import app
from accord.io.files import parse_separator, sniff_csv
from accord.io.ratings import read_table

from .._cli import cli_json

runner = CliRunner()

GOOD = "item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,y\n3,a,x\n3,b,y\n"
AGREE = ["--item", "item", "--rater", "rater", "--label", "label", "--format", "json"]


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    return result.exit_code, result.stdout, result.stderr


def one_line_error(*args: str) -> str:
    """Run the command, check it failed with one line on stderr and exit 2; the line."""
    code, _, err = invoke(*args)
    lines = err.strip().splitlines()
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("accord: error: ")
    return lines[0]


def agree_json(*args: str) -> dict[str, Any]:

    code, out, err = invoke("agree", *args, *AGREE)
    assert code == 0, err
    result: dict[str, Any] = cli_json(out)
    return result


# ----------------------------------------------------------------------------- separators


@pytest.mark.parametrize(("sep", "given"), [(";", ";"), ("\t", "\\t"), ("|", "|")])
def test_sep_reads_other_separators(tmp_path: Path, sep: str, given: str) -> None:
    path = tmp_path / "r.csv"
    path.write_text(GOOD.replace(",", sep))
    result = agree_json(str(path), "--sep", given)
    assert result["report"]["ratings"] == 6


@pytest.mark.parametrize(("sep", "shown"), [(";", "';'"), ("\t", "'\\t'"), ("|", "'|'")])
def test_a_one_cell_header_names_the_separator_it_looks_like(
    tmp_path: Path, sep: str, shown: str
) -> None:
    # Before: "column 'item' not found; the columns are: 'item;rater;label'".
    path = tmp_path / "r.csv"
    path.write_text(GOOD.replace(",", sep))
    line = one_line_error("agree", str(path), *AGREE)
    assert f"looks separated by {shown}" in line
    assert f"--sep {shown}" in line
    with pytest.raises(ColumnNotFoundError, match=re.escape(f"sep={shown}")):
        accord.read_ratings(path, item="item", rater="rater", label="label")


def test_a_tsv_with_commas_names_the_comma(tmp_path: Path) -> None:
    path = tmp_path / "r.tsv"
    path.write_text(GOOD)
    with pytest.raises(ColumnNotFoundError, match=r"looks separated by ',' \(comma\)"):
        accord.read_ratings(path, item="item", rater="rater", label="label")


def test_separator_option_is_checked() -> None:
    assert parse_separator("tab") == "\t"
    assert parse_separator("\\t") == "\t"
    with pytest.raises(InvalidInputError, match="one character"):
        parse_separator(";;")
    line = one_line_error("agree", "whatever.csv", *AGREE, "--sep", ";;")
    assert "--sep" in line


def test_a_wrong_sep_reads_the_same_with_every_engine(tmp_path: Path) -> None:
    # --sep reaches the stream engine: the wrong one is the memory engine's message.
    path = tmp_path / "r.csv"
    path.write_text(GOOD)
    memory = one_line_error("agree", str(path), *AGREE, "--sep", ";")
    stream = one_line_error("agree", str(path), *AGREE, "--engine", "stream", "--sep", ";")
    assert stream == memory
    assert "looks separated by ',' (comma), not ';'" in stream


# --------------------------------------------------------------- BOM, compression, encoding


def test_utf8_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    r = accord.read_ratings(path, item="item", rater="rater", label="label")
    assert r.n_ratings == 6
    assert sniff_csv(path).header == ("item", "rater", "label")


def test_utf16_with_its_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_bytes(GOOD.encode("utf-16"))
    r = accord.read_ratings(path, item="item", rater="rater", label="label")
    assert (r.n_items, r.n_ratings) == (3, 6)


def _zstd(data: bytes) -> bytes:
    import pyarrow as pa

    return bytes(pa.Codec("zstd").compress(data, asbytes=True))


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".csv.gz", gzip.compress),
        (".csv.bz2", bz2.compress),
        (".csv.zst", _zstd),
        (".csv.xz", lzma.compress),
        (".csv", gzip.compress),  # told by the magic number, not the name
    ],
)
def test_compressed_csv(tmp_path: Path, suffix: str, compress: Any) -> None:
    path = tmp_path / f"r{suffix}"
    path.write_bytes(compress(GOOD.encode()))
    r = accord.read_ratings(path, item="item", rater="rater", label="label")
    assert (r.n_items, r.n_raters, r.n_ratings) == (3, 2, 6)
    assert agree_json(str(path))["report"]["ratings"] == 6


def test_latin1_names_the_byte_and_the_flag(tmp_path: Path) -> None:
    # Before: "ArrowInvalid: Invalid UTF8 sequence" or a UnicodeDecodeError traceback.
    path = tmp_path / "latin1.csv"
    text = GOOD.replace("y", "café")
    path.write_bytes(text.encode("latin-1"))
    offset = text.encode("latin-1").index(b"\xe9")
    line = one_line_error("agree", str(path), *AGREE)
    assert f"is not UTF-8 text: byte 0xe9 at offset {offset}" in line
    assert "--encoding latin-1" in line
    r = accord.read_ratings(path, item="item", rater="rater", label="label", encoding="latin-1")
    assert "café" in r.categories
    assert agree_json(str(path), "--encoding", "latin-1")["report"]["ratings"] == 6


def test_latin1_far_down_the_file_names_the_offset(tmp_path: Path) -> None:
    # Past the first block: found by a second look at the file after the parser fails.
    rows = "".join(f"{i},a,x\n{i},b,x\n" for i in range(20_000))
    head = ("item,rater,label\n" + rows).encode()
    path = tmp_path / "late.csv"
    path.write_bytes(head + "99999,a,café\n99999,b,x\n".encode("latin-1"))
    offset = len(head) + len("99999,a,caf")
    with pytest.raises(FileReadError, match=f"byte 0xe9 at offset {offset} "):
        accord.read_ratings(path, item="item", rater="rater", label="label")


def test_unknown_encoding_is_one_line() -> None:
    line = one_line_error("agree", "x.csv", *AGREE, "--encoding", "klingon")
    assert "unknown encoding 'klingon'" in line


# ------------------------------------------------------------------------ broken files


def test_binary_garbage_is_one_line(tmp_path: Path) -> None:
    # Before: a UnicodeDecodeError traceback.
    path = tmp_path / "garbage.csv"
    path.write_bytes(bytes(range(256)) * 4)
    line = one_line_error("agree", str(path), *AGREE)
    assert "binary content" in line and str(path) in line


def test_a_parquet_file_named_csv_says_so(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    pd.read_csv(__import__("io").StringIO(GOOD)).to_parquet(path)
    assert "is a Parquet file, not a CSV file" in one_line_error("agree", str(path), *AGREE)


@pytest.mark.parametrize("command", ["agree", "calibrate", "confidence", "spans"])
def test_truncated_parquet_is_one_line(tmp_path: Path, command: str) -> None:
    # Before: an ArrowInvalid traceback.
    whole = tmp_path / "whole.parquet"
    frame = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "label": ["x", "y"]})
    frame.to_parquet(whole)
    path = tmp_path / "cut.parquet"
    path.write_bytes(whole.read_bytes()[:100])
    columns = {
        "agree": ["--item", "item", "--rater", "rater", "--label", "label"],
        "calibrate": ["--item", "item", "--rater", "rater", "--score", "label"],
        "confidence": ["--correct", "item", "--confidence", "label"],
        "spans": ["-i", "table"],
    }[command]
    line = one_line_error(command, str(path), *columns)
    assert f"cannot read {path} as Parquet" in line


def test_an_empty_directory_is_one_line(tmp_path: Path) -> None:
    # a folder is read as every file in it (tests/io/test_read_structure.py); an empty one, or a
    # glob that matches nothing, says so
    line = one_line_error("agree", str(tmp_path), *AGREE)
    assert line == f"accord: error: no file in the folder: {tmp_path}"
    line = one_line_error("agree", str(tmp_path / "*.csv"), *AGREE)
    assert line == f"accord: error: no file matches the pattern: {tmp_path / '*.csv'}"


def test_an_unreadable_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.csv"
    path.write_text(GOOD)
    path.chmod(0)
    if os.access(path, os.R_OK):  # running as root: permissions do not stop a read
        real_open = pathlib.Path.open

        def deny(self: Path, *args: Any, **kwargs: Any) -> Any:
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "open", deny)
    line = one_line_error("agree", str(path), *AGREE)
    assert line == f"accord: error: permission denied: {path}"


def test_ragged_rows_name_the_line(tmp_path: Path) -> None:
    # Before: the extra field was dropped without a word.
    path = tmp_path / "ragged.csv"
    path.write_text(GOOD + "4,a,x,EXTRA\n4,b,x\n")
    line = one_line_error("agree", str(path), *AGREE)
    assert f"{path}, line 8: an extra field where the header has 3 ('4,a,x,EXTRA')" in line
    short = tmp_path / "short.csv"
    short.write_text(GOOD + "4,a\n")
    with pytest.raises(FileReadError, match="line 8: 2 fields where the header has 3"):
        accord.read_ratings(short, item="item", rater="rater", label="label")


def test_an_extra_field_on_the_first_row_does_not_shift_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "shifted.csv"
    path.write_text("item,rater,label\n1,a,x,EXTRA\n1,b,x\n")
    with pytest.raises(FileReadError, match="line 2: an extra field"):
        accord.read_ratings(path, item="item", rater="rater", label="label")


def test_duplicate_header_names_name_the_column(tmp_path: Path) -> None:
    # Before: the first of the two label columns was used.
    path = tmp_path / "dup.csv"
    path.write_text("item,rater,label,label\n1,a,x,y\n1,b,x,y\n")
    line = one_line_error("agree", str(path), *AGREE)
    assert "names column 'label' 2 times (columns 3, 4)" in line


def test_an_empty_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("")
    assert one_line_error("agree", str(path), *AGREE).endswith("the file is empty")


def test_a_bad_json_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"item": 1, "rater": "a", "label": "x"}\n{"item": 1, "rater": "b", "la\n')
    line = one_line_error("agree", str(path), *AGREE)
    assert f"{path}, line 2: not valid JSON" in line


def test_latin1_bio_and_brat_files(tmp_path: Path) -> None:
    bio = tmp_path / "x.bio"
    bio.write_bytes("café B-X B-X\nau O O\n".encode("latin-1"))
    line = one_line_error("spans", str(bio))
    assert "byte 0xe9 at offset 3" in line
    code, _, err = invoke("spans", str(bio), "--encoding", "latin-1", "--format", "json")
    assert code == 0, err


# ------------------------------------------------------------- values and row order


def test_calibrate_shows_values_as_written(tmp_path: Path) -> None:
    # Before: "column 'conf': np.float64(0.0) at row 1 must be positive and finite".
    path = tmp_path / "panel.csv"
    path.write_text("item,rater,score,conf\n1,a,1,0.0\n1,b,2,1\n2,a,3,1\n2,b,1,1\n")
    line = one_line_error(
        "calibrate", str(path), "--item", "item", "--rater", "rater", "--score", "score",
        "--confidence", "conf",
    )  # fmt: skip
    assert "column 'conf': 0.0 at row 1 must be positive" in line
    assert "np." not in line


def test_confidence_names_the_first_row_at_fault(tmp_path: Path) -> None:
    # Before: "missing value at row 3" although row 2 holds 1.5, outside [0, 1].
    path = tmp_path / "units.csv"
    path.write_text("ok,conf\n1,0.5\n0,1.5\n1,\n")
    line = one_line_error("confidence", str(path), "--correct", "ok", "--confidence", "conf")
    assert "found 1.5 at row 2" in line
    with pytest.raises(InvalidInputError, match=r"found 1\.5 at row 2"):
        accord.normalized_cross_entropy([1, 0, 1], [0.5, 1.5, float("nan")])
    with pytest.raises(InvalidInputError, match="missing value at row 1"):
        accord.normalized_cross_entropy([float("nan"), 0, 1], [0.5, 1.5, 0.2])
    # With --out-of-range clip, the range is no fault: the missing value at row 3 is.
    line = one_line_error(
        "confidence", str(path), "--correct", "ok", "--confidence", "conf",
        "--out-of-range", "clip",
    )  # fmt: skip
    assert "missing value at row 3" in line


def test_no_dtype_warning_from_a_long_mixed_column(tmp_path: Path) -> None:
    # Before: pandas' DtypeWarning, with the source path, leaked from `accord calibrate`.
    n = 120_000
    rows = "".join(f"{i},r{i % 3},{i % 5}\n" for i in range(n))
    path = tmp_path / "long.csv"
    path.write_text("item,rater,score\n" + rows + "x,r1,1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = read_table(path, ["item", "rater", "score"])
    assert len(frame) == n + 1
    assert frame["item"].iloc[0] == "0" and frame["item"].iloc[-1] == "x"


# ------------------------------------------------------------------------------- outputs


def test_output_dir_on_an_existing_file(tmp_path: Path, examples: Path) -> None:
    # Before: a FileExistsError traceback.
    taken = tmp_path / "taken"
    taken.write_text("")
    line = one_line_error(
        "consensus", str(examples / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
        "--label", "diagnosis", "--output-dir", str(taken),
    )  # fmt: skip
    assert line == f"accord: error: --output-dir {taken} exists and is not a folder"


@pytest.mark.parametrize(
    "args",
    [
        ["agree", "{data}", "--item", "patient", "--rater", "rater", "--label", "diagnosis",
         "-o", "{out}/a.json"],
        ["consensus", "{data}", "--item", "patient", "--rater", "rater", "--label", "diagnosis",
         "--output-dir", "{out}/tables"],
        ["report", "{data}", "--item", "patient", "--rater", "rater", "--label", "diagnosis",
         "-o", "{out}/page.html"],
    ],
)  # fmt: skip
def test_an_output_folder_that_cannot_be_written(
    tmp_path: Path, examples: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # Before: a PermissionError traceback.
    out = tmp_path / "locked"
    out.mkdir()
    out.chmod(0o500)
    if os.access(out, os.W_OK):  # running as root: permissions do not stop a write
        real_access = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode, **kw: False if Path(p) == out else real_access(p, mode)
        )
    data = str(examples / "diagnoses.csv")
    line = one_line_error(*[a.format(data=data, out=out) for a in args])
    assert f"permission denied in {out}" in line


def test_a_failing_write_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.csv"
    path.write_text(GOOD)
    target = tmp_path / "out.json"

    def refuse(self: Path, *args: Any, **kwargs: Any) -> int:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", refuse)
    line = one_line_error("agree", str(path), *AGREE, "-o", str(target))
    assert line == f"accord: error: cannot write {target}: permission denied"


def test_span_offsets_show_values_as_written(tmp_path: Path) -> None:
    # Before: "(first: np.float64(1.5))".
    path = tmp_path / "spans.csv"
    path.write_text("annotator,document,start,end,label\na,d,1.5,3,X\nb,d,1,3,X\n")
    line = one_line_error("spans", str(path))
    assert line.endswith("(first: 1.5)")


def test_a_truncated_gzip_file_is_one_line(tmp_path: Path) -> None:
    rows = "".join(f"{i},a,x\n{i},b,y\n" for i in range(5_000))
    whole = gzip.compress(("item,rater,label\n" + rows).encode())
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(whole[: len(whole) // 2])
    line = one_line_error("agree", str(path), *AGREE)
    assert f"cannot read {path} as CSV (damaged, truncated or another format)" in line
