"""``accord agree``: chance-corrected agreement among raters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    ALTERNATIVE_OPTION,
    DISTANCE_OPTION,
    DUPLICATES_OPTION,
    FACET_HELP,
    FIELD_OPTION,
    FROM_OPTION,
    MULTI_LABEL_OPTION,
    RATER_POPULATION_OPTION,
    RATINGS_FILE_ARGUMENT,
    SE_OPTION,
    SEED_OPTION,
    TEST_VALUE_OPTION,
    WEIGHTS_OPTION,
    EngineName,
    ExportToolName,
    OutputFormat,
    Shared,
    check_columns,
    check_engine_options,
    check_export_options,
    check_output,
    command_source,
    done_with,
    fail,
    format_ci,
    output_console,
    print_lead,
    print_table,
    ratings_keywords,
    read_source,
    rich_table,
    running,
    shared_options,
    user_errors,
    write_csv,
    write_json,
)

#: The columns of ``accord agree --format csv``, in order.
CSV_COLUMNS = (
    "name",
    "weights",
    "statistic",
    "standard_error",
    "ci_low",
    "ci_high",
    "ci_method",
    "pvalue",
    "test_value",
    "alternative",
    "se_kind",
    "standard_error_null",
    "n_items",
    "n_raters",
    "n_categories",
    "n_items_unpairable",
    "observed_agreement",
    "chance_agreement",
    "population_size",
    "method",
    "reason",
)


def _caption(results: list[Any], ci: str, left_out: bool, inference: dict[str, Any]) -> str:
    """The table's caption: which SE, interval and test each row has (the ICC's interval
    and why it was chosen), and the coefficients left out of a table of measurements
    (``inference``: the ``se``, ``test_value`` and ``alternative`` keywords)."""
    has_icc = any(getattr(coef, "label", None) for coef in results)
    reml = any(getattr(coef, "lr_statistic", None) is not None for coef in results)
    choice = next((c.interval_choice for c in results if getattr(c, "interval_choice", "")), "")
    icc_ci = " (ICC: profile likelihood of the REML fit" if reml else " (ICC: F interval"
    icc_ci += f", chosen as {choice})" if choice else ")"
    icc_p = " (ICC: likelihood-ratio test, REML on every item with a score)" if reml else (
        " (ICC: F test)")  # fmt: skip
    se = inference.get("se", "raters")
    reference = {"raters": "t interval on items - 1 df", "items": "t interval on raters - 1 df",
                 "unconditional": "normal interval"}.get(se, "")  # fmt: skip
    how = "BCa bootstrap over items" if ci == "bootstrap" else reference
    how += icc_ci if has_icc and ci != "bootstrap" else ""
    which = {"raters": "general (non-null) standard error conditional on the raters (Gwet "
             "2014 / irrCAC 1.4)", "items": "standard error conditional on the items "
             "(jackknife over raters, Gwet 2008)", "unconditional": "unconditional standard "
             "error (items and raters sampled, Gwet 2008)"}.get(se, se)  # fmt: skip
    value = f"{float(inference.get('test_value', 0.0)):g}"  # 0, not 0.0
    sided = {"two-sided": "two-sided test", "greater": "one-sided test (H1: greater)",
             "less": "one-sided test (H1: less)"}.get(inference.get("alternative", ""),
                                                        "two-sided test")  # fmt: skip
    caption = f"SE: {which}; CI: {how}; p: {sided} of {value}{icc_p if has_icc else ''}."
    if left_out:
        caption += (
            " Measurements: the coefficients that count exact matches of values (percent "
            "agreement, the kappas, AC1) are left out; --coefficients names them."
        )
    return caption


def render(
    report: Any,
    results: list[Any],
    fmt: OutputFormat,
    output: Path | None,
    *,
    ci: str = "analytic",
    level: float = 0.95,
    measurement: str = "nominal",
    ratings: Any = None,
    per_label: Any = None,
    left_out: bool = False,
    inference: dict[str, Any] | None = None,
    chosen: bool = False,
) -> None:
    """Print or write the report and coefficient table in the chosen format (the table
    format starts with the verdict: the headline coefficient at the ``measurement`` level
    read against its benchmarks; with the ``ratings``, Cohen's kappa for two raters, as the
    report). A :class:`~accord.PerLabelAgreement` (set-valued ratings) follows the table,
    and is the ``per_label`` key of the JSON; ``left_out``: the table of measurements left
    out the coefficients that count exact matches, and its caption says so; ``chosen``: the
    user named the coefficients (for two raters, Conger's and Light's kappa named are kept
    beside Cohen's, which they equal; :func:`~accord._verdict.with_cohen_first`)."""
    from .._verdict import table_verdict, with_cohen_first
    from ..agreement.summary import AgreementTable

    test = {k: v for k, v in (inference or {}).items() if k in ("test_value", "alternative")}
    if ratings is not None:  # two raters on categories: Cohen's kappa, the headline, is a row
        results = with_cohen_first(results, ratings, test, chosen=chosen)
    table = AgreementTable(tuple(results), measurement, ci)
    dicts = table.rows(level)
    if fmt is OutputFormat.json:
        out = {"report": report.to_dict(), "coefficients": dicts}
        if per_label is not None:
            out["per_label"] = per_label.to_dict()
        write_json(out, output)
        return
    if fmt is OutputFormat.csv:
        import pandas as pd

        write_csv(pd.DataFrame(dicts, columns=list(CSV_COLUMNS)), output)
        return
    rows = []
    for coef, d in zip(results, dicts, strict=True):
        label = getattr(coef, "label", None)  # the ICC's form, e.g. ICC(A,1)
        rows.append(
            {
                "coefficient": label
                or d["name"] + ("" if d["weights"] in ("identity", None) else f" ({d['weights']})"),
                "estimate": d["statistic"],
                "SE": d["standard_error"],
                f"{level:.0%} CI": format_ci(d["ci_low"], d["ci_high"]),
                "p": d["pvalue"],
                "items": d["n_items"],
                "note": d["reason"] or "",
            }
        )
    lead = table_verdict(
        table, level, two_raters=None if ratings is None else ratings.n_raters == 2
    )
    columns = ["coefficient", "estimate", "SE", f"{level:.0%} CI", "p", "items", "note"]
    caption = _caption(results, ci, left_out, inference or {})
    if per_label is None:
        print_table(rows, columns, title=str(report), caption=caption, output=output, lead=lead)
        return
    with output_console(output) as console:
        print_lead(console, lead)
        console.print(rich_table(rows, columns, title=str(report), caption=caption))
        console.print(_per_label_table(per_label))


def _per_label_table(per_label: Any) -> Any:
    """The table of a :class:`~accord.PerLabelAgreement`: one row per label, then the macro
    and micro summaries."""
    kappa = per_label.kappa.split("_")[0]
    rows = [
        {
            "label": str(row["label"]),
            "present": row["n_present"],
            kappa: row["kappa"],
            "alpha": row["alpha"],
            "PSA": row["psa"],
            "note": row["reason"],
        }
        for row in per_label.table.to_dict("records")
    ]
    for how in ("macro", "micro"):
        rows.append(
            {
                "label": f"({how})",
                kappa: getattr(per_label, f"{how}_kappa"),
                "alpha": getattr(per_label, f"{how}_alpha"),
                "PSA": getattr(per_label, f"{how}_psa"),
            }
        )
    return rich_table(
        rows,
        ["label", "present", kappa, "alpha", "PSA", "note"],
        title=f"Each label as present or absent ({per_label.n_labels} labels)",
        caption=f"{kappa}: {per_label.kappa}; PSA: positive specific agreement; macro: mean "
        "over the labels; micro: every (item, label) pooled.",
        left=("label", "note"),
    )


def _other_designs(
    path: Path,
    shared: Shared,
    design: str | None,
    facet: Any,
    d_sizes: str | None,
    target: float,
    cluster: str | None,
    strata: str | None,
) -> bool:
    """``--design`` (a G-study and its D-study) or ``--cluster`` / ``--strata`` (two raters'
    kappa and AC1 over clustered items, or across strata), when given: True once answered."""
    if facet and design is None:
        raise fail("--facet names the columns of the facets of --design: give --design too")
    if design is not None:
        from ._designs import agree_design, design_columns, parse_facets, parse_sizes

        keys = ratings_keywords()
        check_output(shared.output)
        with user_errors():
            facets = design_columns(design, parse_facets(facet), keys["item"], keys["rater"])
        if shared.engine.value == "dask":
            raise fail("--design computes with --engine memory, or stream (balanced designs)")
        agree_design(path, shared.files(engine_takes=("sep",)), design=design, facets=facets,
                     score=keys["label"], sizes=parse_sizes(d_sizes), target=target,
                     fmt=shared.fmt, output=shared.output,
                     stream=shared.engine.value == "stream")  # fmt: skip
        return True
    if cluster is not None or strata is not None:
        from ._designs import agree_grouped

        if cluster is not None and strata is not None:
            raise fail("--cluster and --strata: give one")
        check_output(shared.output)
        agree_grouped(command_source(path, shared, shared.files()),
                      group=cluster or strata or "", kind="cluster" if cluster else "strata",
                      fmt=shared.fmt, output=shared.output)  # fmt: skip
        return True
    return False


@app.command(
    "agree",
    epilog=examples(
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis",
        "accord agree examples/birads.csv --item finding --rater modality --label birads "
        "--level ordinal --ci bootstrap --format json",
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis "
        "--engine stream",
        "accord agree examples/pandalm.csv --item item --rater rater --label preference "
        "--se unconditional --test-value 0.4 --alternative greater",
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis "
        "--multi-label --distance jaccard",
        "accord agree examples/pefr.csv --item subject --rater meter --label pefr "
        '--design "p x r" --d-study r=1-4',
    ),
)
@shared_options(
    "sep", "encoding", "engine", "scheduler", "quiet", "fmt", "output", ratings="optional"
)
def agree(
    path: Path = RATINGS_FILE_ARGUMENT,
    source_tool: ExportToolName | None = FROM_OPTION,
    field: str | None = FIELD_OPTION,
    duplicates: str = DUPLICATES_OPTION,
    coefficients: str | None = typer.Option(
        None,
        "--coefficients",
        help="Comma-separated subset: percent_agreement, fleiss_kappa, conger_kappa, "
        "light_kappa, brennan_prediger, gwet_ac1, gwet_ac2, krippendorff_alpha, icc.",
    ),
    weights: str | None = WEIGHTS_OPTION,
    ci: str = typer.Option("analytic", "--ci", help="analytic (t interval) or bootstrap (BCa)."),
    n_boot: int = typer.Option(2000, "--n-boot", help="Bootstrap replicates."),
    seed: int = SEED_OPTION,
    population_size: float | None = typer.Option(
        None, "--population-size", help="Items in the population (finite-population correction)."
    ),
    se: str = SE_OPTION,
    rater_population_size: float | None = RATER_POPULATION_OPTION,
    test_value: float = TEST_VALUE_OPTION,
    alternative: str = ALTERNATIVE_OPTION,
    multi_label: bool = MULTI_LABEL_OPTION,
    distance: str | None = DISTANCE_OPTION,
    icc_method: str = typer.Option(
        "auto",
        "--icc-method",
        help="The ICCs' fit and interval: auto (ANOVA and F intervals on a complete design, "
        "REML and profile-likelihood intervals otherwise), anova, or reml (the REML "
        "intervals on a complete design too).",
    ),
    design: str | None = typer.Option(
        None,
        "--design",
        help='A G-study of the scores (--label) of this design, e.g. "p x r x o", "r:p", '
        '"p x (r:o)": p is --item, r --rater, other facets named by --facet; then a D-study.',
    ),
    facet: list[str] = typer.Option(
        [],
        "--facet",
        help=f"{FACET_HELP}. With --design, the columns of its facets besides p (--item) and "
        "r (--rater): a bare COLUMN is the one facet left unnamed; a facet not given is read "
        "from 'occasion' (o), 'task' (t) or 'site' (s).",
    ),
    d_sizes: str | None = typer.Option(
        None, "--d-study", help="D-study sizes with --design, e.g. r=1-10,o=1/2/3."
    ),
    target: float = typer.Option(
        0.8, "--target", help="With --design: the smallest D-study with Phi at least this."
    ),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        help="Two raters, items nested in this column's clusters: "
        "cluster-robust SEs of kappa and AC1.",
    ),
    strata: str | None = typer.Option(
        None,
        "--strata",
        help="Two raters: kappa in each stratum of this column, the test of "
        "equal kappas and the overall kappa.",
    ),
    shared: Shared = Shared(),
) -> None:
    """Agreement among raters beyond chance: every coefficient that applies, with SEs
    (for measurements, interval and ratio levels: Krippendorff's alpha and the ICCs)."""
    if _other_designs(path, shared, design, facet, d_sizes, target, cluster, strata):
        return
    from .._verdict import for_level, shown_coefficients
    from ..front.agreement import agreement

    engine, fmt, output = shared.engine, shared.fmt, shared.output
    check_output(output)
    files = shared.files(engine_takes=("sep", "encoding"))
    check_columns(engine, source_tool, field)
    if source_tool is not None:
        check_export_options(shared)
    # How the coefficients' intervals are computed, as the library's keywords.
    interval: dict[str, Any] = {
        "ci": ci,
        "n_boot": n_boot,
        "rng": seed,
        "population_size": population_size,
        "se": se,
        "rater_population_size": rater_population_size,
        "test_value": test_value,
        "alternative": alternative,
    }
    if multi_label and icc_method != "auto":
        raise fail("--icc-method does not apply with --multi-label: sets of labels have no ICC")
    if multi_label:
        _agree_sets(path, files, shared, duplicates, coefficients, weights, distance,
                    interval, source_tool, field)  # fmt: skip
        return
    if distance is not None:
        raise fail("--distance applies with --multi-label (a set of labels per item and rater)")
    check_engine_options(engine, shared.scheduler)
    chosen = None if coefficients is None else [c.strip() for c in coefficients.split(",")]
    in_memory = engine is EngineName.memory
    ratings = None
    with running(fmt, shared.quiet or in_memory, "reading ratings") as progress:
        if in_memory:  # read here: the memory engine takes the file's duplicates policy
            ratings = read_source(path, files, source_tool, field, duplicates=duplicates)
            data: Any = ratings
        else:
            data = command_source(path, shared, files, progress)
        if ratings is not None and ratings.multi_label:  # an export's multiple choices
            results = sets_coefficients(ratings, "masi", interval)
            render(ratings.report, list(results[:2]), fmt, output, ci=ci, per_label=results[2],
                   inference=interval)  # fmt: skip
            return
        level = ratings_keywords()["level"] if ratings is None else ratings.level
        shown = shown_coefficients(level) if chosen is None else None
        table = agreement(
            data,
            coefficients=chosen,  # None: the level's default ones, the ones shown
            weights=weights,
            icc_method=icc_method,  # type: ignore[arg-type]
            inference=as_inference(interval),
        )
        done_with(progress)
        render(
            table.report if ratings is None else ratings.report,
            list(table.coefficients) if shown is None else for_level(table.coefficients, level),
            fmt,
            output,
            ci=ci,
            measurement=table.level,
            ratings=ratings,
            left_out=shown is not None,
            inference=interval,
            chosen=chosen is not None,
        )


def as_inference(interval: dict[str, Any]) -> Any:
    """The :class:`~accord.Inference` of the ``interval`` keywords (``ci`` to
    ``population_size``, as the coefficients take them)."""
    from ..agreement.inference import Inference
    from ..front.agreement import MOVED_TO_INFERENCE

    return Inference(**{MOVED_TO_INFERENCE[key]: value for key, value in interval.items()})


def _agree_sets(
    path: Path,
    files: Any,
    shared: Shared,
    duplicates: str,
    coefficients: str | None,
    weights: str | None,
    distance: str | None,
    interval: dict[str, Any],
    source_tool: ExportToolName | None,
    field: str | None,
) -> None:
    """``accord agree --multi-label``: the set coefficients and each label's agreement
    (``interval``: the keywords of their intervals, ``ci`` to ``population_size``)."""
    given = {"--level": ratings_keywords()["level"] != "nominal",
             "--weights": weights is not None, "--coefficients": coefficients is not None,
             "--duplicates": duplicates != "raise"}  # fmt: skip
    if any(given.values()):
        flags = [flag for flag, on in given.items() if on]
        verb = "does" if len(flags) == 1 else "do"
        raise fail(
            f"{' and '.join(flags)} {verb} not apply with --multi-label: sets of labels are "
            "compared by --distance (masi or jaccard), the multi-valued alpha and each "
            "label's agreement"
        )
    check_engine_options(shared.engine, shared.scheduler)
    if shared.engine is not EngineName.memory:  # read in batches: the sets' coefficients
        from ..front.agreement import agreement

        with running(shared.fmt, shared.quiet, "reading ratings") as progress:
            table = agreement(
                command_source(path, shared, files, progress, multi_label=True),
                distance=distance,  # type: ignore[arg-type]
                inference=as_inference(interval),
            )
            done_with(progress)
            render(table.report, list(table.coefficients), shared.fmt, shared.output,
                   ci=interval["ci"])  # fmt: skip
        return
    with running(shared.fmt, True, "reading ratings"):
        ratings = read_source(path, files, source_tool, field, multi_label=True)
        results = sets_coefficients(ratings, distance or "masi", interval)
        render(
            ratings.report, list(results[:2]), shared.fmt, shared.output, ci=interval["ci"],
            per_label=results[2],
        )  # fmt: skip


def sets_coefficients(
    ratings: Any, distance: str, interval: dict[str, Any]
) -> tuple[Any, Any, Any]:
    """Krippendorff's alpha with the set ``distance`` (and the ``interval`` keywords: ``ci``,
    ``n_boot``, ``rng``, ``population_size``), the multi-valued alpha and the per-label
    agreement of set-valued ratings."""
    from ..agreement import krippendorff_alpha, multi_valued_alpha, per_label_agreement

    alpha = krippendorff_alpha(ratings, distance=distance, **interval)  # type: ignore[arg-type]
    return alpha, multi_valued_alpha(ratings), per_label_agreement(ratings)
