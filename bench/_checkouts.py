"""Another commit beside this checkout, for benchmarks that compare the two side by side in one run."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def checkouts(against: str | None, scratch: Path) -> Iterator[dict[str, Path]]:
    """{"this checkout": REPO} and, with ``against``, that commit in a temporary git worktree under ``scratch``
    (removed afterwards). Both are run by the same Python and packages."""
    found = {"this checkout": REPO}
    other = scratch / "other"
    if against:
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(other), against],
                       check=True)
        found[against] = other
    try:
        yield found
    finally:
        if against:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)], check=False)
