"""``accord spans --measure relations|attributes``: what annotators say about the spans
(relations between them, attributes of them), read from the export the spans came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._common import OutputFormat, print_table, wrote_for_machines

#: The input formats that carry relations, and those that carry attributes.
RELATION_FORMATS = ("brat", "label-studio", "webanno")
ATTRIBUTE_FORMATS = ("brat",)


def read_links(path: Path, fmt: str, what: str, *, layer: str | None, encoding: str | None) -> Any:
    """The relations (``what="relations"``) or attributes of the export at ``path``, read
    as ``fmt`` (the resolved input format), as the table the Python function takes."""
    from .._errors import InvalidInputError

    formats = RELATION_FORMATS if what == "relations" else ATTRIBUTE_FORMATS
    if fmt not in formats:
        raise InvalidInputError(
            f"--measure {what} reads the {what} of a {' or '.join(formats)} export; "
            f"{path} is read as {fmt} (choose the format with --input-format)"
        )
    if fmt == "label-studio":
        from ..io.label_studio import read_label_studio_relations

        return read_label_studio_relations(path)
    if fmt == "webanno":
        from ..io.webanno import read_webanno_tsv_relations

        return read_webanno_tsv_relations(path, layer=layer, encoding=encoding or "utf-8")
    from ..io.spans import read_brat_attributes, read_brat_relations

    reader = read_brat_relations if what == "relations" else read_brat_attributes
    return reader(path, encoding=encoding or "utf-8")


def _relation_rows(result: Any) -> list[dict[str, Any]]:
    """Each pair of annotators, the mean and pooled F1, then the pooled F1 per type."""
    rows: list[dict[str, Any]] = [
        {"scope": "overall", "pair": f"{rec['annotator_a']} ~ {rec['annotator_b']}",
         "n_a": rec["n_a"], "n_b": rec["n_b"], "matched": rec["matched"],
         "precision": rec["precision"], "recall": rec["recall"], "F1": rec["f1"]}
        for rec in result.pairs.to_dict(orient="records")
    ]  # fmt: skip
    rows.append({"scope": "overall", "pair": "mean over pairs", "F1": result.statistic,
                 "SD": result.sd})  # fmt: skip
    rows.append({"scope": "overall", "pair": "pooled", "F1": result.pooled})
    for rec in result.by_type.to_dict(orient="records"):
        rows.append(
            {"scope": f"type {rec['type']}", "pair": "pooled", "n_a": rec["n_relations"],
             "F1": rec["pooled_f1"]}
        )  # fmt: skip
    return rows


def render_relations(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print or write a :class:`accord.RelationAgreement` in the chosen format."""
    rows = _relation_rows(result)
    if wrote_for_machines(result, rows, fmt, output):
        return
    title = (
        f"relation agreement: {result.n_annotators} annotators, {result.n_documents} "
        f"documents, {result.n_relations} relations; {result.match} matching of the spans"
    )
    caption = [
        "n_a, n_b: relations each annotator stated (per type: of both); matched: relations "
        "of the first whose head, tail (matched spans) and type the second stated too; "
        "precision = matched / n_a, recall = matched / n_b, F1 = 2 matched / (n_a + n_b); "
        "SD: population SD over pairs; pooled: sum 2 matched / sum (n_a + n_b).",
        "A relation between spans the other annotator did not mark cannot match: span "
        "disagreement lowers relation agreement too.",
        *([result.reason] if result.reason else []),
    ]
    columns = ["scope", "pair", "n_a", "n_b", "matched", "precision", "recall", "F1", "SD"]
    print_table(rows, columns, title=title, caption="\n".join(caption), output=output)


def render_attributes(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print or write a :class:`accord.AttributeAgreement` in the chosen format."""
    rows = [
        {"attribute": rec["attribute"], "pair": f"{rec['annotator_a']} ~ {rec['annotator_b']}",
         "matched": rec["n_matched"], "agree": rec["n_agree"], "agreement": rec["agreement"]}
        for rec in result.table.to_dict(orient="records")
    ] + [
        {"attribute": rec["attribute"], "pair": "pooled", "matched": rec["n_matched"],
         "agree": rec["n_agree"], "agreement": rec["agreement"]}
        for rec in result.attributes.to_dict(orient="records")
    ]  # fmt: skip
    if rows:
        rows.append({"attribute": "(all)", "pair": "pooled",
                     "matched": int(result.table["n_matched"].sum()),
                     "agree": int(result.table["n_agree"].sum()),
                     "agreement": result.statistic})  # fmt: skip
    if wrote_for_machines(result, rows, fmt, output):
        return
    title = (
        f"attribute agreement: {result.n_annotators} annotators, {result.n_documents} "
        f"documents, {result.n_attributes} attributes; {result.match} matching of the spans"
    )
    caption = [
        "matched: spans both annotators marked; agree: those given the same value (a "
        "missing attribute is the value 'absent'); agreement = agree / matched, percent "
        "agreement, not chance-corrected; (all): pooled over attributes and pairs.",
        *([result.reason] if result.reason else []),
    ]
    columns = ["attribute", "pair", "matched", "agree", "agreement"]
    print_table(rows, columns, title=title, caption="\n".join(caption), output=output)
