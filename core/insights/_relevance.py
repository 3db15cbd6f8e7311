"""Is another agent's insight about this question? Word-by-word matching of the record against the question.

A record's summary and follow-ups are compared with the new question token by token (BERTScore, Zhang et al.
2020): each content token of the record is matched to its most similar token of the question (cosine of the
encoder's last-layer states), and the record's score is the mean of those best matches — how much of what the
record is about the question also says. One pooled sentence vector cannot tell "the same table, another measure"
from "the same topic in other words": both share most of their words' meaning, and the pooled cosine is about as
high. Word-level precision can: the record's measure words (late, delivery, promised) find nothing to match in a
question about another measure (average, value), while a paraphrase, a warehouse name or a Hindi-English wording
still lands near each of them.

Measured side by side on the development pairs (``bench.insights_retrieval``): area under the ROC curve 0.87–0.91
against 0.71–0.81 for the best part's pooled cosine; on the held-out sets written since, 0.61–0.96 against
0.58–0.70. Function words are left out of both sides (they match anything): English and the Hindi-English ones
analysts type.

Tried and left out (2026-12-06): a logistic regression over nineteen figures of the same token-similarity matrix
(coverage both ways, its spread, per part, the pooled cosines), chosen leaving one set of pairs out. It raised the
held-out AUC (0.72 → 0.87, 0.61 → 0.75), but mostly by learning that a short question is unrelated: in every set of
pairs written so far the related questions are the longer ones, and the model then missed a quarter of the terse
questions analysts type ("revenue per country"). Weighted so that length could not speak, its gain over this score was
0.03 AUC: not worth a trained artefact. Telling "the same table, another measure" from a paraphrase needs a stronger
reader than MiniLM's token states (a cross-encoder or the local model).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["MATCH_FLOOR", "TABLE_WEIGHT", "TokenStates", "content_states", "relevance", "table_words", "word_match"]

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
