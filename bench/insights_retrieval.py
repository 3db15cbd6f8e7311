"""Does another agent's insight surface for a related question, and stay away from an unrelated one?

    .venv/bin/python -m bench.insights_retrieval [SET.json ...]

Each case: an insight (summary and follow-ups, embedded as a stored record is) and a question from another
agent, marked related or not. Prints the cosine similarities by class and, at the threshold the sharing code uses
(``core.insights._share.MIN_SIMILARITY``) and a few around it, the share of related questions that see the
insight (recall) and of unrelated ones that do (false positives). The real MiniLM model, offline.
Default set: bench/data/insights_retrieval_dev.json (the development set the threshold was chosen on).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.insights._share import MIN_SIMILARITY
from core.memory import MiniLMEmbedder

DEV = Path(__file__).parent / "data" / "insights_retrieval_dev.json"


def _case(raw: dict) -> tuple[str, str, bool]:
    insight = raw["insight"]
    if isinstance(insight, dict):  # {"insight_summary", "suggested_followups"} as a record holds them
        text = " ".join([insight.get("insight_summary", ""), *insight.get("suggested_followups", [])])
    else:
        text = " ".join([insight, *raw.get("followups", [])])
    return text, raw["question"], bool(raw["related"])


def main(paths: list[str]) -> None:
    embedder = MiniLMEmbedder()
    for path in paths or [str(DEV)]:
        cases = [_case(c) for c in json.loads(Path(path).read_text(encoding="utf-8"))]
        vectors = embedder.embed_batch([t for c in cases for t in c[:2]])
        scores = [(float(vectors[2 * i] @ vectors[2 * i + 1]), c[2]) for i, c in enumerate(cases)]
        related = sorted(s for s, r in scores if r)
        unrelated = sorted(s for s, r in scores if not r)
        print(f"{path}: {len(related)} related, {len(unrelated)} unrelated")
        print(f"  related   min {related[0]:.2f}  median {related[len(related) // 2]:.2f}")
        print(f"  unrelated max {unrelated[-1]:.2f}  median {unrelated[len(unrelated) // 2]:.2f}")
        for t in sorted({0.25, 0.3, MIN_SIMILARITY, 0.4, 0.45}):
            recall = sum(s >= t for s in related) / len(related)
            false = sum(s >= t for s in unrelated) / len(unrelated)
            mark = "  <- used" if t == MIN_SIMILARITY else ""
            print(f"  threshold {t:.2f}: recall {recall:.0%}, false positives {false:.0%}{mark}")


if __name__ == "__main__":
    main(sys.argv[1:])
