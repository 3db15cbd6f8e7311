"""Is another agent's insight about this question? Word-by-word matching of the record against the question.

A record's summary and follow-ups are compared with the new question token by token (BERTScore, Zhang et al.
2020): each content token of the record is matched to its most similar token of the question (cosine of the
encoder's last-layer states), and the record's score is the mean of those best matches — how much of what the
record is about the question also says. One pooled sentence vector cannot tell "the same table, another measure"
from "the same topic in other words": both share most of their words' meaning, and the pooled cosine is about as
high. Word-level precision can: the record's measure words (late, delivery, promised) find nothing to match in a
question about another measure (average, value), while a paraphrase, a warehouse name or a Hindi-English wording
still lands near each of them.

Function words are left out of both sides (they match anything): English and the Hindi-English ones analysts type.

One number does not decide it either: the mean best match (``word_match``) ranks pairs well on one set of questions
and its bar does not carry to the next. ``RelevanceModel`` is a logistic regression over a fixed set of figures of the
same token-similarity matrix (``pair_features``: how much of the record the question covers, and of the question the
record, on the whole and for the summary and each follow-up, their spread, and the pooled cosines), trained by
``scripts/train_relevance.py`` on the development pairs and shipped in ``data/relevance.npz`` with the bar it chose
and the digest of the pairs it learnt from. Nothing about the text's length is a feature: every set of pairs written
so far has longer related questions, which says how people write test pairs, not what is related. Measured by
``bench.insights_retrieval``, side by side with ``word_match`` alone.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

__all__ = ["FEATURES", "MATCH_FLOOR", "RELEVANCE_EMBEDDER", "TABLE_WEIGHT", "RelevanceModel", "TokenStates",
           "content_states", "load_relevance_model", "pair_features", "relevance", "table_words",
           "training_digest", "word_match"]

TokenStates = tuple[np.ndarray, list[str]]  # (n tokens x dims, unit rows), the WordPiece tokens

# Chosen on the development pairs (bench/data/insights_retrieval_dev*.json, tests/heldout/insights_retrieval.json
# and insights_retrieval_fresh.json, both used as development sets): the bar near the best recall minus false
# positives, on its lower-false-positive side.
MATCH_FLOOR = 0.25
# A record's table names are where it looked, not what it found: another question about the same table shares them
# and says nothing of the record's measure. Their tokens count this much (development pairs: AUC +0.005 to +0.03).
TABLE_WEIGHT = 0.2

_FUNCTION_WORDS = frozenset("""
a an the of in on at to by for from with without into onto over under about as and or but nor not no so if then than
is are was were be been being am do does did done have has had having will would shall should can could may might must
it its this that these those there here what which who whom whose how when where why all any each every some such
much many more most less least per via i me my we us our you your they them their he she his her
ka ke ki ko se me mein hai hain tha the thi thay ho hota hoti kya kitna kitne kitni kaun kab kahan aur ya bhi
wala wale wali liye par pe ne sab koi
""".split())


def content_states(states: TokenStates) -> np.ndarray:
    """The rows of a text's token states that carry meaning: no function words, no punctuation."""
    keep, _ = _content_rows(states[1])
    return states[0][keep] if keep else states[0]


def _content_rows(tokens: list[str]) -> tuple[list[int], list[str]]:
    """The indices of the tokens that carry meaning, and the whole word each belongs to (lower case)."""
    words: list[str] = []  # the whole word each WordPiece token belongs to ("kit", "##na" -> "kitna")
    starts: list[int] = []
    for i, token in enumerate(tokens):
        if token.startswith("##") and words:
            words[-1] += token[2:]
        else:
            words.append(token)
            starts.append(i)
    ends = [*starts[1:], len(tokens)] if starts else []
    keep = [(i, w.lower()) for w, start, end in zip(words, starts, ends, strict=True)
            if any(ch.isalnum() for ch in w) and w.lower() not in _FUNCTION_WORDS for i in range(start, end)]
    return [i for i, _ in keep], [w for _, w in keep]


def table_words(entities: Sequence[str]) -> frozenset[str]:
    """The words of a record's ``table:`` entities ("table:order_items" → order, orders, item, items)."""
    out: set[str] = set()
    for entity in entities:
        if entity.startswith("table:"):
            for word in entity[6:].rpartition(".")[2].lower().split("_"):
                if word:
                    out |= {word, word.rstrip("s"), word.rstrip("s") + "s"}
    return frozenset(out)


def word_match(question: TokenStates, parts: Sequence[TokenStates], tables: frozenset[str] = frozenset()) -> float:
    """How much of a record (its summary and follow-ups, together) the question speaks of: the mean, over the
    record's content tokens, of each one's best cosine with a content token of the question — a token of one of
    the record's ``tables`` (``table_words``) counting TABLE_WEIGHT — (0 when either side has no tokens)."""
    asked = content_states(question)
    rows, weights = [], []
    for vectors, tokens in parts:
        keep, words = _content_rows(tokens)
        rows.append(vectors[keep])
        weights += [TABLE_WEIGHT if w in tables else 1.0 for w in words]
    if not len(asked) or not weights:
        return 0.0
    best = (np.vstack(rows) @ asked.T).max(axis=1)
    return float(np.average(best, weights=np.asarray(weights)))


def relevance(question: np.ndarray, parts: Sequence[np.ndarray]) -> float:
    """The pooled-vector method (an embedder without token states): the best cosine of the record's parts (unit
    vectors) with the question."""
    return max((float(np.dot(question, p)) for p in parts), default=0.0)


# The figures ``pair_features`` computes, in order (the shipped weights are tied to this order and these names).
FEATURES: tuple[str, ...] = (
    "whole", "best_part", "summary",  # pooled cosines: the record's whole text, its best part, its summary
    "covered", "covered_plain",  # word_match, with and without the table names counting less
    "asked_covered", "f1",  # the question's tokens' best matches in the record; their harmonic mean with covered
    "covered_70", "asked_70",  # the share of tokens whose best match is at least 0.7
    "asked_min", "asked_median", "asked_q25", "asked_q75",
    "covered_q10", "covered_q25", "covered_median",  # the record's tokens other than table names
    "summary_covered", "followup_best", "followup_mean",  # covered, for the summary and each follow-up alone
)  # fmt: skip
RELEVANCE_EMBEDDER = "all-MiniLM-L6-v2"  # the weights are only valid beside this encoder's token states
_MODEL_FILE = "relevance.npz"


def pair_features(question: TokenStates, question_vector: np.ndarray, whole: float,
                  parts: Sequence[TokenStates], part_vectors: Sequence[np.ndarray],
                  tables: frozenset[str] = frozenset()) -> np.ndarray:
    """FEATURES for one record (``parts``: its summary first, then its follow-ups, with their unit vectors) and one
    question. ``whole``: the cosine of the record's whole-text vector with the question (the store's similarity)."""
    out = dict.fromkeys(FEATURES, 0.0)
    out["whole"] = whole
    if part_vectors:
        cosines = [float(np.dot(question_vector, v)) for v in part_vectors]
        out["best_part"], out["summary"] = max(cosines), cosines[0]
    asked = content_states(question)
    kept = [(states[0][keep], words) for states in parts for keep, words in [_content_rows(states[1])]]
    if not len(asked) or not any(words for _, words in kept):
        return np.asarray([out[name] for name in FEATURES], dtype=np.float64)
    per_part = [(rows @ asked.T).max(axis=1) if len(rows) else np.zeros(0) for rows, _ in kept]
    best = np.concatenate(per_part)
    words = [w for _, ws in kept for w in ws]
    from_question = np.vstack([rows for rows, _ in kept if len(rows)]) @ asked.T
    asked_best = from_question.max(axis=0)
    not_table = np.asarray([w not in tables for w in words])
    own = best[not_table] if not_table.any() else best
    weights = np.asarray([TABLE_WEIGHT if w in tables else 1.0 for w in words])
    covered, asked_covered = float(np.average(best, weights=weights)), float(asked_best.mean())
    out.update(covered=covered, covered_plain=float(own.mean()), asked_covered=asked_covered,
               f1=2 * covered * asked_covered / max(covered + asked_covered, 1e-9),
               covered_70=float((best > 0.7).mean()), asked_70=float((asked_best > 0.7).mean()),
               asked_min=float(asked_best.min()), asked_median=float(np.median(asked_best)),
               asked_q25=float(np.quantile(asked_best, 0.25)), asked_q75=float(np.quantile(asked_best, 0.75)),
               covered_q10=float(np.quantile(own, 0.1)), covered_q25=float(np.quantile(own, 0.25)),
               covered_median=float(np.median(own)))
    means = [float(p.mean()) for p in per_part]
    out["summary_covered"] = means[0] if len(per_part[0]) else 0.0
    followups = [m for p, m in zip(per_part[1:], means[1:], strict=True) if len(p)]
    if followups:
        out["followup_best"], out["followup_mean"] = max(followups), float(np.mean(followups))
    return np.asarray([out[name] for name in FEATURES], dtype=np.float64)


@dataclass(frozen=True)
class RelevanceModel:
    """The shipped logistic regression over ``pair_features`` and the probability bar chosen with it."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    bar: float

    def probability(self, features: np.ndarray) -> float:
        z = float(((features - self.mean) / self.scale) @ self.weights + self.bias)
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0))))


_model_lock = threading.Lock()
_model: list[RelevanceModel | None] = []


def load_relevance_model() -> RelevanceModel | None:
    """The shipped model, loaded once; None when its file is missing or was made for other features (the caller
    then falls back to ``word_match`` against MATCH_FLOOR)."""
    with _model_lock:
        if not _model:
            _model.append(_read_model())
        return _model[0]


def _read_model() -> RelevanceModel | None:
    try:
        with resources.files("core.insights").joinpath("data", _MODEL_FILE).open("rb") as fh:
            data = np.load(fh, allow_pickle=False)
            if tuple(str(n) for n in data["features"]) != FEATURES or str(data["embedder"]) != RELEVANCE_EMBEDDER:
                return None
            return RelevanceModel(data["mean"].astype(np.float64), data["scale"].astype(np.float64),
                                  data["weights"].astype(np.float64), float(data["bias"]), float(data["bar"]))
    except (OSError, KeyError, ValueError):
        return None


def training_digest(paths: Sequence[str]) -> str:
    """The SHA-256 of the training pairs, in order (``scripts/train_relevance.py``; a test checks the shipped
    weights came from the files the script names)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    return digest.hexdigest()
