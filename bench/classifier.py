"""Bench: message routing (data question vs memory statement) — Cairn's classifier against the seed's regex.

Run from the repository root: ``.venv/bin/python -m bench.classifier [--split dev|heldout|all] [--group G]
[--embedder] [--errors]``. Data: tests/data/classifier_messages.csv (message,label,split,group; ``group`` tags
rows written for one error class: only / format / focus / self, blank otherwise). Reports exact-kind accuracy
(7 kinds), route accuracy (memory vs data: what decides whether SQL runs), per label and per group, the seed's
route accuracy, and time per message.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.memory import MEMORY_KINDS, classify  # noqa: E402

DATA = ROOT / "tests" / "data" / "classifier_messages.csv"

_SEED_PATTERNS = [
    r"i\s+(?:am\s+)?(?:only\s+)?(?:not\s+)?interested\s+in",
    r"i\s+(don't|do not)\s+want",
    r"i\s+want\s+to\s+see",
    r"i\s+prefer",
    r"i\s+like",
    r"i\s+need\s+to\s+see",
    r"always\s+show",
    r"never\s+show",
    r"exclude\b",
    r"include\s+only",
    r"filter\s+by",
    r"only\s+show\s+me",
    r"from\s+now\s+on",
    r"going\s+forward",
    r"let'?s\s+(call|define)",
    r"define\s+.*\s+as",
    r".*\s+means\s+.*",
    r"consider\s+.*\s+as",
    r"i\s+am\s+not\s+interested",
    r"i\s+no\s+longer",
    r"stop\s+showing",
    r"remove\s+.*\s+filter",
]


def seed_is_preference(user_message: str) -> bool:
    """The seed's ``_is_preference_statement``, verbatim in behaviour (including its quirks)."""
    message_lower = user_message.lower().strip()
    for pattern in _SEED_PATTERNS:
        if re.search(pattern, message_lower):
            return True
    if " means " in message_lower or " is defined as " in message_lower:
        return True
    question_words = ["what", "how", "when", "where", "which", "who", "why",
                      "show me", "list", "give me", "find", "get", "count"]
    has_question = any(word in message_lower for word in question_words)
    basic_preferences = ["i want", "i need", "i prefer", "always", "never"]
    has_preference = any(pref in message_lower for pref in basic_preferences)
    return has_preference and not has_question


@dataclass(frozen=True)
class Row:
    message: str
    label: str
    split: str
    group: str = ""


def load_rows(path: Path = DATA) -> list[Row]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [Row(r["message"], r["label"], r["split"], r.get("group") or "") for r in csv.DictReader(fh)]


@dataclass(frozen=True)
class Score:
    n: int
    exact: float
    route: float
    seed_route: float
    per_class: dict[str, tuple[int, float, float, float]]  # label -> (n, exact, route, seed route)
    errors: list[tuple[str, str, str, tuple[str, ...]]]
    ms_per_message: float


def score(rows: list[Row], *, embedder: object | None = None) -> Score:
    by: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
    errors = []
    t0 = time.perf_counter()
    routes = [classify(r.message, embedder=embedder) for r in rows]  # type: ignore[arg-type]
    ms = (time.perf_counter() - t0) * 1000 / max(1, len(rows))
    for r, route in zip(rows, routes):
        gold_mem = r.label in MEMORY_KINDS
        exact = route.kind == r.label
        ok_route = (route.kind in MEMORY_KINDS) == gold_mem
        seed_ok = seed_is_preference(r.message) == gold_mem
        by[r.label].append((exact, ok_route, seed_ok))
        if not exact:
            errors.append((r.message, r.label, route.kind, route.reasons))
    flat = [x for xs in by.values() for x in xs]
    n = len(flat)

    def frac(xs: list[tuple[bool, bool, bool]], i: int) -> float:
        return sum(x[i] for x in xs) / len(xs) if xs else 0.0

    per = {k: (len(v), frac(v, 0), frac(v, 1), frac(v, 2)) for k, v in sorted(by.items())}
    return Score(n, frac(flat, 0), frac(flat, 1), frac(flat, 2), per, errors, ms)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="dev")
    ap.add_argument("--group", default=None, help="only rows of this group (only, format, focus, self)")
    ap.add_argument("--embedder", action="store_true", help="use MiniLM as tie-breaker for unsure cases")
    ap.add_argument("--errors", action="store_true", help="list misclassified messages")
    args = ap.parse_args(argv)
    rows = [r for r in load_rows() if (args.split == "all" or r.split == args.split)
            and (args.group is None or r.group == args.group)]
    embedder = None
    if args.embedder:
        from core.memory import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    s = score(rows, embedder=embedder)
    print(f"split={args.split} n={s.n} exact={s.exact:.3f} route={s.route:.3f} "
          f"seed_route={s.seed_route:.3f} ms/msg={s.ms_per_message:.3f}")
    print(f"{'class':<12} {'n':>4} {'exact':>6} {'route':>6} {'seed':>6}")
    for label, (n, ex, ro, sd) in s.per_class.items():
        print(f"{label:<12} {n:>4} {ex:>6.2f} {ro:>6.2f} {sd:>6.2f}")
    groups = sorted({r.group for r in rows if r.group})
    if groups and args.group is None:
        print(f"{'group':<12} {'n':>4} {'exact':>6} {'route':>6} {'seed':>6}")
        for g in groups:
            gs = score([r for r in rows if r.group == g])
            print(f"{g:<12} {gs.n:>4} {gs.exact:>6.2f} {gs.route:>6.2f} {gs.seed_route:>6.2f}")
    if args.errors:
        for msg, gold, got, why in s.errors:
            print(f"  [{gold} -> {got}] {msg!r}  {'; '.join(why)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
