"""Does another agent's insight surface for a related question, and stay away from an unrelated one?

    .venv/bin/python -m bench.insights_retrieval [SET.json ...]

Each case: an insight (summary and follow-ups) and a question from another agent, marked related or not. The
method is the sharing code's own: the store's prefilter on the record's whole-text vector
(``core.insights._share.PREFILTER``), then the best cosine of its parts (``relevance``) against
``MIN_SIMILARITY``. Prints, at that threshold and a few around it, the share of related questions that see the
insight (recall) and of unrelated ones that do (false positives), and the same for the whole-text vector alone
(the first method) for comparison. The real MiniLM model, offline.
Default set: bench/data/insights_retrieval_dev.json (the development set the threshold was chosen on).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.insights._share import MIN_SIMILARITY, PREFILTER, relevance
from core.memory import MiniLMEmbedder

DEV = Path(__file__).parent / "data" / "insights_retrieval_dev.json"


def _case(raw: dict) -> tuple[list[str], str, bool]:
    insight = raw["insight"]
    if isinstance(insight, dict):  # {"insight_summary", "suggested_followups"} as a record holds them
        parts = [insight.get("insight_summary", ""), *insight.get("suggested_followups", [])]
    else:
        parts = [insight, *raw.get("followups", [])]
    return [p for p in parts if p.strip()], raw["question"], bool(raw["related"])


def _rates(scores: list[tuple[float, float, bool]], threshold: float, *, parts: bool) -> tuple[float, float]:
    seen = [(whole >= PREFILTER and best >= threshold) if parts else whole >= threshold
            for whole, best, _ in scores]
    related = [s for s, (_, _, r) in zip(seen, scores, strict=True) if r]
    unrelated = [s for s, (_, _, r) in zip(seen, scores, strict=True) if not r]
    return sum(related) / len(related), sum(unrelated) / len(unrelated)


def main(paths: list[str]) -> None:
    embedder = MiniLMEmbedder()
    for path in paths or [str(DEV)]:
        cases = [_case(c) for c in json.loads(Path(path).read_text(encoding="utf-8"))]
        scores = []
        for parts, question, related in cases:
            vectors = embedder.embed_batch([" ".join(parts), *parts, question])
            asked = vectors[-1]
            scores.append((float(vectors[0] @ asked), relevance(asked, list(vectors[1:-1])), related))
        print(f"{path}: {sum(r for *_, r in scores)} related, {sum(not r for *_, r in scores)} unrelated")
        for t in sorted({0.32, 0.36, MIN_SIMILARITY, 0.44}):
            recall, false = _rates(scores, t, parts=True)
            whole_recall, whole_false = _rates(scores, t, parts=False)
            mark = "  <- used" if t == MIN_SIMILARITY else ""
            print(f"  threshold {t:.2f}: best part: recall {recall:.0%}, false positives {false:.0%}   |   "
                  f"whole text: recall {whole_recall:.0%}, false positives {whole_false:.0%}{mark}")


if __name__ == "__main__":
    main(sys.argv[1:])
