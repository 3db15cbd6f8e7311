"""Route an analyst's message: a data question, an edit of the last query, small talk or a question about Cairn,
or something to remember (a preference, a term, a metric, an entity, a retraction).

The learned router (core/memory/routing/_router.py: logistic regression over MiniLM embeddings, hashed n-grams and the
rule cascade's verdict) decides when the MiniLM embedder is there; the rules of core/memory/routing/_classify_rules.py
alone decide otherwise (a test embedder, a missing weights file). When the router is unsure (top probability
under ``CONFIDENT`` or within ``MARGIN`` of the runner-up) the local model, when there is one, chooses among the
likely kinds; without one, an unsure choice between *remember* and *answer* answers (storing a wrong standing
filter would change every later answer; answering changes nothing) and says how to make it a memory instead.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from core.errors import CairnError
from core.memory.routing._classify_rules import RuleResult, classify_rules
from core.memory.routing._router import load_router

if TYPE_CHECKING:
    import numpy as np

    from core.llm import LLM
    from core.memory.kernel import Embedder

__all__ = [
    "DATA_KINDS",
    "KINDS",
    "MEMORY_KINDS",
    "TALK_KINDS",
    "Route",
    "RouteKind",
    "classify",
    "is_memory_statement",
    "route_group",
    "router_applies",
    "withdraws",
]

logger = logging.getLogger(__name__)

RouteKind = Literal[
    "question", "follow_up", "refine", "chat", "meta", "preference", "terminology", "metric", "entity", "forget"
]
KINDS: tuple[str, ...] = get_args(RouteKind)
MEMORY_KINDS = frozenset({"preference", "terminology", "metric", "entity", "forget"})
DATA_KINDS = frozenset({"question", "follow_up", "refine"})
TALK_KINDS = frozenset({"chat", "meta"})
NEEDS_HISTORY = frozenset({"follow_up", "refine"})
CONFIDENT = 0.60
MARGIN = 0.20


@dataclass(frozen=True)
class Route:
    """``alternative``: the runner-up kind when the choice was unsure (what the person may have meant);
    ``changes``: set when the assistant re-routes a would-be question to the saved rule it changes."""

    kind: RouteKind
    uncertain: bool
    reasons: tuple[str, ...]
    alternative: str | None = None
    changes: str | None = None  # the id of the saved rule a message taken for a question really changes


def route_group(kind: str) -> str:
    """memory / data / talk: what decides whether something is stored, SQL runs, or neither."""
    return "memory" if kind in MEMORY_KINDS else "talk" if kind in TALK_KINDS else "data"


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
    "follow_up - asks for new data and refers to the previous answer (those, them, what about ...);\n"
    "refine - edits the previous query and runs it again (drop that filter, sort it by amount, top 5 instead);\n"
    "chat - a greeting, thanks or small talk;\n"
    "meta - asks about the assistant, the database's tables and columns, the saved memories, or the last SQL;\n"
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
    found = re.search(r"follow[ _-]?up|question|refine|chat|meta|preference|terminology|metric|entity|forget",
                      reply.lower())
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


def router_applies(embedder: Embedder | None) -> bool:
    """True when the learned router will decide for messages embedded by ``embedder``."""
    model = load_router()
    return embedder is not None and model is not None and model.accepts(embedder)


def classify(
    message: str, *, embedder: Embedder | None = None, llm: LLM | None = None, has_history: bool = False
) -> Route:
    """Route one message: the learned router with MiniLM, the rules without it (see the module docstring)."""
    rule = classify_rules(message, has_history=has_history)
    model = load_router()
    if embedder is not None and model is not None and model.accepts(embedder):
        try:
            probs = model.predict(message, embedder, has_history=has_history, rule=rule)
        except CairnError as exc:
            logger.info("router skipped: %s", exc)
        else:
            return _decide(message, probs, rule, llm, has_history)
    return _by_rules(message, rule, embedder, llm)


_REPLACEMENT = re.compile(r"\b(?:switch|change|replace|swap|move|update)\w*\b.*\bto\s+\w|\bfrom\s+[\w' -]+?\s+to\s+\w|"
                          r"\b(?:instead|ki\s+jagah)\b", re.IGNORECASE)


# A withdrawal says so: a verb of removing, "no longer", "any more", "again", "no need", Hindi-English "hatao",
# "band karo", "khatam", "wapas". Without one, "skip video tracks" or "cancelled wale orders mat gino" states a
# rule (forgetting destroys what the person saved, so it is never done on the router's word alone).
_WITHDRAW_CUE = re.compile(
    r"\b(?:forg[eo]?t\w*|unlearn|unremember|never\s*mind|bh[uo]o?l\w*|wipe|(?:nahi|nahin|na)\s+chahiye|"
    r"zaru?rat\s+nahi\w*|disregard|drop|dropp\w*|remove|delete|clear|reset|undo|scrap|"
    r"discard|cancel|disable|turn\s+off|get\s+rid|erase|revert|unset|lift|stop|quit|no\s+longer|any\s*more|"
    r"any\s+longer|again|no\s+need|not\s+needed|need\s+not|don'?t\s+need|can\s+go|back\s+to|hata\w*|"
    r"band\s+kar\w*|khatam|wapas|over\s+now|isn'?t|aren'?t|not\s+(?:my|our|mine)|ignore\s+what|withdraw\w*|"
    r"retract\w*|discontinue|ditch|nix|toss|bin|rid|done\s+with|obsolete|outdated|temporary|no\s+more)\b",
    re.IGNORECASE)


SURE_WITHDRAWAL = 0.9  # the router is this sure: a withdrawal even in words the cue list does not know


def withdraws(message: str) -> bool:
    """The message has words that take something back (see ``_WITHDRAW_CUE``)."""
    return bool(_WITHDRAW_CUE.search(message))


def _decide(message: str, probs: dict[str, float], rule: RuleResult, llm: LLM | None, has_history: bool) -> Route:
    if not has_history:  # nothing to edit or lean on: a follow-up or an edit is then a question of its own
        moved = sum(p for k, p in probs.items() if k in NEEDS_HISTORY)
        probs = {k: (0.0 if k in NEEDS_HISTORY else p) for k, p in probs.items()}
        probs["question"] = probs.get("question", 0.0) + moved
    ranked = sorted(probs.items(), key=lambda kv: kv[1], reverse=True)
    (top, p1), (second, p2) = ranked[0], ranked[1]
    why = (f"router: {top} {p1:.2f}, {second} {p2:.2f}", *rule.reasons)
    if top == "forget" and p1 < SURE_WITHDRAWAL and not withdraws(message):
        (top, p1), (second, p2) = ranked[1], ranked[0]
        why = (*why, "no words that take something back: not a withdrawal")
    if top == "forget" and _REPLACEMENT.search(message):  # "switch the country filter from India to Japan"
        return Route("preference", False, (*why, "a withdrawal with a replacement: the new value is kept"),
                     alternative="forget")
    if p1 >= CONFIDENT and p1 - p2 >= MARGIN:
        return Route(top, False, why)  # type: ignore[arg-type]
    options = tuple(k for k, p in ranked[:3] if p >= 0.08)
    if llm is not None and message.strip():
        voted = _llm_vote(message, RuleResult(top, True, why, options), llm)
        if not voted.uncertain:
            return Route(voted.kind, False, voted.reasons, alternative=second)  # type: ignore[arg-type]
    if top == "forget":  # forgetting destroys what the person saved: never on a guess
        top, second = second, top
        why = (*why, "unsure whether this withdraws a memory: not forgotten")
    if route_group(top) == "memory" and route_group(second) == "data":
        return Route(second, True, (*why, "unsure between remembering and answering: answered"),  # type: ignore[arg-type]
                     alternative=top)
    return Route(top, True, why, alternative=second)  # type: ignore[arg-type]


def _by_rules(message: str, rule: RuleResult, embedder: Embedder | None, llm: LLM | None) -> Route:
    """The rule cascade, an embedder tie-break between memory kinds, then the model; greetings are chat."""
    result = rule
    if result.reasons and result.reasons[-1] == "only greeting or filler words":
        return Route("chat", False, result.reasons)
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
    if kind == "forget" and (result.uncertain or not withdraws(message)):  # never on a guess
        kind = next((k for k in result.options if k in KINDS and k != "forget"), "question")
    return Route(kind=kind, uncertain=result.uncertain, reasons=result.reasons)  # type: ignore[arg-type]
