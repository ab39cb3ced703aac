"""``accord pair``: agreement between two raters (kappa, IA, specific agreement)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    CATEGORIES_OPTION,
    DUPLICATES_OPTION,
    ITEM_OPTIONAL,
    LABEL_OPTIONAL,
    LABELS_AS_OPTION,
    NA_VALUES_OPTION,
    RATER_OPTIONAL,
    SEED_OPTION,
    OutputFormat,
    Shared,
    check_output,
    echo_warnings,
    fail,
    format_ci,
    output_console,
    parse_categories,
    read_ratings_file,
    rich_table,
    shared_options,
    user_errors,
    write_csv,
    write_json,
)

EPILOG = examples(
    "accord pair --table examples/birads-table.csv --dichotomize --level ordinal",
    "accord pair examples/birads.csv --item finding --rater modality --label birads "
    "--raters ABVS US --weights linear --format json",
)


def _read_table(path: Path, sep: str | None = None, encoding: str | None = None) -> Any:
    from ..data.table import ContingencyTable
    from ..io.files import reading, sniff_text

    sniff = sniff_text(path, encoding=encoding, what="CSV")
    with reading(path, "CSV", sniff):
        return ContingencyTable.read_csv(
            path, sep=sep or ",", encoding=sniff.encoding, compression=sniff.compression
        )


def _count(value: float) -> Any:
    """Whole counts display as integers."""
    return int(value) if float(value).is_integer() else float(value)


def compute(
    table: Any,
    *,
    weights: str | None,
    dichotomize: bool,
    n_boot: int,
    seed: int | None,
    level: str | None = None,
) -> dict[str, Any]:
    """Every result ``accord pair`` reports, as result objects keyed by name.

    ``level`` is the scale's level for the dichotomisation (None: ordered when the categories
    are numbers, nominal when they are text).
    """
    from .._bootstrap import warn_few_replicates
    from ..agreement import (
        best_dichotomization,
        cohen_kappa,
        informational_agreement,
        scott_pi,
        specific_agreement,
    )

    warn_few_replicates(n_boot)  # the IA interval's replicates (degenerate cases: notes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out: dict[str, Any] = {"cohen_kappa": cohen_kappa(table)}
        if weights is not None and weights != "identity":
            out["weighted_kappa"] = cohen_kappa(table, weights=weights)
        out["scott_pi"] = scott_pi(table)
        out["informational_agreement"] = informational_agreement(table, n_boot=n_boot, rng=seed)
        out["specific_agreement"] = specific_agreement(table)
        if dichotomize:
            out["dichotomization"] = best_dichotomization(table, level=level)  # type: ignore[arg-type]
    return out


def _summary_rows(table: Any, results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per measure: name, estimate, SE, interval, note."""
    kappa = results["cohen_kappa"]
    ia = results["informational_agreement"]
    rows: list[dict[str, Any]] = [
        {"measure": "percent agreement", "estimate": kappa.percent_agreement},
    ]

    def coef(label: str, res: Any) -> dict[str, Any]:
        d = res.to_dict()
        return {
            "measure": label,
            "estimate": d["statistic"],
            "SE": d["standard_error"],
            "95% CI": format_ci(d["ci_low"], d["ci_high"]),
            "note": d["reason"] or "",
        }

    rows.append(coef("Cohen's kappa", kappa))
    if "weighted_kappa" in results:
        wk = results["weighted_kappa"]
        rows.append(coef(f"Cohen's kappa ({wk.weights} weights)", wk))
        rows.append({"measure": "kappa_max (weighted)", "estimate": wk.kappa_max})
    rows.append(coef("Scott's pi", results["scott_pi"]))
    rows.append({"measure": "PABAK", "estimate": kappa.pabak})
    rows.append({"measure": "kappa_max", "estimate": kappa.kappa_max})
    if table.q == 2:
        rows.append({"measure": "prevalence index", "estimate": kappa.prevalence_index})
        rows.append({"measure": "bias index", "estimate": kappa.bias_index})
    d = ia.to_dict()
    rows.append(
        {
            "measure": "informational agreement (IA)",
            "estimate": d["statistic"],
            "SE": d["standard_error"],
            "95% CI": format_ci(d["ci_low"], d["ci_high"]),
            "note": "bootstrap over items" if ia.n_boot else "",
        }
    )
    rows += [
        {"measure": "mutual information (bits)", "estimate": ia.mutual_information},
        {"measure": "mutual information (base q)", "estimate": ia.mutual_information_base_q},
        {"measure": "H(X) (bits)", "estimate": ia.entropy_x},
        {"measure": "H(Y) (bits)", "estimate": ia.entropy_y},
        {"measure": "H(Y|X) (bits)", "estimate": ia.conditional_entropy_y_given_x},
        {"measure": "H(X|Y) (bits)", "estimate": ia.conditional_entropy_x_given_y},
    ]
    return rows


def _rich_table(
    rows: list[dict[str, Any]], columns: list[str], title: str | None, caption: str | None
) -> Any:
    return rich_table(
        rows, columns, title=title, caption=caption, left=("measure", "category", "split")
    )


def _contingency(table: Any, results: dict[str, Any], report: Any = None) -> Any:
    """The table of counts, rows rater X and columns rater Y, with its margins (the raters'
    category counts of the specific agreement table), under the read ``report``."""
    x, y = table.raters
    sa = results["specific_agreement"].per_category
    keys = [f"c{j}" for j in range(table.q)]  # category names may repeat as text
    rows: list[dict[str, Any]] = []
    for i, category in enumerate(table.categories):
        row: dict[str, Any] = {"category": str(category)}
        row.update({k: _count(v) for k, v in zip(keys, table.counts[i], strict=True)})
        row["total"] = _count(sa["n_x"].iloc[i])
        rows.append(row)
    totals: dict[str, Any] = {"category": "total"}
    totals.update({k: _count(v) for k, v in zip(keys, sa["n_y"], strict=True)})
    totals["total"] = _count(table.n)
    rows.append(totals)
    headers = {
        "category": f"{x} \\ {y}",
        **dict(zip(keys, map(str, table.categories), strict=True)),
    }
    return rich_table(
        rows,
        ["category", *keys, "total"],
        title=("" if report is None else f"{report}\n") + f"Counts: {x} in rows, {y} in columns",
        left=("category",),
        headers=headers,
    )


def _specific_table(sa: Any) -> Any:
    """Specific agreement per category."""
    return _rich_table(
        [
            {
                "category": str(r.category),
                "rater X": _count(r.n_x),
                "rater Y": _count(r.n_y),
                "both": _count(r.n_both),
                "specific agreement": r.specific_agreement,
                "SE": r.standard_error,
                "95% CI": format_ci(r.ci_low, r.ci_high),
            }
            for r in sa.itertuples()
        ],
        ["category", "rater X", "rater Y", "both", "specific agreement", "SE", "95% CI"],
        "Specific agreement per category: 2 n_kk / (n_k. + n_.k)",
        "For two categories: PSA (= F1) and NSA. SE: delta method; CI: Wilson-type.",
    )


def _cuts_table(dich: Any) -> Any:
    """The dichotomisations (or each category against the rest) and the best cuts."""
    one_vs_rest = dich.kind == "one-vs-rest"
    rows = []
    for r in dich.cuts.to_dict("records"):
        best = []
        if r["cut"] == dich.best_kappa:
            best.append("kappa")
        if r["cut"] == dich.best_informational_agreement:
            best.append("IA")
        rows.append(
            {
                "split": r["split"],
                "kappa": r["kappa"],
                "specific agreement": r.get("specific_agreement"),
                "IA": r["informational_agreement"],
                "agreement": r["observed_agreement"],
                "best for": ", ".join(best),
            }
        )
    columns = ["split", "kappa", "IA", "agreement", "best for"]
    if one_vs_rest:
        columns.insert(2, "specific agreement")
    return _rich_table(
        rows,
        columns,
        "Each category against the rest (nominal labels: no order to cut)"
        if one_vs_rest
        else "Dichotomisations of the ordered scale (low | high)",
        (
            "Labels read as nominal (text with no declared order, or --level nominal) "
            "have no order to cut. For cuts of an ordered scale, declare the order with "
            "--categories, or pass --level ordinal to cut a table in its row order."
        )
        if one_vs_rest
        else dich.method[0].upper() + dich.method[1:] + ".",
    )


def render_table(
    table: Any, results: dict[str, Any], output: Path | None, report: Any = None
) -> None:
    """Print the table of counts, the summary, the per-category table and the cut table (if
    any) for people; the first title starts with the read ``report`` of a ratings file
    (what was read, kept and dropped)."""
    x, y = table.raters
    title = (
        f"{x} (rows) vs {y} (columns): {table.n:g} items rated by both, {table.q} categories"
        + (f", {table.n_unpaired} rated by only one" if table.n_unpaired else "")
    )
    ia = results["informational_agreement"]
    caption = (
        "SE: general standard error (kappa: Fleiss, Cohen & Everitt 1969); CI: t interval on "
        "items - 1 df; IA: bootstrap "
        + ("BCa" if ia.default_ci_method == "bca" else "percentile")
        + f" interval ({ia.n_boot} replicates). IA measures dependence, not agreement on the "
        "diagonal: read it beside kappa."
    )
    tables = [
        _contingency(table, results, report),
        _rich_table(
            _summary_rows(table, results),
            ["measure", "estimate", "SE", "95% CI", "note"],
            title,
            caption,
        ),
    ]
    tables.append(_specific_table(results["specific_agreement"].per_category))
    if "dichotomization" in results:
        tables.append(_cuts_table(results["dichotomization"]))
    with output_console(output) as console:
        for t in tables:
            console.print(t)


def render_json(
    table: Any, results: dict[str, Any], source: str, output: Path | None, report: Any = None
) -> None:
    """Write every result as one JSON object (keys are the result fields), with the read
    ``report`` of a ratings file (null for a table of counts: no rows were read)."""

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload: dict[str, Any] = {
            "report": None if report is None else report.to_dict(),
            "input": {
                "source": source,
                "raters": list(table.raters),
                "categories": list(table.categories),
                "n_items": _count(table.n),
                "n_unpaired": _count(table.n_unpaired),
                "table": [[_count(v) for v in row] for row in table.counts],
            },
            "percent_agreement": table.observed_agreement,
        }
        payload.update({name: res.to_dict() for name, res in results.items()})
    write_json(payload, output)


def render_csv(table: Any, results: dict[str, Any], output: Path | None) -> None:
    """Write one long CSV: measure, category (or split), statistic, SE, interval, note."""
    import pandas as pd

    columns = ["measure", "category", "statistic", "standard_error", "ci_low", "ci_high", "note"]
    rows: list[dict[str, Any]] = [
        {"measure": "percent_agreement", "statistic": table.observed_agreement}
    ]
    for name in ("cohen_kappa", "weighted_kappa", "scott_pi", "informational_agreement"):
        if name not in results:
            continue
        d = results[name].to_dict()
        rows.append(
            {
                "measure": name if name != "weighted_kappa" else f"cohen_kappa_{d['weights']}",
                "statistic": d["statistic"],
                "standard_error": d["standard_error"],
                "ci_low": d["ci_low"],
                "ci_high": d["ci_high"],
                "note": d["reason"],
            }
        )
    kappa = results["cohen_kappa"]
    ia = results["informational_agreement"]
    extra = {
        "pabak": kappa.pabak,
        "kappa_max": kappa.kappa_max,
        "prevalence_index": kappa.prevalence_index,
        "bias_index": kappa.bias_index,
        "mutual_information_bits": ia.mutual_information,
        "mutual_information_base_q": ia.mutual_information_base_q,
        "entropy_x_bits": ia.entropy_x,
        "entropy_y_bits": ia.entropy_y,
        "conditional_entropy_y_given_x_bits": ia.conditional_entropy_y_given_x,
        "conditional_entropy_x_given_y_bits": ia.conditional_entropy_x_given_y,
    }
    rows += [{"measure": k, "statistic": v} for k, v in extra.items()]
    for r in results["specific_agreement"].per_category.itertuples():
        rows.append(
            {
                "measure": "specific_agreement",
                "category": r.category,
                "statistic": r.specific_agreement,
                "standard_error": r.standard_error,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
            }
        )
    if "dichotomization" in results:
        dich = results["dichotomization"]
        for r in dich.cuts.to_dict("records"):
            rows.append(
                {
                    "measure": "dichotomized_kappa",
                    "category": r["split"],
                    "statistic": r["kappa"],
                    "note": dich.kind,
                }
            )
            if "specific_agreement" in r:
                rows.append(
                    {
                        "measure": "dichotomized_specific_agreement",
                        "category": r["split"],
                        "statistic": r["specific_agreement"],
                        "note": dich.kind,
                    }
                )
            rows.append(
                {
                    "measure": "dichotomized_informational_agreement",
                    "category": r["split"],
                    "statistic": r["informational_agreement"],
                    "note": dich.kind,
                }
            )
    write_csv(pd.DataFrame(rows, columns=columns), output)


@app.command("pair", epilog=EPILOG)
@shared_options("sep", "encoding", "fmt", "output")
def pair(
    path: Path | None = typer.Argument(
        None, help="Long ratings file (CSV, TSV, Parquet, JSON Lines); or use --table."
    ),
    table_path: Path | None = typer.Option(
        None,
        "--table",
        help="A q x q table of counts as CSV (rows rater X, columns rater Y; optional header "
        "row and first column of category names).",
    ),
    item: str | None = ITEM_OPTIONAL,
    rater: str | None = RATER_OPTIONAL,
    label: str | None = LABEL_OPTIONAL,
    duplicates: str = DUPLICATES_OPTION,
    raters: tuple[str, str] | None = typer.Option(
        None, "--raters", help="The two raters to compare: X (rows) then Y (columns)."
    ),
    categories: str | None = CATEGORIES_OPTION,
    na_values: str | None = NA_VALUES_OPTION,
    labels_as: str = LABELS_AS_OPTION,
    level: str | None = typer.Option(
        None,
        "--level",
        help="Level of measurement: nominal, ordinal, interval or ratio. --dichotomize cuts an "
        "ordered scale (an ordered level, --categories, or numeric categories) and sets each "
        "category against the rest on nominal labels.",
    ),
    weights: str | None = typer.Option(
        None,
        "--weights",
        help="Also report weighted kappa: linear, quadratic, ordinal, radical, ratio, "
        "circular, bipolar, power:<exponent> or circular:<u> (on the declared category "
        "scale).",
    ),
    dichotomize: bool = typer.Option(
        False,
        "--dichotomize",
        help="Kappa and IA at every cut of an ordered scale (low | high); on nominal labels, "
        "kappa, specific agreement and IA of each category against the rest.",
    ),
    n_boot: int = typer.Option(
        2000, "--n-boot", help="Bootstrap replicates for the IA interval (0: none)."
    ),
    seed: int = SEED_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Two raters: Cohen's kappa, Scott's pi, informational agreement, specific agreement."""
    from .._types import LEVELS
    from ..data.table import ContingencyTable

    check_output(shared.output)
    files = shared.files()
    report = None  # what was read from a ratings file
    with user_errors(), echo_warnings():
        if level is not None and level not in LEVELS:
            raise fail(f"--level must be nominal, ordinal, interval or ratio; got {level!r}")
        if (path is None) == (table_path is None):
            raise fail("give either a ratings file or --table FILE (one of the two)")
        if table_path is not None:
            given = (item, rater, label, raters, na_values)
            if any(v is not None for v in given) or (duplicates, labels_as) != ("raise", "auto"):
                raise fail(
                    "--item, --rater, --label, --raters, --duplicates, --na-values and "
                    "--labels-as apply to a ratings file only"
                )
            table = _read_table(table_path, **files)
            if categories is not None:
                table = ContingencyTable(
                    table.counts, parse_categories(categories), raters=table.raters
                )
            source = str(table_path)
        elif path is not None:
            missing = [
                f"--{name}"
                for name, value in (("item", item), ("rater", rater), ("label", label))
                if value is None
            ]
            if missing:
                raise fail(f"a ratings file needs {', '.join(missing)}")
            ratings = read_ratings_file(
                path,
                files,
                level=level or ("ordinal" if weights else "nominal"),
                duplicates=duplicates,
            )
            table = ContingencyTable.from_ratings(ratings, raters=raters)
            source, report = str(path), ratings.report
            text = [c for c in table.categories if isinstance(c, str)]
            if dichotomize and level not in (None, "nominal") and categories is None and text:
                shown = ", ".join(map(str, table.categories))
                raise fail(
                    f"--level {level} cuts the labels in their order on the scale, but the text "
                    f"labels ({shown}) are only sorted alphabetically: declare their order with "
                    "--categories (the labels comma-separated, lowest first)"
                )
        # Declared categories are an order on the scale; otherwise the categories decide.
        scale = level or ("ordinal" if categories is not None else None)
        results = compute(
            table, weights=weights, dichotomize=dichotomize, n_boot=n_boot, seed=seed, level=scale
        )
        if shared.fmt is OutputFormat.json:
            render_json(table, results, source, shared.output, report)
        elif shared.fmt is OutputFormat.csv:
            render_csv(table, results, shared.output)
        else:
            render_table(table, results, shared.output, report)
