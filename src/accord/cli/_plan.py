"""``accord plan``: how many items a reliability study needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    OutputFormat,
    Shared,
    check_output,
    check_seed,
    fail,
    format_number,
    output_console,
    print_lead,
    progress_bar,
    rich_table,
    shared_options,
    user_errors,
    wants_progress,
    write_json,
    write_text,
)

EPILOG = examples(
    "accord plan --coefficient icc --rho0 0.6 --rho1 0.8 --raters 2",
    "accord plan --coefficient icc --rho 0.8 --width 0.2 --raters 3 --assurance 0.8",
    "accord plan --coefficient kappa --rho 0.6 --width 0.3 --prevalence 0.3",
    "accord plan --coefficient alpha --alpha-min 0.8 --p-c 0.25 --format json",
    "accord plan --simulate --coefficient fleiss_kappa --raters 3 --prevalence 0.5,0.3,0.2 "
    "--accuracy 0.85 --rho0 0.4 --n-items 30,60,90 --simulations 100 --seed 1",
    'accord plan --coefficient g_theory --design "p x r x o" '
    "--components p=0.8,r=0.04,o=0.02,pr=0.19,po=0.31,ro=0,pro=0.32 --d-study r=1-6,o=1/2/3",
)

#: Closed forms by --coefficient.
CLOSED_FORMS = ("icc", "kappa", "alpha")

#: The options each kind of plan takes (beside --coefficient and the output options).
TEST_AND_INTERVAL = ("rho0", "rho1", "rho", "width", "n_raters", "alpha", "power", "level")
APPLIES = {
    "icc": (*TEST_AND_INTERVAL, "alternative", "assurance"),
    "kappa": (*TEST_AND_INTERVAL, "alternative", "prevalence", "method"),
    "alpha": ("alpha_min", "p_c", "significance"),
    "g_theory": ("design", "components", "d_sizes", "target"),
    "simulate": (
        "rho0", "rho", "width", "n_raters", "alpha", "power", "level", "prevalence",
        "accuracy", "judge_accuracy", "epsilon", "n_items", "n_simulations", "seed",
    ),
}  # fmt: skip
ALWAYS = ("coefficient", "simulate", "quiet", "fmt", "output")

#: The curve's rows shown in a table (the whole curve is in --format csv and json).
CURVE_ROWS = 12


def _numbers(flag: str, text: str | None) -> list[float] | None:
    """``0.3,0.7`` -> [0.3, 0.7]; a value that is not a number is a one-line error."""
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise fail(f"{flag} takes numbers separated by commas; got {text}") from None


def _one_or_many(values: list[float] | None) -> float | list[float] | None:
    return values[0] if values is not None and len(values) == 1 else values


def _plan(options: dict[str, Any], simulate: bool, progress: Any) -> Any:
    """The result of the plan asked for: the closed form of --coefficient, or simulation."""
    from ..planning import (
        sample_size_alpha,
        sample_size_icc,
        sample_size_kappa,
        sample_size_simulated,
    )

    coefficient = options.pop("coefficient")
    prevalence = _one_or_many(_numbers("--prevalence", options.pop("prevalence")))
    accuracy = _one_or_many(_numbers("--accuracy", options.pop("accuracy")))
    grid = _numbers("--n-items", options.pop("n_items"))
    test = {k: options[k] for k in ("rho0", "rho1", "rho", "width", "n_raters")}
    levels = {k: options[k] for k in ("alpha", "power", "level")}
    if simulate:
        return sample_size_simulated(
            coefficient,
            prevalence=prevalence,
            accuracy=accuracy,
            n_items=None if grid is None else [int(v) if v == int(v) else v for v in grid],  # type: ignore[misc]
            seed=options["seed"],
            n_simulations=options["n_simulations"],
            judge_accuracy=options["judge_accuracy"],
            epsilon=options["epsilon"],
            progress=progress,
            **{k: v for k, v in test.items() if k != "rho1"},
            **levels,
        )
    if coefficient == "icc":
        return sample_size_icc(
            **test, **levels, alternative=options["alternative"] or "one-sided",
            assurance=options["assurance"],
        )  # fmt: skip
    if coefficient == "kappa":
        if prevalence is None:
            raise fail("--coefficient kappa needs --prevalence (the share of positive ratings)")
        return sample_size_kappa(
            **test, **levels, prevalence=prevalence, method=options["method"],
            alternative=options["alternative"],
        )  # fmt: skip
    if options["alpha_min"] is None or options["p_c"] is None:
        raise fail("--coefficient alpha needs --alpha-min and --p-c")
    return sample_size_alpha(
        alpha_min=options["alpha_min"], p_c=options["p_c"], significance=options["significance"]
    )


def _check_applies(ctx: typer.Context, kind: str) -> None:
    """An option given that the plan does not use is an error, never ignored."""
    for param in ctx.command.params:
        name = param.name or ""
        if name in ALWAYS or name in APPLIES[kind]:
            continue
        source = ctx.get_parameter_source(name)
        if source is not None and source.name == "COMMANDLINE":
            flag = max(param.opts, key=len)
            where = "--simulate" if kind == "simulate" else f"--coefficient {kind}"
            raise fail(f"{flag} does not apply to {where}")


def _rows(result: Any) -> list[dict[str, Any]]:
    """The plan as rows of (quantity, value): the answer, then the assumptions (the
    hypotheses in words are the headline's, not a row of numbers)."""
    rows: list[dict[str, Any]] = [{"quantity": "items", "value": result.n_items}]
    if getattr(result, "n_values", None) is not None:
        rows.append({"quantity": "values (codings)", "value": result.n_values})
    if getattr(result, "n_exact", None) is not None:
        rows.append({"quantity": "items before rounding", "value": result.n_exact})
    rows.append({"quantity": "raters", "value": result.n_raters})
    for key, value in result.assumptions.items():
        if key == "hypotheses":
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else value
        rows.append({"quantity": key, "value": shown})
    return rows


def _curve_rows(result: Any) -> list[dict[str, Any]]:
    """At most :data:`CURVE_ROWS` rows of the curve, evenly spread, with the plan's row."""
    curve = result.curve
    step = max(1, -(-len(curve) // CURVE_ROWS))
    keep = set(range(0, len(curve), step)) | {len(curve) - 1}
    if result.n_items is not None:
        keep |= set(curve.index[curve["n_items"] == result.n_items])
    return [
        {str(k): v for k, v in row.items()} for row in curve.loc[sorted(keep)].to_dict("records")
    ]


def _render(result: Any, fmt: OutputFormat, output: Path | None) -> None:

    if fmt is OutputFormat.json:
        write_json(result.to_dict(), output)
        return
    if fmt is OutputFormat.csv:
        write_text(result.curve.to_csv(index=False), output)
        return
    rows = _rows(result)
    curve = _curve_rows(result)
    columns = [c for c in result.curve.columns if c != "meets_goal"]
    with output_console(output) as console:
        print_lead(console, result._headline())
        for row in rows:
            row["value"] = format_number(row["value"])
        console.print(rich_table(rows, ["quantity", "value"], title="Plan", left=("quantity",)))
        console.print(rich_table(curve, columns, title="What each number of items attains"))
        console.print(f"Method: {result.method}", style="dim", soft_wrap=False)
        if getattr(result, "reason", ""):
            console.print(result.reason)


@app.command("plan", epilog=EPILOG)
@shared_options("quiet", "fmt", "output")
def plan(
    ctx: typer.Context,
    coefficient: str = typer.Option(
        ...,
        "--coefficient",
        help="Closed forms: icc, kappa or alpha (Krippendorff's, two coders). With --simulate: "
        "fleiss_kappa, krippendorff_alpha, cohen_kappa, icc or alt_test.",
    ),
    rho0: float | None = typer.Option(None, "--rho0", help="Null value of a test."),
    rho1: float | None = typer.Option(None, "--rho1", help="Value the test should detect."),
    rho: float | None = typer.Option(
        None, "--rho", help="Expected value (for --width; with --simulate, the assumed value)."
    ),
    width: float | None = typer.Option(None, "--width", help="Width of the interval."),
    n_raters: int = typer.Option(2, "--raters", help="Raters rating every item."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the test."),
    power: float = typer.Option(0.8, "--power", help="Power of the test."),
    level: float = typer.Option(0.95, "--level", help="Confidence level of the interval."),
    assurance: float | None = typer.Option(
        None,
        "--assurance",
        help="For icc: probability that the interval is no wider than --width (Zou 2012); "
        "default: the expected width (Bonett 2002).",
    ),
    alternative: str | None = typer.Option(
        None, "--alternative", help="one-sided or two-sided (default: the method's own)."
    ),
    prevalence: str | None = typer.Option(
        None, "--prevalence", help="Share of positives, or the categories' shares (0.5,0.3,0.2)."
    ),
    method: str = typer.Option(
        "goodness_of_fit", "--method", help="For kappa: goodness_of_fit or cantor."
    ),
    alpha_min: float | None = typer.Option(
        None, "--alpha-min", help="For alpha: the smallest acceptable alpha."
    ),
    p_c: float | None = typer.Option(
        None, "--p-c", help="For alpha: probability of the least frequent category."
    ),
    significance: float = typer.Option(
        0.05, "--significance", help="For alpha: the level of significance."
    ),
    simulate: bool = typer.Option(
        False, "--simulate", help="Simulate studies of each size with accord's estimators."
    ),
    accuracy: str | None = typer.Option(
        None, "--accuracy", help="With --simulate: each rater's accuracy (one, or one per rater)."
    ),
    judge_accuracy: float | None = typer.Option(
        None, "--judge-accuracy", help="With --simulate --coefficient alt_test: the judge's."
    ),
    epsilon: float | None = typer.Option(
        None, "--epsilon", help="For alt_test: the margin (default 0.15)."
    ),
    n_items: str | None = typer.Option(
        None, "--n-items", help="With --simulate: numbers of items to try (20,40,80)."
    ),
    n_simulations: int = typer.Option(
        200, "--simulations", help="With --simulate: studies per number of items."
    ),
    seed: int = typer.Option(
        0,
        "--seed",
        help="With --simulate: random seed (the same seed, the same plan).",
        callback=check_seed,
    ),
    design: str | None = typer.Option(
        None, "--design", help='With --coefficient g_theory: the design, e.g. "p x r x o".'
    ),
    components: str | None = typer.Option(
        None,
        "--components",
        help="With --coefficient g_theory: each effect's variance, "
        "e.g. p=0.8,r=0.04,o=0.02,pr=0.19,po=0.31,ro=0,pro=0.32.",
    ),
    d_sizes: str | None = typer.Option(
        None,
        "--d-study",
        help="With --coefficient g_theory: the D-study sizes, e.g. r=1-10,o=1/2/3.",
    ),
    target: float = typer.Option(
        0.8, "--target", help="With --coefficient g_theory: the smallest design with Phi >= this."
    ),
    shared: Shared = Shared(),
) -> None:
    """How many items a reliability study needs: for a test, or an interval of given width;
    or, from a G-study's variance components, how many raters and occasions."""
    check_output(shared.output)
    if coefficient == "g_theory" and not simulate:
        from ._designs import plan_d_study

        _check_applies(ctx, "g_theory")
        plan_d_study(design, components, d_sizes, target, shared.fmt, shared.output)
        return
    if not simulate and coefficient not in CLOSED_FORMS:
        raise fail(
            f"--coefficient must be one of {', '.join(CLOSED_FORMS)} (or, with --simulate, "
            f"fleiss_kappa, krippendorff_alpha, cohen_kappa, icc, alt_test); got {coefficient}"
        )
    _check_applies(ctx, "simulate" if simulate else coefficient)
    options = dict(locals())
    for name in ("ctx", "simulate", "shared"):
        options.pop(name)
    show = simulate and wants_progress(shared.fmt, shared.quiet)
    with user_errors(), progress_bar(show, "simulating", unit="sizes") as bar:
        result = _plan(options, simulate, bar)
    _render(result, shared.fmt, shared.output)
