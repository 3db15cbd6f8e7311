"""Train the message router (core/memory/routing/_router.py) from core/memory/routing/data/routing_train.csv.

Run from the repository root: ``.venv/bin/python scripts/train_router.py [--check]``. Writes
core/memory/routing/data/router.npz (weights, labels, the embedder it belongs to, the training file's SHA-256) and prints
stratified 5-fold cross-validation accuracy for each regularisation strength tried. ``--check`` only reports
whether the shipped weights were trained from the shipped training file.

Deterministic: the same CSV gives the same weights (lbfgs, fixed folds).
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.memory.routing._router import LABELS, ROUTER_EMBEDDER, features, training_file_digest  # noqa: E402

DATA = ROOT / "core" / "memory" / "routing" / "data" / "routing_train.csv"
OUT = ROOT / "core" / "memory" / "routing" / "data" / "router.npz"
C_GRID = (10.0, 30.0)


_NEEDS_HISTORY = ("follow_up", "refine")

# Values analysts name, by kind. A row that names one is also learned with others of the same kind (twins in
# its group), so the route never hangs on which country, city, status or segment a message names ("only show
# customers from Peru" is a preference exactly when "... from India" is). tests/test_router.py swaps in values
# of each kind that are NOT listed here and checks the route holds.
SWAP_VALUES = {
    "country": ("India", "Japan", "Germany", "France", "Brazil", "Canada", "USA", "UK", "Australia", "Singapore",
                "Mexico", "Italy", "Spain", "Sweden", "Norway", "Denmark", "Portugal", "China", "Indonesia",
                "Argentina", "Chile", "Poland", "Netherlands", "Belgium", "Ireland"),
    "city": ("Paris", "Lyon", "Mumbai", "Pune", "Delhi", "Bangalore", "Chennai", "London", "Leeds", "Manchester",
             "Tokyo", "Osaka", "Berlin", "Munich", "Hamburg", "Toronto", "Vancouver", "Chicago", "Austin", "Boston",
             "Seattle", "Sydney", "Melbourne", "Madrid", "Rome", "Milan", "Dublin", "Prague"),
    "status": ("delivered", "shipped", "cancelled", "returned", "pending", "processing", "refunded", "completed",
               "failed", "open", "closed", "active", "inactive", "paid", "unpaid", "overdue"),
    "segment": ("retail", "wholesale", "corporate", "enterprise", "consumer", "SMB", "premium", "government"),
}
TWINS = 2


def entity_twins(message: str, rng: random.Random, n: int = TWINS) -> list[str]:
    """``message`` with each value it names swapped for another of the same kind, ``n`` times (none when it names
    no value of ``SWAP_VALUES``)."""
    found = [(kind, re.compile(r"\b(" + "|".join(map(re.escape, values)) + r")\b", re.IGNORECASE))
             for kind, values in SWAP_VALUES.items()]
    found = [(kind, pattern) for kind, pattern in found if pattern.search(message)]
    if not found:
        return []
    out = []
    for _ in range(n):
        twin = message
        for kind, pattern in found:
            twin = pattern.sub(lambda m, k=kind: rng.choice([v for v in SWAP_VALUES[k]
                                                            if v.lower() != m.group(0).lower()]), twin)
        out.append(twin)
    return out


def load(path: Path = DATA) -> tuple[list[str], list[str], list[bool]]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("message", "").strip() and r.get("label") in LABELS]
    return ([r["message"] for r in rows], [r["label"] for r in rows],
            [str(r.get("has_history", "0")).strip() in ("1", "true", "True") for r in rows])


def matrix(messages: list[str], history: list[bool]) -> np.ndarray:
    from core.memory.kernel._embedder import MiniLMEmbedder

    emb = MiniLMEmbedder().embed_batch(messages)
    return np.stack([features(m, e, has_history=h) for m, e, h in zip(messages, emb, history, strict=True)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.check:
        data = np.load(OUT, allow_pickle=False)
        ok = str(data["train_digest"]) == training_file_digest()
        print("router.npz matches routing_train.csv" if ok else "router.npz is STALE: retrain")
        return 0 if ok else 1
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedGroupKFold, cross_val_score

    messages, labels, history = load()
    t0 = time.perf_counter()
    # A self-contained message keeps its kind whether or not a conversation came before it ("how many long
    # tracks are there" is a question after any turn): each such row written without history is also learned
    # with it, so history alone never reads as "follow-up". Twins share a group: they never straddle folds.
    groups = list(range(len(messages)))
    rng = random.Random(11)
    for i in range(len(messages)):
        for twin in entity_twins(messages[i], rng):  # the same route whichever value is named
            messages.append(twin)
            labels.append(labels[i])
            history.append(history[i])
            groups.append(i)
    for i in range(len(messages)):
        if not history[i] and labels[i] not in _NEEDS_HISTORY:
            messages.append(messages[i])
            labels.append(labels[i])
            history.append(True)
            groups.append(groups[i])
    x = matrix(messages, history)
    y = np.asarray([LABELS.index(lbl) for lbl in labels])
    print(f"{len(messages)} rows ({len(set(groups))} messages), {x.shape[1]} features, embedded in "
          f"{time.perf_counter() - t0:.1f} s")
    folds = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=7)
    best_c, best = C_GRID[0], -1.0
    for c in C_GRID:
        clf = LogisticRegression(C=c, max_iter=3000, class_weight="balanced")
        acc = float(np.mean(cross_val_score(clf, x, y, cv=folds, groups=groups)))
        print(f"C={c:<5} 5-fold accuracy {acc:.3f}")
        if acc > best:
            best_c, best = c, acc
    clf = LogisticRegression(C=best_c, max_iter=3000, class_weight="balanced").fit(x, y)
    weights = np.zeros((len(LABELS), x.shape[1]), dtype=np.float32)
    bias = np.full(len(LABELS), -30.0, dtype=np.float32)  # a label absent from training is never predicted
    for row, cls in enumerate(clf.classes_):
        weights[cls], bias[cls] = clf.coef_[row], clf.intercept_[row]
    np.savez_compressed(OUT, weights=weights, bias=bias, labels=np.asarray(LABELS), embedder=ROUTER_EMBEDDER,
                        train_digest=training_file_digest(), cv_accuracy=best, c=best_c)
    print(f"chose C={best_c} (cv {best:.3f}); wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
