"""Decide whether an analyst's message is a data question or something Cairn should remember.

Rules on the parsed clause decide (core/memory/_classify_rules.py); only when they are unsure does an optional
embedder (nearest prototype) and then an optional cheap LLM call get a say. Neither is ever required.

Where the lines are drawn (each one a general rule, measured on tests/data/classifier_messages.csv):
  - Restrictive "only" on a request with no one-off cue is a standing preference ("Only show me customers from
    India", "Include only paid invoices"), as in the seed's own "only show me" rule. A one-off cue (those/that,
    a bounded time, "now", "this time"), a question form, or an analysis shape (top/first N, N rows, "revenue by",
    columns) keeps it a question or follow-up. "Show (me) only X" is flagged uncertain (it reads like a request
    too); "Only show/include X" is not.
  - A unit / format / ordering instruction whose object is only generic value words (amounts, dates, numbers)
    is a preference ("Show amounts in INR", "Display dates as DD/MM/YYYY"); a data noun or a time to fetch makes
    it a question ("Show revenue in INR for last month"). With history, show/convert/sort forms are uncertain
    (they may re-render the last answer).
  - Scope statements: attention or responsibility over a slice of the data (a region, market, segment,
    customers: "I care about India", "I'm responsible for the APAC region") are preferences, because recall turns
    preferences into filters; the same verbs over an area of data (a table, dataset, "the inventory data") are
    entities, as are possessive namings ("My region is LATAM", "My key accounts are ...") and named instances.
  - Self-descriptions with no data filter ("I work in the finance team", "I'm new here") are entity with
    uncertain=True and no alternatives: low-stakes context, never SQL, and no model is asked to move them.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from core.errors import CairnError
from core.memory._classify_rules import RuleResult, classify_rules

if TYPE_CHECKING:
    import numpy as np

    from core.llm import LLM
    from core.memory._embedder import Embedder

__all__ = ["KINDS", "MEMORY_KINDS", "Route", "RouteKind", "classify", "is_memory_statement"]

logger = logging.getLogger(__name__)

RouteKind = Literal["question", "follow_up", "preference", "terminology", "metric", "entity", "forget"]
KINDS: tuple[str, ...] = get_args(RouteKind)
MEMORY_KINDS = frozenset({"preference", "terminology", "metric", "entity", "forget"})


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    uncertain: bool
    reasons: tuple[str, ...]


def is_memory_statement(route: Route) -> bool:
    """True when the message should update memory instead of running SQL."""
    return route.kind in MEMORY_KINDS


# Generic prototypes, one short paraphrase family per kind; used only to break ties the rules flag.
_PROTOTYPES: dict[str, tuple[str, ...]] = {
    "question": (
        "How many records match this condition?",
        "Show me the totals broken down by category",
        "Which items had the highest value last quarter?",
        "List the latest entries",
        "What is the average amount per group?",
    ),
    "follow_up": (
        "Break those results down further",
        "What about the previous period?",
        "Now sort them differently",
    ),
    "preference": (
        "From now on only include active records",
        "Always exclude internal accounts from my results",
        "I am only interested in one region",
        "Never show me cancelled items",
    ),
    "terminology": (
        "When I say premium I mean items priced over a threshold",
        "A loyal customer is someone with more than five purchases",
        "The term key account refers to our largest clients",
    ),
    "metric": (
        "The ratio is the first total divided by the second total",
        "Margin is revenue minus cost divided by revenue",
        "This KPI equals the sum of sales over the number of users",
    ),
    "entity": (
        "My main accounts are these two companies",
        "I usually work with the sales table",
        "My team is the regional office",
    ),
    "forget": (
        "Forget that rule",
        "I no longer care about that filter",
        "Remove my earlier preference",
    ),
}
_EMBED_MARGIN = 0.06
_proto_cache: dict[int, tuple[object, list[str], np.ndarray]] = {}
_proto_lock = threading.Lock()


def _prototypes(embedder: Embedder) -> tuple[list[str], np.ndarray]:
    with _proto_lock:
        hit = _proto_cache.get(id(embedder))
        if hit is not None and hit[0] is embedder:
            return hit[1], hit[2]
        labels = [k for k, texts in _PROTOTYPES.items() for _ in texts]
        matrix = embedder.embed_batch([x for texts in _PROTOTYPES.values() for x in texts])
        _proto_cache[id(embedder)] = (embedder, labels, matrix)
        return labels, matrix


def _embedder_vote(message: str, rule: RuleResult, embedder: Embedder) -> tuple[RuleResult, bool]:
    """Pick among the memory kinds the rules left open, by nearest prototype; (result, decided).

    Only used to tell memory kinds apart: MiniLM similarity tracks topic, not whether a filter is standing or
    one-off, so it never moves a message between "data" and "memory" (measured: that made things worse).
    """
    labels, matrix = _prototypes(embedder)
    vec = embedder.embed_batch([message])[0]
    sims = matrix @ vec
    best: dict[str, float] = {}
    for label, sim in zip(labels, sims.tolist()):
        if label in rule.options:
            best[label] = max(best.get(label, -1.0), float(sim))
    top = max(best, key=lambda k: best[k])
    gap = best[top] - best.get(rule.kind, -1.0)
    if top == rule.kind:
        return RuleResult(rule.kind, False, (*rule.reasons, f"embedder agrees ({best[top]:.2f})")), True
    if gap >= _EMBED_MARGIN:
        return RuleResult(top, False, (*rule.reasons, f"embedder prefers {top} by {gap:.2f}")), True
    return RuleResult(rule.kind, True, (*rule.reasons, f"embedder unsure ({top} by {gap:.2f})"), rule.options), False


_LLM_SYSTEM = (
    "You sort one message from a data analyst talking to a SQL assistant. Answer with exactly one word:\n"
    "question - asks for data now (including one-off filters like 'only the delivered ones');\n"
    "follow_up - asks for data and refers to the previous answer (those, them, what about ...);\n"
    "preference - a standing filter or setting for all future answers (always, from now on, I only care about, "
    "show amounts in INR, only include paid invoices);\n"
    "terminology - defines what a word or phrase means as a condition;\n"
    "metric - defines how a number is calculated;\n"
    "entity - tells which tables, columns, accounts or things the user usually works with, or who the user is;\n"
    "forget - withdraws something remembered earlier."
)


def _llm_vote(message: str, rule: RuleResult, llm: LLM) -> RuleResult:
    try:
        reply = llm.chat(_LLM_SYSTEM, message, options={"num_predict": 8, "temperature": 0.0})
    except CairnError as exc:
        logger.info("classifier LLM check skipped: %s", exc)
        return RuleResult(rule.kind, True, (*rule.reasons, "LLM check failed"), rule.options)
    found = re.search(r"follow[ _-]?up|question|preference|terminology|metric|entity|forget", reply.lower())
    if not found:
        return RuleResult(rule.kind, True, (*rule.reasons, "LLM reply unreadable"), rule.options)
    kind = found.group(0)
    kind = "follow_up" if kind.startswith("follow") else kind
    allowed = rule.options or KINDS
    if kind not in allowed:
        return RuleResult(rule.kind, True, (*rule.reasons, f"LLM says {kind}, outside {allowed}"), rule.options)
    if kind == rule.kind:
        return RuleResult(rule.kind, False, (*rule.reasons, "LLM agrees"))
    return RuleResult(kind, False, (*rule.reasons, f"LLM says {kind}"))


def classify(
    message: str, *, embedder: Embedder | None = None, llm: LLM | None = None, has_history: bool = False
) -> Route:
    """Route one message. Rules first; embedder then LLM only when the rules flag themselves unsure.

    A rule that is unsure but leaves a single option (a self-description) is not sent for a second opinion.
    """
    result = classify_rules(message, has_history=has_history)
    if result.uncertain and len(result.options) == 1:
        return Route(kind=result.kind, uncertain=True, reasons=result.reasons)  # type: ignore[arg-type]
    memory_only = bool(result.options) and all(k in MEMORY_KINDS for k in result.options)
    if result.uncertain and memory_only and embedder is not None:
        try:
            result, decided = _embedder_vote(message, result, embedder)
        except CairnError as exc:
            logger.info("classifier embedder check skipped: %s", exc)
            decided = False
        if decided:
            llm = None
    if result.uncertain and llm is not None and message.strip():
        result = _llm_vote(message, result, llm)
    kind = result.kind if result.kind in KINDS else "question"
    return Route(kind=kind, uncertain=result.uncertain, reasons=result.reasons)  # type: ignore[arg-type]
