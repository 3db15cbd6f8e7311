"""Wall time of one `cairn ask` on a SQLite file (fake Ollama on loopback): process start to exit.

    .venv/bin/python -m bench.cli_startup                   # this checkout
    .venv/bin/python -m bench.cli_startup --against main~3  # and another commit, side by side in one run

With ``--against``, the other commit is checked out in a temporary git worktree and run by the same Python and
packages; the two are measured in alternation (this checkout, then the other, run after run), so a busy machine
slows both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench._checkouts import checkouts  # noqa: E402
from tests.fakes.fake_ollama import FakeOllama  # noqa: E402

EMBEDDER = REPO / "build" / "embedder"  # the export of this checkout serves the other too (no torch)

CHINOOK = REPO.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"


def _ask(checkout: Path, db: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "core.cli", "ask", "How many tracks?", "--db", str(db), "--json"],
        capture_output=True, text=True, env=env, check=False, cwd=checkout,
    )
    elapsed = time.perf_counter() - t
    assert json.loads(proc.stdout)["rows"] == [[3503]], proc.stderr
    return elapsed


def _import(checkout: Path) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import core.cli, core.pipeline, core.databases"], check=True,
                   cwd=checkout)
    return time.perf_counter() - t


def main(runs: int = 7, against: str | None = None) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="cairn-cli-bench-"))
    db = tmp / "chinook.sqlite"
    shutil.copy(CHINOOK, db)
    times: dict[str, list[float]] = {}
    imports: dict[str, list[float]] = {}
    try:
        with checkouts(against, tmp) as found, FakeOllama() as server:
            server.default_chat = lambda body: "SELECT COUNT(*) FROM Track"
            for _ in range(runs):
                for name, checkout in found.items():
                    env = {**os.environ, "OLLAMA_HOST": server.url, "CAIRN_DATA_DIR": str(tmp / "data" / name),
                           "PYTHONPATH": str(checkout), "CAIRN_EMBEDDER_DIR": str(EMBEDDER)}
                    times.setdefault(name, []).append(_ask(checkout, db, env))
                    imports.setdefault(name, []).append(_import(checkout))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name in times:
        print(f"{name}: cairn ask on SQLite, {runs} runs: median {statistics.median(times[name]):.2f}s, "
              f"max {max(times[name]):.2f}s; python start + import of the CLI and pipeline: "
              f"median {statistics.median(imports[name]):.2f}s")
    if against:
        ratio = statistics.median(times["this checkout"]) / statistics.median(times[against])
        print(f"this checkout / {against}: {ratio:.2f}x the wall time of one ask")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", help="a git commit to measure side by side with this checkout")
    args = parser.parse_args()
    main(args.runs, args.against)
