"""``cairn eval``: how accurate Cairn is on a question set with gold SQL, against the same model alone.

Loads a set (CSV or JSON lines), asks every question through the real pipeline, scores the rows against the gold
rows, and reports execution accuracy by category and by path, with latency and prompt tokens; runs are kept
locally for the quality dashboard. No Qt.
"""

from core.evaluation._compare import Comparison, compare_results, gold_orders, normalize, order_keys
from core.evaluation._dashboard import FeedbackDay, QualitySeries, quality_series
from core.evaluation._gold import expand_alternatives, gold_variants, split_statements
from core.evaluation._report import markdown_report, percentile, report_json, summarize
from core.evaluation._runner import MODES, ItemResult, Runner, read_results
from core.evaluation._runs import RunSummary, cairn_version, list_runs, record_run, runs_path
from core.evaluation._session import EvalOptions, EvalOutcome, check_databases, check_model, evaluate
from core.evaluation._sets import EvalItem, load_set

__all__ = [
    "MODES",
    "Comparison",
    "EvalItem",
    "EvalOptions",
    "EvalOutcome",
    "FeedbackDay",
    "ItemResult",
    "QualitySeries",
    "RunSummary",
    "Runner",
    "cairn_version",
    "check_databases",
    "check_model",
    "compare_results",
    "evaluate",
    "expand_alternatives",
    "gold_orders",
    "gold_variants",
    "list_runs",
    "load_set",
    "markdown_report",
    "normalize",
    "order_keys",
    "percentile",
    "quality_series",
    "read_results",
    "record_run",
    "report_json",
    "runs_path",
    "split_statements",
    "summarize",
]
