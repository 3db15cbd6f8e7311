"""Does another agent's insight surface for a related question, and stay away from an unrelated one?

    .venv/bin/python -m bench.insights_retrieval [SET.json ...]

Each case: an insight (summary and follow-ups) and a question from another agent, marked related or not. Two
methods, side by side, each as the sharing code runs it:

- word by word (used with the MiniLM encoder): the store's prefilter on the record's whole-text vector
  (``PREFILTER_WORDS``), then ``word_match`` — how much of the record the question speaks of, token by token —
  against ``MATCH_FLOOR``;
- pooled vectors (the earlier method, still used by an embedder without token states): the prefilter at
  ``PREFILTER``, then the best cosine of the record's parts (``relevance``) against ``MIN_SIMILARITY``.

Prints, at the bar used and a few around it, the share of related questions that see the insight (recall) and of
unrelated ones that do (false positives), and the area under the ROC curve of each score. The real MiniLM model,
offline. Default set: bench/data/insights_retrieval_dev.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.insights._relevance import MATCH_FLOOR, relevance, table_words, word_match
from core.insights._share import MIN_SIMILARITY, PREFILTER, PREFILTER_WORDS
from core.memory import MiniLMEmbedder

DEV = Path(__file__).parent / "data" / "insights_retrieval_dev.json"


def _case(raw: dict) -> tuple[list[str], list[str], str, bool]:
    insight = raw["insight"]
    if isinstance(insight, dict):  # {"insight_summary", "suggested_followups"} as a record holds them
        parts = [insight.get("insight_summary", ""), *insight.get("suggested_followups", [])]
        entities = list(insight.get("entities", []))
    else:
        parts, entities = [insight, *raw.get("followups", [])], []
    return [p for p in parts if p.strip()], entities, raw["question"], bool(raw["related"])


def _rates(rows: list[tuple[float, float, bool]], prefilter: float, bar: float) -> tuple[float, float]:
    seen = [whole >= prefilter and score >= bar for whole, score, _ in rows]
    related = [s for s, (*_, r) in zip(seen, rows, strict=True) if r]
    unrelated = [s for s, (*_, r) in zip(seen, rows, strict=True) if not r]
    return sum(related) / max(1, len(related)), sum(unrelated) / max(1, len(unrelated))


def _auc(rows: list[tuple[float, float, bool]]) -> float:
    """The chance that a related pair scores above an unrelated one (ties count half)."""
    pos = [s for _, s, r in rows if r]
    neg = [s for _, s, r in rows if not r]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / max(1, len(pos) * len(neg))


def main(paths: list[str]) -> None:
    embedder = MiniLMEmbedder()
    for path in paths or [str(DEV)]:
        cases = [_case(c) for c in json.loads(Path(path).read_text(encoding="utf-8"))]
        pooled, words = [], []
        for parts, entities, question, related in cases:
            vectors, tokens = embedder.embed_tokens([" ".join(parts), *parts, question])
            whole = float(vectors[0] @ vectors[-1])
            pooled.append((whole, relevance(vectors[-1], list(vectors[1:-1])), related))
            words.append((whole, word_match(tokens[-1], tokens[1:-1], table_words(entities)), related))
        print(f"{path}: {sum(r for *_, r in pooled)} related, {sum(not r for *_, r in pooled)} unrelated; "
              f"AUC word by word {_auc(words):.3f}, pooled best part {_auc(pooled):.3f}")
        for step in (-0.02, -0.01, 0.0, 0.01, 0.02):
            recall, false = _rates(words, PREFILTER_WORDS, MATCH_FLOOR + step)
            old_recall, old_false = _rates(pooled, PREFILTER, MIN_SIMILARITY + 2 * step)
            mark = "  <- used" if step == 0 else ""
            print(f"  word by word {MATCH_FLOOR + step:.2f}: recall {recall:4.0%}, false positives {false:4.0%}   |   "
                  f"pooled {MIN_SIMILARITY + 2 * step:.2f}: recall {old_recall:4.0%}, false positives {old_false:4.0%}"
                  f"{mark}")


if __name__ == "__main__":
    main(sys.argv[1:])
