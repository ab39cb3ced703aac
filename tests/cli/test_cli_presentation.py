"""How the command line presents itself: tables that fit the terminal, numbers printed as
people read them, help whose examples run as shown, messages that name flags, and example
data that ships with the package."""

from __future__ import annotations

import filecmp
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord import datasets
from accord.cli import app

from .._cli import cli_json

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
runner = CliRunner()

AGREE = ["agree", str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
         "--label", "diagnosis"]  # fmt: skip
PANEL = ["calibrate", str(EXAMPLES / "panel.csv"), "--item", "proposal", "--rater", "reviewer",
         "--score", "score", "--confidence", "confidence"]  # fmt: skip


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> object:
    def set_width(width: int) -> None:
        monkeypatch.setenv("COLUMNS", str(width))

    return set_width


# --- tables fit the terminal -------------------------------------------------------------


COMMANDS = {
    "agree": AGREE,
    "agree-ordinal": [
        "agree",
        str(EXAMPLES / "birads.csv"),
        "--item",
        "finding",
        "--rater",
        "modality",
        "--label",
        "birads",
        "--level",
        "ordinal",
    ],
    "pair": ["pair", "--table", str(EXAMPLES / "birads-table.csv"), "--dichotomize"],
    "consensus": ["consensus", *AGREE[1:]],
    "calibrate": PANEL,
    "confidence": [
        "confidence",
        str(EXAMPLES / "sclite-test3b-words.csv"),
        "--correct",
        "correct",
        "--confidence",
        "confidence",
        "--group",
        "speaker",
    ],
    "spans": ["spans", str(EXAMPLES / "spans"), "--match", "overlap"],
}


@pytest.mark.parametrize("width", [80, 60])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_line_wider_than_the_terminal(
    name: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: at least 120 columns were hard-coded, so an 80-column terminal wrapped every row.
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run(*COMMANDS[name])
    assert code == 0, err
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert too_wide == [], f"{len(too_wide)} lines over {width}: {too_wide[:2]}"


def test_columns_left_out_are_named_and_numbers_never_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "66")  # (at 80 every column fits: the note is a footnote)
    code, out, _ = run(*AGREE)
    assert code == 0
    assert "…" not in out  # no header or cell cut with an ellipsis
    assert "0.4302" in out and "[0.3194, 0.5411]" in out  # Fleiss' kappa and its interval
    left_out = re.search(r"Left out to fit 66 columns: ([^(]*)", " ".join(out.split()))
    assert left_out is not None
    for header in left_out.group(1).strip().split(", "):
        assert f" {header} " not in out.splitlines()[1]  # named there, absent from the header
    monkeypatch.setenv("COLUMNS", "200")
    _, wide, _ = run(*AGREE)
    assert "Left out" not in wide and " items " in wide


@pytest.mark.parametrize("width", [60, 80, 100])
def test_coefficient_names_are_never_cut_inside_a_word(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: at 80 columns the names column was squeezed below its longest word and printed
    # "percent_agreemen" over "t" (and "krippendorff_alp" over "ha (nominal)").
    def name_words(columns: int) -> set[str]:
        monkeypatch.setenv("COLUMNS", str(columns))
        code, out, _ = run(*COMMANDS["agree-ordinal"])
        assert code == 0
        rows = [line.split("│")[1] for line in out.splitlines() if line.startswith("│")]
        # (a number [1] after a name is its footnote's, when the notes do not fit)
        return {word for row in rows for word in row.split() if not re.fullmatch(r"\[\d+\]", word)}

    whole = name_words(300)
    assert {"percent_agreement", "krippendorff_alpha", "(ordinal)"} <= whole
    assert name_words(width) == whole


def test_rater_ids_stay_whole_and_unique(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: reviewer_10 and reviewer_11 both printed as "reviewer_…", and the header
    # expected_chi2 as "expected_ch…".
    for width in ("80", "120"):
        monkeypatch.setenv("COLUMNS", width)
        code, out, _ = run(*PANEL)
        assert code == 0
        assert "…" not in out
        shown = set(re.findall(r"reviewer_\d+", out))
        assert shown == {f"reviewer_{i}" for i in range(1, 13)}
        flat = " ".join(out.split())
        assert "expected_chi2" in flat  # in the header, or named among the columns left out


def test_calibrate_title_is_not_squeezed_into_the_summary_column(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the title wrapped into the 36 characters of the name/value table.
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run(*PANEL)
    assert code == 0
    lines = out.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("panel calibration:"))
    assert lines[title].startswith("panel calibration: 40 items, 12 raters, 160 assessments")
    assert "dof" in lines[title]
    assert title <= 2  # after the verdict, before the tables


# --- numbers as people read them ----------------------------------------------------------


def test_tiny_p_values_print_as_below_the_last_digit() -> None:
    # Before: 0.0000. Fleiss' kappa 0.430 on 30 patients has p far below 1e-4.
    code, out, _ = run(*AGREE)
    assert code == 0
    assert "<0.0001" in out
    assert " 0.0000 │" not in out


def test_interval_at_the_bound_is_starred_and_footnoted(tmp_path: Path) -> None:
    # 9 of 10 agree: kappa 0.7826 with SE 0.2013, so the t interval on 9 df would pass 1
    # (0.7826 + 2.262 * 0.2013 = 1.238); it is truncated at 1 and the table says so.
    table = tmp_path / "t.csv"
    table.write_text(",x,y\nx,6,0\ny,1,3\n")
    code, out, _ = run("pair", "--table", str(table))
    assert code == 0
    assert "1.0000*]" in out
    assert "*: the interval reaches 1, the largest value the coefficient can take" in " ".join(
        out.split()
    )
    code, out, _ = run(*AGREE)
    assert "*" not in out  # no interval of the diagnoses reaches 1: no star, no footnote
    # A Wilson interval of a bin where every unit is correct ends at 1 without truncation.
    units = tmp_path / "units.csv"
    units.write_text("correct,confidence\n1,0.95\n1,0.96\n1,0.97\n0,0.1\n")
    code, out, _ = run("confidence", str(units), "--correct", "correct", "--confidence",
                       "confidence")  # fmt: skip
    assert code == 0 and "1.000]" in out and "*" not in out


def test_pair_json_counts_are_integers_and_runs_are_byte_identical() -> None:
    # Before: "n_items": 186.0, and an unseeded bootstrap gave another IA interval each run.
    args = ["pair", str(EXAMPLES / "birads.csv"), "--item", "finding", "--rater", "modality",
            "--label", "birads", "--format", "json"]  # fmt: skip
    first, second = run(*args), run(*args)
    assert first[0] == 0
    assert first[1] == second[1]
    doc = cli_json(first[1])
    assert doc["input"]["n_items"] == 186 and isinstance(doc["input"]["n_items"], int)
    assert doc["input"]["table"][0][0] == 51 and isinstance(doc["input"]["table"][0][0], int)
    assert doc["informational_agreement"]["n_boot"] == 2000


def test_colour_respects_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # as on a terminal
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, coloured, _ = run(*AGREE)
    assert "\x1b[1;36m" in coloured  # the title in bold cyan
    monkeypatch.setenv("NO_COLOR", "1")
    _, plain, _ = run(*AGREE)
    assert re.search(r"\x1b\[[0-9;]*3[0-9]m", plain) is None  # no foreground colour at all


# --- help ---------------------------------------------------------------------------------


def test_help_shows_flags_without_a_value_and_whole_summaries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: "--dichotomize <bool>" and summaries broken mid-sentence at the docstring's
    # line breaks ("consensus (entropy and" / "surprisal, ...").
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run("pair", "--help")
    assert code == 0
    assert "<bool>" not in out
    assert re.search(r"^\s+--dichotomize\s+Kappa and IA", out, re.M)
    code, out, _ = run("--help")
    assert code == 0
    flat = " ".join(out.split())
    for command in app.registered_commands:
        doc = command.callback.__doc__ if command.callback else ""
        summary = " ".join((doc or "").split("\n\n")[0].split())
        assert summary and summary in flat, command.name
    assert max(len(line) for line in out.splitlines()) <= 80


def _help_examples(*command: str) -> list[list[str]]:
    """The example commands a --help page shows, joined across `` \\`` continuations."""
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    block = result.stdout.split("Examples", 1)[1].splitlines()[1:]
    commands: list[str] = []
    pending = ""
    for line in block:
        text = line.strip()
        if not text:
            continue
        pending += (" " if pending else "") + text.removesuffix("\\").strip()
        if not text.endswith("\\"):
            commands.append(pending)
            pending = ""
    return [shlex.split(c) for c in commands]


#: The subcommands with a --help page of their own (demo is run by the fixture).
SUBCOMMANDS = sorted(c.name for c in app.registered_commands if c.name and c.name != "demo")


def _once(commands: list[tuple[str, list[str]]], seen: set[str]) -> list[Any]:
    """One test per distinct command (``accord demo`` is the fixture's), ids from where shown."""
    params = []
    for i, (where, argv) in enumerate(commands):
        if (key := shlex.join(argv)) not in seen:
            seen.add(key)
            params.append(pytest.param(argv, id=f"{where}-{i}"))
    return params


_SHOWN: set[str] = {"accord demo"}
#: Every example command ``accord --help`` and ``accord <command> --help`` show, once each.
HELP_EXAMPLES = _once(
    [
        (name or "accord", argv)
        for name in ["", *SUBCOMMANDS]
        for argv in _help_examples(*([name] if name else []))
    ],
    _SHOWN,
)


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder outside the checkout where ``accord demo`` has copied the example files."""
    folder = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("COLUMNS", "100")
        code, out, err = run("demo")
        # Before: `accord demo` outside a checkout said "example file not found".
        assert code == 0, err
        assert "copied the example files bundled with accord to examples/" in out
        assert (folder / "out" / "report-diagnoses.html").is_file()
        yield folder


def test_every_command_shows_examples_in_its_help() -> None:
    for name in SUBCOMMANDS:
        assert _help_examples(name), f"accord {name} --help shows no example"
    assert len(HELP_EXAMPLES) >= 2 * len(SUBCOMMANDS)
    assert "accord demo" in {shlex.join(argv) for argv in _help_examples()}


# slow: together the examples run every command once (about a minute on two cores).
@pytest.mark.slow
@pytest.mark.parametrize("argv", HELP_EXAMPLES)
def test_help_example_runs_as_shown_after_accord_demo_anywhere(
    argv: list[str], demo_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: --help showed scores.csv, system.sgml and panel.csv, which did not exist.
    monkeypatch.chdir(demo_folder)
    monkeypatch.setenv("COLUMNS", "100")
    assert argv[0] == "accord"
    result = runner.invoke(app, argv[1:])
    assert result.exit_code == 0, f"{shlex.join(argv)}: {result.stderr}"
    assert "Traceback" not in result.output


# --- messages name flags ------------------------------------------------------------------


def test_messages_name_flags_not_python_keywords(tmp_path: Path) -> None:
    units = tmp_path / "units.csv"
    units.write_text("correct,confidence\n1,0.5\n0,1.5\n1,0.9\n")
    base = ["confidence", str(units), "--correct", "correct", "--confidence", "confidence"]
    code, _, err = run(*base)
    assert code == 2
    assert "pass --out-of-range clip" in err and "out_of_range=" not in err
    assert err.count("\n") == 1 and "Traceback" not in err
    # The default of --folds (5) does not fit 3 units: say it was the default, and the flag.
    code, _, err = run(*base, "--out-of-range", "clip", "--recalibrate", "bins")
    assert code == 2
    assert err.strip() == (
        "accord: error: --folds must be an integer from 2 to the number of units (3); got 5 "
        "(the default; set --folds)"
    )
    code, _, err = run(*base, "--out-of-range", "clip", "--recalibrate", "bins", "--folds", "4")
    assert err.strip().endswith("got 4")
    code, _, err = run(*base, "--out-of-range", "clip", "--bins", "0")
    assert err.strip() == "accord: error: --bins must be a positive integer; got 0"
    code, _, err = run("consensus", *AGREE[1:], "--reference", "al")
    assert err.strip() == "accord: error: --reference must be one of all, others; got al"


def test_python_callers_keep_python_keywords_after_a_cli_run(tmp_path: Path) -> None:
    units = tmp_path / "units.csv"
    units.write_text("correct,confidence\n1,0.5\n0,1.5\n")
    run("confidence", str(units), "--correct", "correct", "--confidence", "confidence")
    with pytest.raises(accord.InvalidInputError, match=r"pass out_of_range='clip'"):
        accord.normalized_cross_entropy([1, 0], [0.5, 1.5])
    with pytest.raises(accord.InvalidInputError, match=r"The 'folds' parameter of recalibrate"):
        accord.recalibrate([1, 0, 1], [0.2, 0.3, 0.4], folds=np.int64(5))
    with pytest.raises(accord.InvalidInputError, match=r"Got 5 instead"):  # not np.int64(5)
        accord.recalibrate([1, 0, 1], [0.2, 0.3, 0.4], folds=np.int64(5))


def test_out_of_memory_is_one_line_naming_the_size_and_the_stream_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError(
            "Unable to allocate 7.45 GiB for an array with shape (1000000, 1000) and data "
            "type float64"
        )

    from accord.front import agreement as package  # the module of the public function

    monkeypatch.setattr(package, "agreement", exhausted)
    code, out, err = run(*AGREE)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err + out
    assert "out of memory: unable to allocate 7.45 GiB" in err
    assert "--engine stream reads the data in batches" in err


# --- example data ships with the package --------------------------------------------------


def test_bundled_data_are_the_documented_examples() -> None:
    for name in datasets.NAMES:
        bundled, documented = datasets.path(name), EXAMPLES / name
        if bundled.is_dir():
            cmp = filecmp.dircmp(bundled, documented)
            assert not (cmp.left_only or cmp.right_only or cmp.diff_files), name
            for sub in cmp.subdirs.values():
                assert not (sub.left_only or sub.right_only or sub.diff_files), name
        else:
            assert bundled.read_bytes() == documented.read_bytes(), name


def test_loaders_give_the_published_values() -> None:
    # Fleiss (1971) Table 1: kappa 0.430; Casagrande et al. (2020) Table 2: kappa 0.821,
    # IA 0.729; NIST SCTK test3b (sclite -o sum): pooled NCE 0.205.
    assert round(accord.fleiss_kappa(datasets.load_diagnoses()).statistic, 3) == 0.430
    assert round(accord.cohen_kappa(datasets.load_birads()).statistic, 3) == 0.821
    table = datasets.load_birads_table()
    assert round(accord.informational_agreement(table, n_boot=0).statistic, 3) == 0.729
    words = datasets.load_sclite_words()
    nce = accord.normalized_cross_entropy(words["correct"], words["confidence"])
    assert round(nce.statistic, 3) == 0.205
    panel = datasets.load_panel()
    assert set(panel.columns) == {"proposal", "reviewer", "score", "confidence", "level"}
    with pytest.raises(accord.InvalidInputError, match=r"no bundled data set 'nope\.csv'"):
        datasets.path("nope.csv")


def test_pandalm_loader_gives_the_published_kappas() -> None:
    # WeOpenML/PandaLM README (test data): Cohen's kappa between the three annotators
    # 0.85 (1-2), 0.88 (1-3), 0.86 (2-3); sklearn's cohen_kappa_score run side by side.
    from sklearn.metrics import cohen_kappa_score

    ratings = datasets.load_pandalm()
    long = pd.read_csv(datasets.path("pandalm.csv"))
    wide = long.pivot(index="item", columns="rater", values="preference")
    published = {("annotator1", "annotator2"): 0.85, ("annotator1", "annotator3"): 0.88,
                 ("annotator2", "annotator3"): 0.86}  # fmt: skip
    for (a, b), value in published.items():
        kappa = accord.cohen_kappa(ratings, raters=(a, b)).statistic
        assert round(kappa, 2) == value
        assert kappa == pytest.approx(cohen_kappa_score(wide[a], wide[b]), abs=1e-12)
    # 999 items; every rater but gpt-3.5-turbo (25 unusable verdicts left out) rated each.
    assert ratings.n_items == 999
    counts = long["rater"].value_counts().to_dict()
    assert counts == {"annotator1": 999, "annotator2": 999, "annotator3": 999,
                      "pandalm-7b": 999, "gpt-3.5-turbo": 974}  # fmt: skip
    assert set(long["preference"]) == {"first", "second", "tie"}


def test_read_ratings_accepts_a_frame() -> None:
    # Before: TypeError "expected str, bytes or os.PathLike object, not DataFrame".
    frame = pd.read_csv(EXAMPLES / "diagnoses.csv")
    ratings = accord.read_ratings(frame, item="patient", rater="rater", label="diagnosis")
    assert ratings.n_ratings == 180
    assert round(accord.fleiss_kappa(ratings).statistic, 4) == 0.4302


def _page_commands() -> list[tuple[str, str]]:
    """Every ``accord ...`` command in a fenced block of README.md and docs/*.md (shell lines
    continued with `` \\`` joined), with its page."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S):
            if ">>>" in block:
                continue
            command = ""
            for line in block.splitlines():
                stripped = line.strip()
                if not stripped:
                    continue
                command += (" " if command else "") + stripped.removesuffix("\\").strip()
                if not stripped.endswith("\\"):
                    if command.startswith("accord "):
                        found.append((page.name, command))
                    command = ""
    return found


#: Every ``accord ...`` command README.md and docs/*.md show that no --help page shows too.
PAGE_COMMANDS = _once([(page, shlex.split(command)) for page, command in _page_commands()], _SHOWN)


@pytest.fixture(scope="module")
def examples_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the example files under examples/, as the pages assume."""
    folder = tmp_path_factory.mktemp("pages")
    datasets.copy_to(folder / "examples")
    return folder


def test_the_pages_show_commands() -> None:
    assert len(_page_commands()) >= 15


# slow: together the examples run every command once (about a minute on two cores).
@pytest.mark.slow
@pytest.mark.parametrize("command", PAGE_COMMANDS)
def test_every_command_a_page_shows_runs_as_shown(
    command: list[str], examples_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: README named scores.csv and system.sgml, the pages panel.csv, units.csv,
    # ratings.parquet and marks/*.parquet, none of which existed.
    monkeypatch.chdir(examples_folder)
    result = runner.invoke(app, command[1:])
    assert result.exit_code == 0, f"{shlex.join(command)}: {result.stderr}"
    assert "Traceback" not in result.output


def test_values_in_messages_as_the_user_wrote_them(tmp_path: Path) -> None:
    # Before: "column 'c': np.float64(-1.0) at row 1 must be positive and finite".
    data = tmp_path / "p.csv"
    data.write_text("item,rater,score,c\n1,a,1,-1.0\n1,b,2,1\n2,a,2,1\n2,b,3,1\n")
    code, _, err = run("calibrate", str(data), "--item", "item", "--rater", "rater", "--score",
                       "score", "--confidence", "c")  # fmt: skip
    assert code == 2
    assert err.strip() == (
        "accord: error: column 'c': -1.0 at row 1 must be positive and finite (1 such rows: 1)"
    )


def test_the_dialect_renders_hints_for_each_caller_and_ends_with_its_block() -> None:
    from accord._errors import bad_parameter, option, speaking

    class Flags:
        def flag(self, keyword: str) -> str | None:
            return None if keyword == "rng" else "--" + keyword.replace("_", "-")

        def given(self, keyword: str) -> bool:
            return keyword != "folds"

    assert option("duplicates", "first", "last") == "duplicates='first' or 'last'"
    with speaking(Flags()):
        assert option("duplicates", "first", "last") == "--duplicates first or last"
        assert option("per_component", True) == "--per-component"
        assert option("rng", 3) == "rng=3"  # no flag for it: the Python spelling
        assert bad_parameter("f", "folds", "at most 3", np.int64(5)) == (
            "--folds must be at most 3; got 5 (the default; set --folds)"
        )
        assert bad_parameter("f", "bins", "positive", 0) == "--bins must be positive; got 0"
    assert option("out_of_range", "clip") == "out_of_range='clip'"


def test_duplicate_ratings_name_the_flag_on_the_command_line(tmp_path: Path) -> None:
    # Before: "Pass duplicates='first', 'last' or 'mean'" from `accord agree`.
    data = tmp_path / "dup.csv"
    data.write_text("item,rater,label\n1,a,x\n1,a,y\n2,b,x\n")
    code, _, err = run("agree", str(data), "--item", "item", "--rater", "rater", "--label", "label")
    assert code == 2
    assert "--duplicates first or last or mean" in err and "duplicates=" not in err
    with pytest.raises(accord.DuplicateRatingError, match="duplicates='first'"):
        accord.read_ratings(data, item="item", rater="rater", label="label")


def test_out_of_memory_under_the_stream_engine_does_not_advise_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError("Unable to allocate 228. GiB for an array")

    from accord.front import agreement as package

    monkeypatch.setattr(package, "agreement", exhausted)
    code, _, err = run(*AGREE, "--engine", "stream")
    assert code == 2 and err.count("\n") == 1
    assert "out of memory: unable to allocate 228. GiB" in err
    assert "--engine stream" not in err
