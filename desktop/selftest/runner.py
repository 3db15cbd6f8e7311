"""``cairn selftest``: proves an installed Cairn (a frozen bundle or a source checkout) works on this machine.

It starts the bundled PostgreSQL in a temporary data dir and creates the sample database, loads the bundled
embedding model with the network blocked, answers one question through the Ollama-compatible server in
``OLLAMA_HOST``, else the local default the app uses (SKIPPED when no Ollama answers there, a failure with
``--require-model``), stores a memory and recalls it,
and opens and closes the main window offscreen. Each step prints its time and OK / FAILED / SKIPPED; the exit
code is 0 only when no step failed. The steps live in :mod:`desktop.selftest.steps`.

Nothing of the person's is touched: the data and config dirs (``CAIRN_DATA_DIR``), ``HOME`` and the XDG dirs
point into one temporary folder for the run, removed afterwards (with the embedded cluster, which as root lives
under the ``pgserver`` account's folder). It lives in ``desktop`` because it opens the window; ``core`` never
imports it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = ["StepResult", "main"]

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# Pointed into the temporary folder for the run (platformdirs and Qt read these; Hugging Face and torch caches too).
_HOME_VARS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


@dataclass(frozen=True)
class StepResult:
    name: str
    title: str
    status: str  # "OK", "FAILED" or "SKIPPED"
    seconds: float
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "status": self.status, "seconds": round(self.seconds, 3),
                "detail": self.detail}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cairn selftest", description=(
        "Check that this Cairn works here: embedded PostgreSQL and the sample database, the embedding model "
        "offline, one question through Ollama (OLLAMA_HOST, else the local default), a memory stored and recalled, the window. Uses a temporary "
        "data dir; nothing of yours is read or written."))
    parser.add_argument("--json", action="store_true", help="print one JSON object with the steps and times")
    parser.add_argument("--require-model", action="store_true",
                        help="fail (rather than skip) when no Ollama answers or its model cannot answer")
    parser.add_argument("--model", help="the model to ask (default: Cairn's default model)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what each step does to stderr")
    return parser


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("cairn-sql")
    except metadata.PackageNotFoundError:
        return "(source)"


@contextmanager
def _isolated() -> Iterator[Path]:
    """A temporary folder holding the run's data dir and a stand-in home; the environment is put back after."""
    root = Path(tempfile.mkdtemp(prefix="cairn-selftest-")).resolve()
    saved = {k: os.environ.get(k) for k in ("CAIRN_DATA_DIR", *_HOME_VARS, *_OFFLINE)}
    try:
        home = root / "home"
        for sub in ("", ".config", ".local/share", ".cache", ".local/state"):
            (home / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        os.environ.update({"CAIRN_DATA_DIR": str(root / "data"), "HOME": str(home),
                           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
                           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
                           **_OFFLINE})
        yield root
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)


def _run_steps(args: argparse.Namespace, root: Path, on_start: Any, on_done: Any) -> list[StepResult]:
    from core.composition import Services
    from core.config import Settings, data_dir
    from core.databases import EmbeddedPostgres
    from core.memory import MiniLMEmbedder
    from desktop.selftest import steps

    settings = Settings().with_env()  # the defaults, and OLLAMA_HOST: no settings file of the person's is read
    if args.model:
        settings = replace(settings, model=args.model)
    here = data_dir()
    server = EmbeddedPostgres(here)
    services = Services(settings, embedded=server, embedder=MiniLMEmbedder())
    run = steps.Run(data_dir=here, settings=settings, ollama_host=os.environ.get("OLLAMA_HOST") or None,
                    require_model=args.require_model, services=services)
    results: list[StepResult] = []
    allowed = (steps.ollama_hostname(settings.ollama_host),) if run.ollama_host else ()
    try:
        with steps.NetworkGuard(tuple(h for h in allowed if h)) as guard:
            for number, step in enumerate(steps.STEPS, 1):
                on_start(number, step)
                results.append(_one_step(run, step, guard))
                on_done(results[-1])
    finally:
        _close(services, server, root)
    return results


def _one_step(run: Any, step: Any, guard: Any) -> StepResult:
    from core.errors import CairnError
    from desktop.selftest import steps

    missing = [n for n in step.needs if n not in run.passed]
    if missing:
        return StepResult(step.name, step.title, "FAILED", 0.0, f"not run: step {', '.join(missing)} failed")
    blocked_before = len(guard.blocked)
    started = time.perf_counter()
    status = "OK"
    try:
        detail = step.run(run)
    except steps.Skipped as exc:
        status, detail = "SKIPPED", str(exc)
    except Exception as exc:  # noqa: BLE001 - every failure is a step's one-line reason, never a traceback
        logger.debug("step %s failed", step.name, exc_info=True)
        hint = f" ({exc.hint})" if isinstance(exc, CairnError) and exc.hint else ""
        status = "FAILED"
        plain = isinstance(exc, (steps.StepFailed, CairnError))  # already in a person's words
        detail = (str(exc) if plain else f"{type(exc).__name__}: {exc}") + hint
    seconds = time.perf_counter() - started
    tried = guard.blocked[blocked_before:]
    if tried and status != "FAILED":
        status, detail = "FAILED", f"tried to reach the network ({', '.join(sorted(set(tried))[:3])}); blocked"
    if status == "OK":
        run.passed.add(step.name)
    return StepResult(step.name, step.title, status, seconds, " ".join(detail.split()))


def _close(services: Any, server: Any, root: Path) -> None:
    """Stop what the run started and remove the cluster: as root it lives outside ``root`` (see _cluster)."""
    try:
        services.close()
    except Exception:  # noqa: BLE001 - closing is best effort; the server stop below still runs
        logger.warning("closing the self-test's services failed", exc_info=True)
    pgdata = server.pgdata
    server.stop()
    owner = pgdata.parent / "data-dir.txt"
    try:
        made_for = (owner.read_text().splitlines() or [""])[0].strip()  # the data directory, then its token
        if not pgdata.is_relative_to(root) and made_for == str(server.root):
            shutil.rmtree(pgdata.parent, ignore_errors=True)
    except OSError:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(name)s %(levelname)s %(message)s")
    from desktop.selftest.steps import STEPS

    total = len(STEPS)
    plain = not args.json

    def on_start(number: int, step: Any) -> None:
        if plain:
            print(f"[{number}/{total}] {step.name:<9}", end="", flush=True)

    def on_done(result: StepResult) -> None:
        if plain:
            print(f" {result.status:<7} {result.seconds:6.2f}s  {result.detail}", flush=True)

    started = time.perf_counter()
    with _isolated() as root:
        if plain:
            print(f"Cairn {_version()} self-test (temporary data in {root})", flush=True)
        try:
            results = _run_steps(args, root, on_start, on_done)
        except Exception as exc:  # noqa: BLE001 - the run itself could not be set up
            logger.debug("self-test failed to start", exc_info=True)
            results = [StepResult("setup", "prepare the run", "FAILED", 0.0, f"{type(exc).__name__}: {exc}")]
    seconds = time.perf_counter() - started
    failed = next((r for r in results if r.status == "FAILED"), None)
    skipped = [r for r in results if r.status == "SKIPPED"]
    if failed is not None:
        reason = f"FAILED at step {failed.name}: {failed.detail}"
    else:
        reason = "OK" + (f" ({', '.join(f'{r.name} skipped: {r.detail}' for r in skipped)})" if skipped else "")
    code = EXIT_FAILED if failed is not None else EXIT_OK
    if args.json:
        print(json.dumps({"ok": failed is None, "exit_code": code, "summary": reason, "seconds": round(seconds, 3),
                          "version": _version(), "temp_dir": str(root), "temp_dir_removed": not root.exists(),
                          "steps": [r.to_json() for r in results]}, ensure_ascii=False))
    else:
        print(f"selftest: {reason} — {seconds:.1f}s", file=sys.stderr if failed else sys.stdout, flush=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
