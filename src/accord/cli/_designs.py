"""``accord agree --design``: a G-study and a D-study of scores with several facets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import (
    OutputFormat,
    echo_warnings,
    fail,
    format_number,
    output_console,
    print_lead,
    rich_table,
    user_errors,
    write_csv,
    write_json,
)

__all__ = [
    "agree_design",
    "agree_grouped",
    "design_columns",
    "parse_facets",
    "parse_sizes",
    "plan_d_study",
]


def parse_facets(specs: list[str]) -> tuple[tuple[str | None, str], ...]:
    """``--facet o=occasion`` or a bare ``--facet occasion`` (repeatable) as
    ``(facet, column)`` pairs, as ``accord report --facet`` reads them."""
    from .._errors import InvalidInputError
    from ..agreement.gtheory_design import facet_specs

    try:
        return facet_specs(specs, "--facet")
    except InvalidInputError as exc:
        raise fail(str(exc)) from None


def design_columns(
    design: str, facets: Sequence[tuple[str | None, str]], item: str, rater: str
) -> tuple[dict[str, str], list[str]]:
    """The column of each facet of ``design``: ``p`` and ``r`` are ``item`` and ``rater``, a
    facet named in ``facets`` its column, a bare column the one facet left unnamed, any
    other facet its default column (``o``: occasion, ``t``: task, ``s``: site); and the
    facets read from a default column."""
    from .._errors import InvalidInputError
    from ..agreement.gtheory_design import DEFAULT_COLUMNS, parse_design

    parsed = parse_design(design)
    given = {name: column for name, column in facets if name is not None}
    unknown = sorted(set(given) - set(parsed.facets))
    if unknown:
        raise InvalidInputError(
            f"--facet names {unknown}, not facets of the design {design!r} "
            f"(its facets: {list(parsed.facets)})"
        )
    bare = [column for name, column in facets if name is None]
    left = [f for f in parsed.facets if f not in ("p", "r") and f not in given]
    if bare and (len(bare) > 1 or len(left) != 1):
        raise InvalidInputError(
            f"--facet {bare[0]!r}: the design {design!r} has no facet left for it besides p "
            "(--item) and r (--rater)"
            if not left
            else f"--facet {bare[0]!r}: the design {design!r} has {len(left)} facets left "
            f"({', '.join(left)}): name each, e.g. --facet {left[0]}={bare[0]}"
        )
    if bare:
        given[left[0]] = bare[0]
    given = {"p": item, "r": rater, **given}
    defaulted = [f for f in parsed.facets if f not in given]
    return {f: given.get(f) or DEFAULT_COLUMNS.get(f, f) for f in parsed.facets}, defaulted


def _numbers(facet: str, text: str) -> list[int]:
    values: list[int] = []
    for part in text.split("/"):
        low, dash, high = part.partition("-")
        try:
            values += list(range(int(low), int(high) + 1)) if dash else [int(low)]
        except ValueError:
            raise fail(
                f"--d-study sizes of {facet!r} must be integers or ranges (1-10, 2/4/8); "
                f"got {text!r}"
            ) from None
    return values


def parse_sizes(text: str | None) -> dict[str, list[int]] | None:
    """``--d-study r=1-10,o=1/2/3`` as ``{"r": [1..10], "o": [1, 2, 3]}``."""
    if text is None:
        return None
    out = {}
    for spec in text.split(","):
        facet, sep, sizes = spec.partition("=")
        if not sep:
            raise fail(f"--d-study takes FACET=SIZES pairs, e.g. r=1-10,o=1/2; got {spec!r}")
        out[facet.strip()] = _numbers(facet.strip(), sizes.strip())
    return out


def _component_rows(g: Any) -> list[dict[str, Any]]:
    import math

    rows = []
    for row in g.components.to_dict("records"):
        low, high = row.get("ci_low"), row.get("ci_high")
        shown = low is not None and high is not None and math.isfinite(low) and math.isfinite(high)
        rows.append(
            {
                "effect": row["effect"],
                "variance": row["variance"],
                "percent": row["percent"],
                "SE": row.get("standard_error", float("nan")),
                "CI": f"{format_number(low)} to {format_number(high)}" if shown else "",
            }
        )
    return rows


def agree_design(
    path: Path,
    files: Any,
    *,
    design: str,
    facets: tuple[dict[str, str], list[str]],
    score: str,
    sizes: dict[str, list[int]] | None,
    target: float,
    fmt: OutputFormat,
    output: Path | None,
    stream: bool = False,
) -> None:
    """Read ``path``, run the G-study of ``design`` (its facets' columns from
    :func:`design_columns`) and its D-study, and print them; with ``stream``, the balanced
    ANOVA from the file's batches (:func:`accord.g_study_files`)."""
    with user_errors(), echo_warnings():
        g, d, best = _studies(path, files, design, facets, score, sizes, target, stream)
    if fmt is OutputFormat.json:
        write_json({"g_study": g.to_dict(), "d_study": d.to_dict(), "smallest": best}, output)
        return
    if fmt is OutputFormat.csv:
        write_csv(g.components, output)
        return
    _print(g, d, best, target, output)


def _studies(
    path: Path,
    files: Any,
    design: str,
    facets: tuple[dict[str, str], list[str]],
    score: str,
    sizes: dict[str, list[int]] | None,
    target: float,
    stream: bool = False,
) -> tuple[Any, Any, dict[str, Any]]:
    from .._errors import InvalidInputError
    from ..agreement.gtheory import g_study
    from ..io.ratings import read_table

    named, defaulted = facets
    if stream:
        from ..front.gstudy import g_study_files

        g = g_study_files(path, design=design, score=score, facets=named, sep=files.get("sep"))
        return _d_study(g, sizes, target)
    try:
        frame = read_table(path, [*named.values(), score], **files)
    except InvalidInputError as exc:
        hint = ", ".join(f"--facet {f}=COLUMN" for f in defaulted)
        raise InvalidInputError(f"{exc}{f' (name them with {hint})' if hint else ''}") from None
    g = g_study(frame, design=design, score=score, facets=named)
    return _d_study(g, sizes, target)


def _d_study(
    g: Any, sizes: dict[str, list[int]] | None, target: float
) -> tuple[Any, Any, dict[str, Any]]:
    """The D-study of ``g`` and its smallest design reaching ``target``."""
    from .._errors import InvalidInputError
    from ..agreement.gtheory import d_study

    d = d_study(g, sizes)
    try:
        best = {str(k): v for k, v in d.smallest(target, "phi").to_dict().items()}
    except InvalidInputError as exc:  # no row reaches the target: the lead says so
        best = {"reason": str(exc)}
    return g, d, best


def _caption(g: Any, notes: str) -> str:
    """The components table's caption: how they were estimated, and the notes."""
    if not g.n_scores:
        how = "Variance components given"
    elif g.method == "anova":
        how = (
            f"Variance components by ANOVA; SE Brennan (2001) eq. 6.1, "
            f"{g.confidence_level:.0%} Satterthwaite CI"
        )
    else:
        how = (
            "Variance components by REML; SE from the inverse observed information, "
            f"{g.confidence_level:.0%} Satterthwaite CI (nu = 2 v^2 / SE^2)"
        )
    return how + (f". {notes}" if notes else "")


def _print(g: Any, d: Any, best: dict[str, Any], target: float, output: Path | None) -> None:
    sizes = ", ".join(f"n_{f} = {int(best[f'n_{f}'])}" for f in d.facets if f"n_{f}" in best)
    lead = (
        f"Phi >= {target:g} with {sizes} (Phi = {best['phi']:.3f}, E rho^2 = "
        f"{best['g_coefficient']:.3f})"
        if "phi" in best
        else best["reason"]
    )
    notes = "; ".join(g.notes)
    with output_console(output) as console:
        print_lead(console, lead)
        shown = "ci_low" in g.components
        source = f"{g.n_scores} scores, {g.method}" if g.n_scores else "components given"
        console.print(
            rich_table(
                _component_rows(g),
                ["effect", "variance", "percent", *(["SE", "CI"] if shown else [])],
                title=f"G-study of {g.design} ({g.nesting}; {source})",
                caption=_caption(g, notes),
            )
        )
        columns = [f"n_{f}" for f in d.facets] + ["g_coefficient", "phi", "sem_relative",
                                                   "sem_absolute"]  # fmt: skip
        console.print(
            rich_table(
                d.table[columns].to_dict("records"),
                columns,
                title="D-study: coefficients for numbers of levels",
                caption="g_coefficient: E rho^2 (relative decisions); phi: dependability "
                "(absolute decisions); SEMs in the scores' units.",
            )
        )


def agree_grouped(
    src: Any,
    *,
    group: str,
    kind: str,
    fmt: OutputFormat,
    output: Path | None,
) -> None:
    """``--cluster`` (cluster-robust SEs of kappa and AC1) or ``--strata`` (each stratum's
    kappa, the test of equal kappas and the overall kappa) for two raters, from the
    command's :class:`~accord.Source` through the front doors Python calls."""
    from .._results import plain_fields
    from ..front.designs import clustered_pairs, grouped_pairs, kappa_by_stratum

    with user_errors(), echo_warnings():
        if kind == "cluster":  # one read for both coefficients
            pairs = grouped_pairs(src, group, "agreement_by_cluster")
            results: Any = [clustered_pairs(pairs, c) for c in ("cohen_kappa", "gwet_ac1")]
        else:
            results = kappa_by_stratum(src, strata=group)
    if fmt is OutputFormat.json:
        payload = (
            {"cluster": group, "report": pairs.report.to_dict(),
             "coefficients": [plain_fields(r, ("report",)) for r in results]}
            if kind == "cluster"
            else results.to_dict()
        )  # fmt: skip
        write_json(payload, output)
        return
    if kind == "cluster":
        rows = [{"coefficient": r.name, "estimate": r.statistic, "SE (clusters)": r.standard_error,
                 "SE (items)": r.standard_error_naive, "design effect": r.design_effect,
                 "clusters": r.n_clusters, "items": r.n_items} for r in results]  # fmt: skip
        if fmt is OutputFormat.csv:
            import pandas as pd

            write_csv(pd.DataFrame(rows), output)
            return
        with output_console(output) as console:
            console.print(rich_table(rows, list(rows[0]), caption=results[0].method,
                                     title=f"{pairs.report}\nItems nested in {group}"))  # fmt: skip
        return
    _print_strata(results, group, fmt, output)


def _print_strata(res: Any, group: str, fmt: OutputFormat, output: Path | None) -> None:
    if fmt is OutputFormat.csv:
        write_csv(res.table, output)
        return
    rows = res.table.to_dict("records")
    rows.append({"stratum": "(overall)", "n_items": int(res.table["n_items"].sum()),
                 "kappa": res.statistic, "standard_error": res.standard_error})  # fmt: skip
    with output_console(output) as console:
        print_lead(console, f"Test of equal kappas across {group}: chi-square({res.df}) = "
                            f"{res.chi_square:.3f}, p = {res.pvalue:.3g}")  # fmt: skip
        columns = ["stratum", "n_items", "kappa", "standard_error", "weight"]
        console.print(rich_table(rows, columns, title=f"{res.report}\nCohen's kappa by {group}",
                                 caption=res.method))  # fmt: skip


def plan_d_study(
    design: str | None,
    components: str | None,
    sizes: str | None,
    target: float,
    fmt: OutputFormat,
    output: Path | None,
) -> None:
    """``accord plan --coefficient g_theory``: a D-study from given variance components."""
    from ..agreement.gtheory import d_study, g_study_from_components

    if design is None or components is None:
        raise fail("--coefficient g_theory needs --design and --components")
    given: dict[str, float] = {}
    for spec in components.split(","):
        effect, sep, value = spec.partition("=")
        try:
            given[effect.strip()] = float(value)
        except ValueError:
            raise fail(
                f"--components takes EFFECT=VARIANCE pairs, e.g. p=0.8,pr=0.2; got {spec!r}"
            ) from None
        if not sep:
            raise fail(f"--components takes EFFECT=VARIANCE pairs; got {spec!r}")
    with user_errors(), echo_warnings():
        from .._errors import InvalidInputError

        g = g_study_from_components(design, given)
        d = d_study(g, parse_sizes(sizes))
        try:
            best = {str(k): v for k, v in d.smallest(target, "phi").to_dict().items()}
        except InvalidInputError as exc:
            best = {"reason": str(exc)}
    if fmt is OutputFormat.json:
        write_json({"g_study": g.to_dict(), "d_study": d.to_dict(), "smallest": best}, output)
    elif fmt is OutputFormat.csv:
        write_csv(d.table, output)
    else:
        _print(g, d, best, target, output)
