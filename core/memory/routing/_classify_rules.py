"""The rule cascade behind the message classifier: clause form first, then cue words, most specific first.

Order matters and is the point: a retraction beats everything, a question form beats cue words (unless a
standing-time marker says the question is really a request to remember), explicit definitions beat requests,
and a one-off cue (those / yesterday / now) turns a would-be preference back into a data request.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from core.memory.routing._classify_text import (
    AUX,
    WH,
    Text,
    anaphora_cue,
    has_arithmetic,
    is_interrogative,
    is_request_start,
    one_off_cue,
    presentation_cue,
    standing_cue,
    strip_fillers,
)

__all__ = ["RuleResult", "classify_rules"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RuleResult:
    """``options``: when uncertain, the kinds a second opinion may choose between (the rule's kind first)."""

    kind: str
    uncertain: bool
    reasons: tuple[str, ...]
    options: tuple[str, ...] = ()


_DATA = ("follow_up", "question")
_MEMORY = ("preference", "terminology", "metric", "entity", "forget")
_PRONOUNS = frozenset(
    {"i", "we", "you", "it", "this", "that", "there", "these", "those", "he", "she", "they", "here", "me", "us"}
)
# Verbs that open a request and never a noun phrase being defined.
_IMPERATIVES = frozenset(
    {"show", "list", "give", "get", "find", "display", "tell", "pull", "fetch", "compare", "plot", "sort", "split",
     "drill", "help", "run", "export", "retrieve", "search", "check", "summarize", "summarise", "bring", "select",
     "identify", "apply", "provide", "generate", "produce", "calculate", "compute", "break", "group", "rank"}
)
_METRIC_HEADS = frozenset(
    {"rate", "ratio", "margin", "revenue", "turnover", "cost", "costs", "aov", "gmv", "mrr", "arr", "arpu",
     "arpa", "ltv", "clv", "cac", "dso", "dpo", "dio", "nps", "roi", "roas", "ctr", "cpc", "cpa", "cpm", "kpi",
     "churn", "retention", "yield", "velocity", "growth", "utilisation", "utilization", "productivity",
     "throughput", "score", "index", "profit", "ebitda", "income", "spend", "value", "time", "size", "share",
     "percentage", "average", "total", "count", "amount", "metric", "conversion", "attrition", "payback",
     "burn", "runway", "backlog", "occupancy", "uptime", "latency", "sla", "fill", "earnings"}
)
_COMPARISON = re.compile(
    r" (over \d|more than|less than|fewer than|greater than|at least|at most|above|below|under \d|exceed|"
    r"exceeds|exceeding|older than|newer than|>|<|>=|<=|within|no \w+ (for|in|since)) "
)
_MEMORY_NOUNS = (
    r"(filter|filters|rule|rules|preference|preferences|definition|definitions|setting|settings|memory|"
    r"memories|restriction|restrictions|condition|conditions|default|defaults|term|terms|metric|metrics|"
    r"instruction|instructions|constraint|constraints|exclusion|exclusions|limit)"
)
_FORGET = [
    (re.compile(r" (forget|forgot|unlearn|never ?mind|disregard what) "), "retraction verb"),
    (re.compile(r" no longer (care|interested|focus|focused|need|want (the|that|this|my)|my|relevant|"
                r"applies|apply|matters|important|using|use|work|working|manage|own)"), "no longer"),
    (re.compile(r" no longer (?!want to see|show|include)"), "no longer"),
    (re.compile(r" (remove|drop|delete|clear|reset|undo|scrap|discard|cancel|disable|turn off|get rid of|erase|"
                r"revert|unset|lift|ignore|stop applying|stop using|throw away|wipe|clean) "
                r"(\w+ ){0,6}" + _MEMORY_NOUNS + " "), "drop a remembered item"),
    (re.compile(r" stop (filtering|excluding|restricting|limiting|applying|hiding|ignoring|only showing|"
                r"remembering|defaulting|rounding|sorting|treating|focusing|using my|using the)"), "stop applying"),
    (re.compile(r" no need to (exclude|filter|limit|restrict|hide|apply|only|ignore|focus|keep)"), "no need to"),
    (re.compile(r" (do not|never) (exclude|filter|restrict|limit|hide) (\w+ ){0,5}(any ?more|any longer) "),
     "stop applying"),
    (re.compile(r" (go back to|revert to|return to|switch back to) (showing|including|all|the default|normal)"),
     "back to default"),
    (re.compile(r" (not|no longer) (care|interested|focused|focusing|concerned|looking at|working on|tracking)"
                r" (\w+ ){0,6}(any ?more|any longer|now) "), "not any more"),
    (re.compile(r" (do not|never) care about (\w+ ){0,6}(any ?more|any longer) "), "not any more"),
    (re.compile(r" (is|are) (not|no longer) (my|our) "), "no longer mine"),
    (re.compile(r" (remove|delete|drop) (\w+ ){0,3}from (my|the) (memory|memories|preferences|profile) "),
     "drop a remembered item"),
    (re.compile(r" (do not|no longer|never) (need|want|use|care about) (\w+ ){0,5}" + _MEMORY_NOUNS + " "),
     "drop a remembered item"),
    (re.compile(r" " + _MEMORY_NOUNS + r" (\w+ ){0,4}(any ?more|any longer|is (not|no longer) needed) "),
     "drop a remembered item"),
    (re.compile(r" (ignore|disregard|scratch|undo|drop|cancel|retract|take back) what (i|we) (said|told you|asked|"
                r"wrote|mentioned|set|defined) "), "retract what was said"),
    (re.compile(r" (i|we) (have )?changed (my|our) mind "), "changed my mind"),
    (re.compile(r"^ (undo|revert|scratch|retract|take back) (that|this|it|the last( \w+)?|my last( \w+)?) $"), "undo"),
    (re.compile(r"^ (start|begin|resume|go back to) (showing|including|counting|using|displaying) "), "undo exclusion"),
    (re.compile(r"^ (include|allow|bring back|re include|reinclude|show|count) (?!me |that |it |this |those |them "
                r"|these )(\w+ ){1,5}again $"), "undo exclusion"),
]
_WRAPPER = re.compile(
    r"^ (?:(?:can|could|would|will) you |please |kindly |i want you to |i would like you to )*"
    r"(remember|note|keep in mind|make a note|take note|save|store|memori[sz]e|learn)"
    r"(?: (?:that|this|for later|for next time|for the future)| :| to)* (.+)$"
)
_DEF_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(?:by|with) (?P<x>.+?) (?:i|we) (?:mean|meant|refer to|are referring to|am referring to) "
                r"(?P<y>.+)$"), "by X I mean Y"),
    (re.compile(r"^(?:when|whenever|if) (?:i|we) (?:say|said|talk about|mention|refer to|write|type|use the "
                r"(?:word|term|phrase)|ask about|ask for|speak of) (?P<x>.+?) (?:i|we) "
                r"(?:mean|want|am talking about|are talking about|refer to|am referring to) (?P<y>.+)$"),
     "when I say X I mean Y"),
    (re.compile(r"^(?:let us |we |i |please |lets )?(?:define|call|name|label) (?P<x>.+?) as (?P<y>.+)$"),
     "define X as Y"),
    (re.compile(r"^(?:let us |we |i |please |lets )?(?:call|dub) (?P<x>.+)(?P<y>)$"),
     "call X Y"),
    (re.compile(r"^(?:please )?(?:consider|treat|count|classify|regard|think of|interpret|read) (?P<x>.+?) as "
                r"(?!of )(?P<y>.+)$"), "treat X as Y"),
    (re.compile(r"^(?:please )?(?:consider|treat|count|classify|mark|flag|call) (?P<x>.+?) "
                r"(?P<y>(?:if|when|whenever|once|only if) .+)$"), "consider X Y if Z"),
    (re.compile(r"^(?P<x>(?:our|my|the) (?:fiscal |financial |business |working |work |reporting )?(?:year|quarter|"
                r"week|month|day|period|season)) (?P<y>(?:starts|begins|runs|ends|is from|goes from) .+)$"),
     "calendar definition"),
    (re.compile(r"^(?:our|my|the|a) definition of (?P<x>.+?) (?:is|=) (?P<y>.+)$"), "definition of X is Y"),
    (re.compile(r"^(?:we|i) (?:calculate|compute|define|measure|count|track|derive) (?P<x>.+?) (?:as|by taking) "
                r"(?P<y>.+)$"), "we calculate X as Y"),
    (re.compile(r"^(?P<x>.+?) (?:means|meaning|is defined as|are defined as|is defined by|refers to|"
                r"refer to|stands for|stand for|is short for|is shorthand for|is calculated as|are calculated as|"
                r"is computed as|is measured as|is derived as|should (?:always )?be (?:computed|calculated|"
                r"measured|defined|counted|treated) as|is the same as|equals|is equal to|=|:=|:) (?P<y>.+)$"),
     "X means Y"),
]
_EXCLUDE_OPEN = re.compile(
    r"^ (exclude|ignore|omit|hide|skip|leave out|filter out|keep (\w+ ){1,4}out|do not (show|include|display|"
    r"count|return|list|give|bring)|never (show|include|display|count|return|list|give)|"
    r"stop (showing|including|displaying|returning|counting|listing|giving)|no more|without) "
)
_INTEREST = [
    (re.compile(r" (interested|concerned) (only |solely |mainly |just |mostly |primarily )?in "), "interest"),
    (re.compile(r" i (only|just|solely) (care|look|want|need|work|deal|focus|track|report|sell|use|analy[sz]e) "),
     "only-verb"),
    (re.compile(r" i (mainly|mostly|primarily) (care|focus) "), "mainly care"),
    (re.compile(r" (i|we) (really |mostly |mainly |primarily |usually |only |just |most )*care (mostly |mainly |"
                r"most |primarily |only |just )?(about|for) "), "care about"),
    (re.compile(r" (i|we) (am |are )?(really |mostly |mainly |primarily |usually |only |just )*(focus|focused|"
                r"focusing|concentrate|concentrating) (mostly |mainly |primarily |only |just )?on "), "focus on"),
    (re.compile(r" (i|we) care only about "), "only-verb"),
    (re.compile(r" (i|we) (do not|never) (want|need|wish|like) to (see|have|get) "), "do not want"),
    (re.compile(r" (i|we) (do not|never) (want|need|care about) "), "do not want"),
    (re.compile(r" (i|we) (would )?prefer "), "prefer"),
    (re.compile(r" (my|our) (main |primary |only )?(focus|interest|priority|concern) (is|are) "), "focus"),
    (re.compile(r"(^ | so | and | please | , )(focus|concentrate) (only )?on "), "focus"),
    (re.compile(r" (restrict|limit|keep|narrow|scope) (everything|all|every|it|results|things|answers|"
                r"data|numbers|queries) (\w+ )?(to|at) "), "restrict everything"),
    (re.compile(r" (we|i) only (sell|operate|work|deal|ship|trade|serve) "), "only-verb"),
    (re.compile(r"^ (the |my |our )?default (\w+ ){0,3}(is|are|should be) "), "default setting"),
    (re.compile(r"^ (results|amounts|numbers|dates|values|currency|figures|totals|prices|money|everything|"
                r"all \w+|timestamps|times) (should|must) (always )?be "), "output setting"),
]
_ENTITY = [
    (re.compile(r"^ (my|our) (\w+ ){0,4}(is|are) "), "my X is Y"),
    (re.compile(r"^ the (\w+ ){0,3}(i|we) (manage|own|handle|cover|look after|work with|use|look at|track|"
                r"report on|support|serve|sell) (is|are) "), "the X I manage are Y"),
    (re.compile(r" (i|we) (usually |mostly |mainly |typically |normally |often |generally |primarily |"
                r"frequently |regularly )?(work with|work on|use|look at|query|manage|handle|cover|own|"
                r"am responsible for|report on|deal with|look after|run|lead|support) "), "I work with X"),
    (re.compile(r" (i|we) (am |are )?(in charge of|responsible for|oversee|own|the owner of|the manager of|"
                r"managing|running|covering) "), "I am in charge of X"),
    (re.compile(r" most of (my|our) (questions|queries|work|analysis|reports|requests) (is|are) "), "most of my"),
    (re.compile(r" (i|we) (usually|mostly|mainly|typically|normally|often|generally|primarily|frequently) "),
     "habitual"),
]
_STRUCTURE_WORDS = re.compile(r" (table|tables|column|columns|schema|view|views|dataset|field|fields) ")
# An area of data (rather than a value to filter on) as the object of a scope verb: 'I focus on the inventory data'.
_DATA_AREA = re.compile(r" (table|tables|column|columns|schema|views?|dataset|datasets|data|database|metrics|kpis|"
                        r"fields?) ")
# Scope verbs whose object is a slice of the data ('I'm responsible for the APAC region'): a standing filter.
_SCOPE = re.compile(
    r" (i|we) (am |are )?(usually |mostly |mainly |typically |normally |generally |primarily |only |just )?"
    r"(look at|work on|cover|manage|handle|look after|oversee|am responsible for|are responsible for|"
    r"responsible for|in charge of|run|own|report on|deal with|serve) (?P<obj>.+?)( so | and | but | , |$)"
)
_SLICE_NOUNS = frozenset(
    {"region", "regions", "market", "markets", "territory", "territories", "segment", "segments", "country",
     "countries", "geography", "geo", "vertical", "verticals", "channel", "channels", "customers", "clients",
     "subscribers", "users", "buyers", "orders", "plans", "category", "categories", "zone", "zones", "state",
     "states", "province", "provinces", "cities", "continent", "sector", "sectors", "industry", "industries"}
)
# Restrictive 'only' on the request itself: 'Only show me X', 'Show only X', 'Include X only'.
_ONLY_VERBS = frozenset(
    {"show", "list", "give", "include", "count", "return", "display", "pull", "use", "report", "consider", "keep",
     "fetch", "get", "bring", "select", "analyse", "analyze", "track"}
)
_REQUEST_ONLY = frozenset({"show", "list", "give", "display", "pull", "fetch", "get", "bring", "return", "select"})
# A one-off shape: a row limit, ranking or breakdown makes 'only' part of this question, not a standing filter.
_ANALYSIS = re.compile(
    r" ((top|first|last|bottom|latest|highest|lowest|biggest|largest|smallest) \d+|\d+ (rows|results|records|"
    r"entries|lines)|(revenue|sales|count|counts|total|totals|average|sum|spend|profit|margin|number|amounts?) "
    r"(by|per) \w+|(broken down|grouped|split|ranked|sorted|ordered) by|trend|breakdown|how many|how much|"
    r"column|columns|field|fields) "
)
# 'Use full names instead of codes': a standing substitution (a one-off cue still makes it a follow-up).
_SUBSTITUTE = re.compile(r"^ (always )?use (\w+ ){1,4}instead of (\w+ ){1,4}$")
_TOP_FRAGMENT = re.compile(r"^ ((only|just) )?(the )?(top|first|last|bottom|latest) \d+ (rows |results |ones |entries |"
                           r"records |please )?$")
# Self-descriptions with no data filter ('I work in the finance team', 'I'm new here').
_SELF = re.compile(
    r"^ (i|we) ((am|are) (a|an|the|new|part|based|from|in|on|with|one|still|currently|just|now|here|also)|"
    r"(work|worked|am working|are working) (in|at|for|as|on the \w+ team|with the \w+ team)|"
    r"(joined|started|report to|belong to|sit in|moved to|transferred to)|(have|had) (been|just|recently)) "
)
_SELF_BLOCK = re.compile(
    r" (need|want|like|looking|trying|curious|wondering|asking|hoping|going to|show|list|give|find|tell|get|"
    r"what|which|how|who|where|when|why|not) "
)


def _ok_subject(x: str) -> bool:
    w = x.split()
    if not w or len(w) > 8:
        return False
    if w[0] in WH or w[0] in AUX or w[0] in _PRONOUNS or w[0] in _IMPERATIVES:
        return False
    return not any(tok in {"where", "show", "list", "give"} for tok in w)


def _head(x: str) -> str:
    w = x.split()
    return w[-1] if w else ""


def _same_head(x: str, y: str) -> bool:
    """'hot leads are leads with ...': the defined phrase is a kind of the thing on the right."""
    stem = _head(x).rstrip("s")
    return len(stem) > 2 and any(tok.rstrip("s") == stem for tok in y.split()[:4])


def _definition_kind(x: str, y: str) -> tuple[str, str]:
    """metric when the right side computes something, terminology when it names a subset."""
    ys = f" {y} "
    if has_arithmetic(ys):
        return "metric", "arithmetic on the right"
    if _COMPARISON.search(ys) or _same_head(x, y):
        return "terminology", "a condition on the right"
    if " per " in ys:
        return "metric", "a rate on the right"
    if _head(x) in _METRIC_HEADS or re.search(r" (kpi|metric|measure) ", f" {x} "):
        return "metric", f"metric-like name '{_head(x)}'"
    return "terminology", "names a subset"


def _forget(t: Text) -> str | None:
    for rx, why in _FORGET:
        if rx.search(t.s):
            return why
    return None


def _explicit_definition(body: str) -> tuple[str, str] | None:
    for rx, why in _DEF_PATTERNS:
        m = rx.match(body)
        if not m:
            continue
        x, y = m.group("x").strip(), m.group("y").strip()
        if why == "X means Y" and not _ok_subject(x):
            continue
        if why == "call X Y" and (len(x.split()) < 3 or x.split()[0] in {"me", "it", "up"}):
            continue
        if why == "treat X as Y" and body.startswith("count") and not y:
            continue
        if why in {"X means Y"} and not y:
            continue
        if why == "call X Y":
            return "terminology", why
        kind, sub = _definition_kind(x, y)
        return kind, f"{why}; {sub}"
    return None


def _copula_definition(body: str) -> tuple[str, str, bool] | None:
    m = re.match(r"^(?P<x>.+?) (?:is|are) (?P<y>.+)$", body)
    if not m:
        return None
    x, y = m.group("x"), m.group("y")
    if not _ok_subject(x) or re.search(r" (whose|who|that|which|with|where) ", f" {x} "):
        return None
    if has_arithmetic(f" {y} "):
        return "metric", "X is <arithmetic>", False
    if " per " in f" {y} " and not _COMPARISON.search(f" {y} "):
        return "metric", "X is <rate>", False
    if x.split()[0] in {"my", "our"}:
        return None
    head = x.split()[-1]
    if _same_head(x, y):
        return "terminology", "X is a kind of Y", False
    if _COMPARISON.search(f" {y} ") or re.match(r"^(anyone|anybody|someone|somebody|those|one|ones|any|all|"
                                                   r"every|each|the ones|an? \w+ (with|who|that|whose))\b", y):
        return "terminology", "X is <condition>", False
    if head in _METRIC_HEADS:
        return "metric", f"X is Y with metric-like name '{head}'", True
    if re.search(r" (with|without|who|whose|that|which|where|from|in the last|since|after|before) ", f" {y} "):
        return "terminology", "X is <qualified noun>", True
    return None


def _only_directive(t: Text) -> tuple[str, str] | None:
    """Find 'only' restricting a request in any clause ('I work in finance, so only show ...')."""
    clause: list[str] = []
    for tok in (*t.tokens, ","):
        if tok in {",", ";", "so"}:
            found = _only_in_clause(strip_fillers(tuple(w for w in clause if w not in {"?", "(", ")", "%"})))
            if found:
                return found
            clause = []
        else:
            clause.append(tok)
    return None


def _only_in_clause(words: tuple[str, ...]) -> tuple[str, str] | None:
    """('lead', verb) for 'Only show me X', ('after', verb) for 'Show (me) only X' / 'Show X only'."""
    if len(words) >= 2 and words[0] == "only" and words[1] in _ONLY_VERBS:
        return "lead", words[1]
    if not words or words[0] not in _ONLY_VERBS:
        return None
    rest = words[2:] if words[1:2] in {("me",), ("us",)} else words[1:]
    if rest[:1] == ("only",) or (words[-1] == "only" and len(words) >= 3):
        return "after", words[0]
    return None


def _scope_entity_or_preference(t: Text) -> RuleResult | None:
    """'I mostly look at retail customers' is a standing filter; 'I mostly look at the invoices table' an entity."""
    m = _SCOPE.search(t.s)
    if not m:
        return None
    obj = " " + m.group("obj") + " "
    if _DATA_AREA.search(t.s[m.start("obj") - 1 :]):
        return RuleResult("entity", False, ("scope over an area of data",))
    if obj.split()[-1] in _SLICE_NOUNS:
        return RuleResult("preference", False, (f"scope over a slice of the data ('{obj.split()[-1]}')",))
    return None


_MODIFY = re.compile(
    r"^ ((sort|order|rank|group|split|break( it)? down|slice|pivot) by|add (the |a |an )?(\w+ ){0,2}columns? |"
    r"(remove|drop|hide) (the |a )?(\w+ ){0,2}columns? |make (it|this|that) |turn (it|this|that) into|"
    r"(change|switch|convert) (it|this|that|to) )|(instead|as well|too) $"
)


def _data(t: Text, has_history: bool, reasons: list[str], uncertain: bool = False) -> RuleResult:
    cue = anaphora_cue(t)
    if not cue:
        m = _MODIFY.search(" " + " ".join(strip_fillers(t.words)) + " ")
        cue = m.group(0).strip() if m else None
    if cue:
        weak = cue in {"it", "one", "ones"}
        if weak and not has_history:
            reasons.append(f"weak back-reference '{cue}' (no history)")
            return RuleResult("follow_up", True, tuple(reasons), _DATA)
        reasons.append(f"refers to the previous answer ('{cue}')")
        return RuleResult("follow_up", uncertain, tuple(reasons))
    return RuleResult("question", uncertain, tuple(reasons), ("question", *_MEMORY) if uncertain else ())


def _one_off(t: Text, has_history: bool, reasons: list[str], cue: str, one_off: str) -> RuleResult:
    """A preference-shaped filter meant for this answer only: refining the last answer, or a fresh question."""
    reasons.append(f"'{cue}' but one-off cue '{one_off}'")
    if one_off == "now":
        reasons.append("refines the previous answer")
        return RuleResult("follow_up", not has_history, tuple(reasons), _DATA)
    return _data(t, has_history, reasons)


def classify_rules(message: str, *, has_history: bool = False) -> RuleResult:
    """Route one message by rules alone. ``uncertain`` marks the cases worth a second opinion."""
    t = Text(message)
    if not t.words:
        return RuleResult("question", False, ("empty message",))
    reasons: list[str] = []
    wrapper = _WRAPPER.match(t.s.rstrip())
    if wrapper and len(wrapper.group(2).split()) >= 2:
        reasons.append(f"asks to {wrapper.group(1)}")
        t = Text(wrapper.group(2))

    words = strip_fillers(t.words)
    if not words:  # 'hello!', 'ok thanks', 'remember that, please': nothing left once the fillers are gone
        return RuleResult("question", False, (*reasons, "only greeting or filler words"))
    first = words[0]
    why = _forget(t)
    if why and first not in WH:
        return RuleResult("forget", False, (*reasons, why))

    body = " ".join(words)
    standing = standing_cue(t)
    d = None if t.ends_with_question_mark else _explicit_definition(body)
    if d:
        return RuleResult(d[0], False, (*reasons, d[1]))
    if not wrapper and is_interrogative(t):
        reasons.append("question form")
        if standing and (first not in WH or standing not in {"always", "never"}):
            return RuleResult("preference", True, (*reasons, f"standing marker '{standing}'"), ("preference", *_DATA))
        return _data(t, has_history, reasons)

    if first not in _IMPERATIVES:
        c = _copula_definition(body)
        if c and not c[2]:
            return RuleResult(c[0], False, (*reasons, c[1]))

    if not wrapper and _TOP_FRAGMENT.match(" " + body + " "):
        reasons.append("fragment narrowing the last answer")
        return RuleResult("follow_up", not has_history, tuple(reasons), _DATA)
    only = None if wrapper or standing else _only_directive(t)
    if only:
        one_off = one_off_cue(t)
        if one_off:
            return _one_off(t, has_history, reasons, "only", one_off)
        shape = _ANALYSIS.search(t.s)
        if shape:
            reasons.append(f"'only' inside a one-off analysis ('{shape.group(1).strip()}')")
            return _data(t, has_history, reasons)
        unsure = only[0] == "after" and only[1] in _REQUEST_ONLY
        return RuleResult("preference", unsure, (*reasons, f"restrictive 'only {only[1]}' with no one-off cue"),
                          ("preference", "question") if unsure else ())
    fmt = None if wrapper else presentation_cue(t)
    if not fmt and not wrapper and _SUBSTITUTE.match(" " + body + " "):
        fmt = "use X instead of Y"
    if fmt and not one_off_cue(t):
        unsure = has_history and words[0] in {"show", "display", "give", "convert", "sort", "order", "put"}
        return RuleResult("preference", unsure, (*reasons, f"presentation setting ('{fmt}')"),
                          ("preference", "follow_up") if unsure else ())

    if not wrapper and is_request_start(t):
        reasons.append("imperative data request")
        if standing:
            return RuleResult("preference", False, (*reasons, f"standing marker '{standing}'"))
        return _data(t, has_history, reasons)

    if standing and standing != "anymore":
        return RuleResult("preference", False, (*reasons, f"standing marker '{standing}'"))

    one_off = one_off_cue(t)
    names_structure = _STRUCTURE_WORDS.search(t.s) is not None and " only " not in t.s
    for rx, cue in _INTEREST:
        hit = rx.search(t.s)
        if hit and not names_structure:
            if cue in {"care about", "focus on"} and _DATA_AREA.search(t.s[hit.end() - 1 :]):
                return RuleResult("entity", False, (*reasons, f"{cue} an area of data"))
            if one_off and not wrapper:
                return _one_off(t, has_history, reasons, cue, one_off)
            return RuleResult("preference", False, (*reasons, f"standing interest ({cue})"))
    m = _EXCLUDE_OPEN.match(" " + body + " ")
    if m or standing == "anymore":
        cue = m.group(1) if m else "anymore"
        if one_off and not wrapper and standing != "anymore":
            return _one_off(t, has_history, reasons, cue, one_off)
        return RuleResult("preference", False, (*reasons, f"standing exclusion '{cue}'"))

    scoped = _scope_entity_or_preference(t)
    if scoped:
        return RuleResult(scoped.kind, False, (*reasons, *scoped.reasons))
    for rx, cue in _ENTITY:
        if rx.search(t.s if not rx.pattern.startswith("^") else " " + body + " "):
            return RuleResult("entity", False, (*reasons, f"entity statement ({cue})"))
    if _STRUCTURE_WORDS.search(t.s) and re.search(r" (i|my|we|our|is|are) ", t.s):
        return RuleResult("entity", False, (*reasons, "names a table or column"))

    c = _copula_definition(body)
    if c:
        other = "terminology" if c[0] == "metric" else "metric"
        return RuleResult(c[0], c[2], (*reasons, c[1]), (c[0], other) if c[2] else ())

    if wrapper:
        return RuleResult("preference", True, (*reasons, "asked to remember"), _MEMORY[:-1])
    if _SELF.match(" " + body + " ") and not _SELF_BLOCK.search(" " + " ".join(words[2:]) + " "):
        # Who the user is, not a data request and not a filter: kept as low-stakes context, never run as SQL.
        return RuleResult("entity", True, (*reasons, "self-description"), ("entity",))
    declarative = first in {"i", "we", "my", "our", "me"} or re.search(r" (is|are|means) ", t.s) is not None
    reasons.append("no memory cue")
    return _data(t, has_history, reasons, uncertain=declarative)
