"""The sections of the report, one module each.

A builder takes the shared :class:`~accord.report._context.Context` and returns a
:class:`~accord.report._blocks.Section`, or None when its data is not present (no labels, no
score column, two raters only...). A section that needs the ratings in memory, run with the
stream or dask engine, returns the section with one sentence saying so. Every number shown
comes from a result object of the library, computed through its public functions; builders
only choose and format.

To add a section: write ``build_<name>(ctx) -> Section | None`` in a module of its own and
add it to :data:`SECTIONS` (the methods section collects each section's
:class:`~accord.report._blocks.MethodNote`).
"""

from __future__ import annotations

from .coefficients import build_coefficients
from .common import Builder
from .confidence import build_confidence
from .facets import build_facets
from .items import build_items
from .judge import build_judge
from .judge_bias import build_judge_bias
from .judge_consistency import build_judge_consistency
from .judge_drift import build_judge_drift
from .judge_rates import build_judge_rates
from .method_comparison import build_method_comparison
from .methods import build_methods
from .pairwise import build_pairwise
from .ranks import build_ranks
from .rater_model import build_rater_model
from .raters import build_raters
from .read import build_read
from .replicates import build_replicates
from .scores import build_scores
from .spans import build_spans, build_spans_read, build_spans_summary
from .summary import build_summary
from .two_raters import build_two_raters

__all__ = ["LAST_READ", "SECTIONS", "SPAN_SECTIONS", "build_methods"]

#: The sections in page order (the methods section is added last, from the others).
SECTIONS: tuple[tuple[str, Builder], ...] = (
    ("summary", build_summary),
    ("read", build_read),
    ("coefficients", build_coefficients),
    ("ranks", build_ranks),
    ("two-raters", build_two_raters),
    ("pairwise", build_pairwise),
    ("items", build_items),
    ("raters", build_raters),
    ("rater-model", build_rater_model),
    ("facets", build_facets),
    ("judge", build_judge),
    ("judge-rates", build_judge_rates),
    ("judge-bias", build_judge_bias),
    ("judge-consistency", build_judge_consistency),
    ("judge-drift", build_judge_drift),
    ("method-comparison", build_method_comparison),
    ("replicates", build_replicates),
    ("scores", build_scores),
    ("confidence", build_confidence),
)

#: Cached results that no section after the one named reads, let go once it is built: the
#: consensus (one row an item in its item table) before the rater model fits its own.
LAST_READ: dict[str, tuple[str, ...]] = {"raters": ("consensus",)}

#: The sections of a report on span annotations, in page order.
SPAN_SECTIONS: tuple[tuple[str, Builder], ...] = (
    ("summary", build_spans_summary),
    ("read", build_spans_read),
    ("spans", build_spans),
)
