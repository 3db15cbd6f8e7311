"""Wall time of one `cairn ask` on a SQLite file (fake Ollama on loopback): process start to exit.

    .venv/bin/python -m bench.cli_startup
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.fake_ollama import FakeOllama  # noqa: E402

CHINOOK = Path(__file__).resolve().parents[2] / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"


def main(runs: int = 7) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="cairn-cli-bench-"))
    db = tmp / "chinook.sqlite"
    shutil.copy(CHINOOK, db)
    times = []
    with FakeOllama() as server:
        server.default_chat = lambda body: "SELECT COUNT(*) FROM Track"
        env = {**os.environ, "OLLAMA_HOST": server.url, "CAIRN_DATA_DIR": str(tmp / "data")}
        for _ in range(runs):
            t = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "core.cli", "ask", "How many tracks?", "--db", str(db), "--json"],
                capture_output=True, text=True, env=env, check=False,
            )
            times.append(time.perf_counter() - t)
            assert json.loads(proc.stdout)["rows"] == [[3503]], proc.stderr
    print(f"cairn ask on SQLite, {runs} runs: median {statistics.median(times):.2f}s, max {max(times):.2f}s")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import core.cli, core.pipeline, core.databases"], check=True)
    print(f"python start + import of the CLI and pipeline: {time.perf_counter() - t:.2f}s")


if __name__ == "__main__":
    main()
