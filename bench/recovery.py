"""Bench: how often does Cairn recover the right rows from a damaged model reply, against running it as-is?

Run from the repository root: ``.venv/bin/python -m bench.recovery [--split dev|test|all] [--dialect
postgres|sqlite|duckdb|mysql|both|all] [--generator own|independent|fresh|fresh2|fresh3] [--model never|fixes]
[--show KIND]``.

Defog dumps and Chinook are loaded into a fresh embedded PostgreSQL; for ``sqlite`` each defog database is copied
into a SQLite file with its primary keys and **no foreign keys** (``tests/defog_sqlite.py``), and asked defog's
SQLite gold queries; ``duckdb`` asks PostgreSQL's gold queries of a DuckDB copy (``tests/defog_duckdb.py``) and
``mysql`` of a MariaDB copy on a server the bench starts (``tests/defog_mysql.py``), the gold transpiled by sqlglot
(a gold query that does not run there is skipped). Every gold query is damaged in every kind of the generator and
answered twice: (a) as-is: fences stripped, run directly in a read-only transaction; (b) Cairn: ``AskPipeline`` with a scripted model
that serves the damaged reply and, when asked to repair, the same reply again (a model that never improves).
Right = the rows of one of the question's gold variants under ``cairn eval``'s rules (``core.evaluation``:
duplicates counted, order ignored, columns by content, numbers within a tolerance). Generators: ``own``
(``tests/damage.py``, written with the repairs) and ``independent`` (``tests/heldout/damage_independent.py``,
written from published error analyses by a helper who never read the repair code: a held-out check whose
failures are not printed) and ``fresh`` (``tests/heldout/damage_fresh.py``, a second such helper's, written
for issue 27 with kinds that change rows without an error, named ``silent_*``; held out the same way). Harm is
listed as "changed results": a reply that was right as written (``clean`` is the gold itself) whose rows Cairn
changed. The ``dev`` split is for tuning; ``test`` is kept untouched until the end.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import importlib
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import psycopg  # noqa: E402
import pymysql  # noqa: E402
import sqlglot  # noqa: E402

from core.config import Settings  # noqa: E402
from core.databases import open_database  # noqa: E402
from core.databases import EmbeddedPostgres  # noqa: E402
from core.evaluation import compare_results, gold_variants  # noqa: E402
from core.answer import Answer  # noqa: E402
from core.pipeline import AskPipeline  # noqa: E402
from core.schema import Schema  # noqa: E402
from tests.conftest import SHARED_DATA  # noqa: E402
from tests.damage import render  # noqa: E402
from tests.defog_loader import DEFOG_DATABASES, load_defog  # noqa: E402
from tests.defog_duckdb import duckdb_copy  # noqa: E402
from tests.defog_mysql import mysql_copy  # noqa: E402
from tests.mariadb_server import MariaDB  # noqa: E402
from tests.defog_sqlite import sqlite_copy  # noqa: E402
from tests.fakes.scripted_llm import ScriptedLLM  # noqa: E402

QUESTION_FILES = ("questions_gen_{}.csv", "instruct_basic_{}.csv", "instruct_advanced_{}.csv")
GENERATORS = {"own": "tests.damage", "independent": "tests.heldout.damage_independent",
              "fresh": "tests.heldout.damage_fresh", "fresh2": "tests.heldout.damage_fresh2",
              "fresh3": "tests.heldout.damage_fresh3",
              "fresh4": "tests.heldout.damage_fresh4", "fresh5": "tests.heldout.damage_fresh5",
              "fresh6": "tests.heldout.damage_fresh6", "fresh7": "tests.heldout.damage_fresh7",
              "fresh8": "tests.heldout.damage_fresh8", "fresh9": "tests.heldout.damage_fresh9",
              "fresh10": "tests.heldout.damage_fresh10", "fresh11": "tests.heldout.damage_fresh11", "fresh12": "tests.heldout.damage_fresh12", "fresh13": "tests.heldout.damage_fresh13", "fresh14": "tests.heldout.damage_fresh14", "fresh15": "tests.heldout.damage_fresh15",
              "fresh16": "tests.heldout.damage_fresh16",
              "fresh17": "tests.heldout.damage_fresh17",
              "fresh18": "tests.heldout.damage_fresh18",
              "fresh19": "tests.heldout.damage_fresh19",
              "fresh20": "tests.heldout.damage_fresh20",
              "fresh21": "tests.heldout.damage_fresh21",
              "fresh22": "tests.heldout.damage_fresh22",
              "fresh23": "tests.heldout.damage_fresh23",
              "fresh24": "tests.heldout.damage_fresh24",
              "fresh25": "tests.heldout.damage_fresh25",
              "fresh26": "tests.heldout.damage_fresh26",
              "fresh27": "tests.heldout.damage_fresh27",
              "fresh28": "tests.heldout.damage_fresh28"}
SPLITS = {
    "dev": (*DEFOG_DATABASES[0::2], "chinook"),
    "test": DEFOG_DATABASES[1::2],
}
SPLITS["all"] = (*SPLITS["dev"], *SPLITS["test"])
FIXING_MODEL = [False]  # --model fixes: the scripted model answers a repair prompt with the gold SQL
AS_IS_ONLY = [False]  # --as-is-only: the damaged replies run as written, Cairn is not asked (for generator authors)
MEANING: list[Any] = [None]  # column names by meaning, as the app has it (the sentence encoder); --no-meaning: off


def _meaning(name: str, names: Any) -> list[float]:
    """The app's closeness of names in meaning (``Services.name_meaning``): the MiniLM encoder's cosine."""
    if MEANING[0] is None:
        from core.memory import MiniLMEmbedder

        MEANING[0] = MiniLMEmbedder()
    vectors = MEANING[0].embed_batch([name, *names])
    return [float(v @ vectors[0]) for v in vectors[1:]]
DEVELOPMENT = ("own", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9", "fresh10",
               "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21",
               "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28")  # failures may be printed: figures or
# misses read

# Our own Chinook questions (not from any evaluation set), to have a schema with keys and many rows.
CHINOOK_GOLD = (
    ("How many tracks does each genre have?",
     "SELECT g.name, COUNT(*) AS tracks FROM track t JOIN genre g ON t.genre_id = g.genre_id GROUP BY g.name"),
    ("Top 5 customers by total invoiced",
     "SELECT c.first_name, c.last_name, SUM(i.total) AS spent FROM customer c JOIN invoice i "
     "ON i.customer_id = c.customer_id GROUP BY c.customer_id, c.first_name, c.last_name ORDER BY spent DESC LIMIT 5"),
    ("Albums by AC/DC", "SELECT al.title FROM album al JOIN artist ar ON al.artist_id = ar.artist_id "
     "WHERE ar.name = 'AC/DC'"),
    ("Customers per country", "SELECT country, COUNT(*) FROM customer GROUP BY country ORDER BY 2 DESC"),
    ("Invoices in 2021 per billing country", "SELECT billing_country, COUNT(*) AS n, SUM(total) AS amount "
     "FROM invoice WHERE EXTRACT(YEAR FROM invoice_date) = 2021 GROUP BY billing_country"),
    ("Longest 10 tracks", "SELECT name, milliseconds FROM track ORDER BY milliseconds DESC LIMIT 10"),
    ("Employees and their managers", "SELECT e.first_name, e.last_name, m.first_name AS boss FROM employee e "
     "LEFT JOIN employee m ON e.reports_to = m.employee_id"),
    ("Tracks with no composer per media type", "SELECT mt.name, COUNT(*) FROM track t JOIN media_type mt "
     "ON t.media_type_id = mt.media_type_id WHERE t.composer IS NULL GROUP BY mt.name"),
    ("Playlists with more than 100 tracks", "SELECT p.name, COUNT(pt.track_id) AS n FROM playlist p "
     "JOIN playlist_track pt ON p.playlist_id = pt.playlist_id GROUP BY p.playlist_id, p.name HAVING COUNT(pt.track_id) > 100"),
    ("Best selling 3 tracks", "SELECT t.name, SUM(il.quantity) AS sold FROM invoice_line il JOIN track t "
     "ON il.track_id = t.track_id GROUP BY t.track_id, t.name ORDER BY sold DESC, t.name LIMIT 3"),
    ("Average track price per genre", "SELECT g.name, ROUND(AVG(t.unit_price), 2) FROM genre g JOIN track t "
     "ON t.genre_id = g.genre_id GROUP BY g.name"),
    ("Sales support agents' customers", "SELECT e.last_name, COUNT(c.customer_id) FROM employee e JOIN customer c "
     "ON c.support_rep_id = e.employee_id GROUP BY e.last_name"),
    ("Customer companies, unknown as n/a", "SELECT first_name, COALESCE(company, 'n/a') FROM customer "
     "WHERE country = 'Brazil'"),
    ("Second page of 10 artists by name", "SELECT name FROM artist ORDER BY name LIMIT 10 OFFSET 10"),
    ("Invoices of the last 30 days", "SELECT invoice_id, total FROM invoice WHERE invoice_date >= CURRENT_DATE - "
     "INTERVAL '30 days'"),
    ("Artists with their album count", "SELECT ar.name, COUNT(al.album_id) AS albums FROM artist ar "
     "LEFT JOIN album al ON al.artist_id = ar.artist_id GROUP BY ar.artist_id, ar.name ORDER BY albums DESC LIMIT 10"),
)  # fmt: skip


@dataclass(frozen=True)
class Case:
    db: str
    question: str
    golds: tuple[str, ...]  # every concrete gold query of the question


Rows = list[tuple[Any, ...]]


def matches(rows: Rows | None, wants: list[Rows]) -> bool:
    """The rows are one gold variant's rows (order ignored, duplicates counted): a repair that drops or doubles
    rows is wrong."""
    return rows is not None and any(compare_results(want, rows, ordered=False).same for want in wants)


def run_readonly(conn: Any, sql: str) -> Rows | None:
    """Rows of ``sql`` run directly (read-only, 10 s at most) with the plain driver, or None when it fails."""
    if isinstance(conn, sqlite3.Connection):
        deadline = time.monotonic() + 10
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            cur = conn.execute(sql)
            return [tuple(r) for r in cur.fetchall()] if cur.description else None
        except (sqlite3.Error, ValueError, OverflowError):
            return None
    if isinstance(conn, pymysql.connections.Connection):
        try:
            with conn.cursor() as cur:
                cur.execute("SET SESSION max_statement_time = 10")
                cur.execute("START TRANSACTION READ ONLY")
                cur.execute(sql)
                return [tuple(r) for r in cur.fetchall()] if cur.description else None
        except pymysql.Error:
            return None
        finally:
            conn.rollback()
    if isinstance(conn, duckdb.DuckDBPyConnection):
        timer = threading.Timer(10, conn.interrupt)
        timer.start()
        try:
            cur = conn.execute(sql)
            return [tuple(r) for r in cur.fetchall()] if cur.description else None
        except duckdb.Error:
            return None
        finally:
            timer.cancel()
    try:
        with conn.transaction():
            conn.execute("SET TRANSACTION READ ONLY")
            conn.execute("SET LOCAL statement_timeout = '10s'")
            cur = conn.execute(sql)
            return [tuple(r) for r in cur.fetchall()] if cur.description else None
    except psycopg.Error:
        return None


def strip_fences(reply: str) -> str:
    """What a plain tool does with a reply: the first fenced block if there is one, else the whole text."""
    if "```" not in reply:
        return reply
    inner = reply.split("```", 2)[1]
    first, _, rest = inner.partition("\n")
    return rest if first.strip().isalpha() or not first.strip() else inner


def cases(name: str, dialect: str = "postgres", transpile_to: str | None = None) -> Iterator[Case]:
    """The questions of ``name`` with their gold queries (written for ``dialect``; for MySQL transpiled to it)."""
    for case in _cases(name, dialect):
        if transpile_to != "mysql":
            yield case
            continue
        golds = []
        for gold in case.golds:
            try:
                golds.append(sqlglot.transpile(gold, read="postgres", write="mysql")[0])
            except sqlglot.errors.SqlglotError:
                continue
        yield Case(case.db, case.question, tuple(golds))


def _cases(name: str, dialect: str) -> Iterator[Case]:
    if name == "chinook":
        for question, sql in CHINOOK_GOLD if dialect == "postgres" else ():
            yield Case(name, question, (sql,))
        return
    for file in (f.format(dialect) for f in QUESTION_FILES):
        with (SHARED_DATA / "defog" / "questions" / file).open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if row["db_name"] != name:
                    continue
                golds = gold_variants(row["query"])
                yield Case(name, row["question"], tuple(dict.fromkeys(golds)))


def load(server: EmbeddedPostgres, name: str) -> str:
    if name != "chinook":
        return load_defog(server, name)
    text = (SHARED_DATA / "chinook" / "Chinook_PostgreSql.sql").read_text(encoding="utf-8")
    if server.ensure_database("chinook"):
        with psycopg.connect(server.uri("chinook")) as conn:
            conn.execute(text.split("\\c chinook;", 1)[1])  # type: ignore[arg-type]
    return server.uri("chinook")


@dataclass
class Tally:
    n: Counter[str]
    asis: Counter[str]
    cairn: Counter[str]
    wrong: Counter[str]  # Cairn showed rows, and they are not the question's: the worst outcome
    flagged: Counter[str]  # ... of which the answer offers another query (what could make it wrong, said)
    noise: Counter[str]  # right rows, and yet another query offered: a doubt raised for nothing

    @classmethod
    def new(cls) -> Tally:
        return cls(Counter(), Counter(), Counter(), Counter(), Counter(), Counter())


@dataclass(frozen=True)
class Generator:
    name: str
    kinds: tuple[str, ...]
    tree_kinds: frozenset[str]  # kinds that re-render the gold through sqlglot: skipped when that is not faithful
    damage: Any  # (gold_sql, schema, kind, seed) -> Damaged | None

    @classmethod
    def load(cls, name: str) -> Generator:
        module = importlib.import_module(GENERATORS[name])
        kinds = tuple(module.DAMAGE_KINDS)
        tree = getattr(module, "TREE_KINDS", None)
        return cls(name, kinds, frozenset(tree if tree is not None else (k for k in kinds if k != "clean")),
                   module.damage)


_MARIADB: list[MariaDB] = []


def _mariadb(scratch: Path) -> MariaDB:
    """One MariaDB server for the run (started on first use, stopped at the end)."""
    if not _MARIADB:
        server = MariaDB()
        server.start()
        _MARIADB.append(server)
    return _MARIADB[0]


def connect(server: EmbeddedPostgres, name: str, dialect: str, scratch: Path) -> tuple[str, Any]:
    """(target for ``open_database``, a plain driver connection for the gold) of database ``name``."""
    if dialect == "postgres":
        uri = load(server, name)
        return uri, psycopg.connect(uri, autocommit=False)
    if dialect == "mysql":  # a MariaDB copy on a server of the bench's own; PostgreSQL's gold queries, transpiled
        url = mysql_copy(load(server, name), name, _mariadb(scratch))
        gold = pymysql.connect(unix_socket=str(_mariadb(scratch).socket), user="root", database=name, autocommit=False)
        return url, gold
    if dialect == "duckdb":  # a DuckDB file copied from the PostgreSQL database; PostgreSQL's gold queries
        uri = load(server, name)
        source = (SHARED_DATA / "defog" / name / f"{name}.sql") if name != "chinook" else (
            SHARED_DATA / "chinook" / "Chinook_PostgreSql.sql")
        path = duckdb_copy(uri, name, scratch / "duckdb", source.read_bytes())
        gold = path.with_name(path.stem + "-gold.duckdb")  # DuckDB opens one file with one configuration
        if not gold.exists():
            shutil.copyfile(path, gold)
        return str(path), duckdb.connect(str(gold), read_only=True)
    path = sqlite_copy(server, name, scratch)
    return str(path), sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def bench_db(server: EmbeddedPostgres, name: str, dialect: str, seed: int, show: set[str],
             totals: dict[str, Tally], counts: Counter[str], false_repairs: list[str], generator: Generator,
             kinds: tuple[str, ...], scratch: Path) -> None:
    target, conn = connect(server, name, dialect, scratch)
    database = open_database(target)
    schema: Schema = database.schema()
    today = dt.date.today()
    try:
        for case in cases(name, "sqlite" if dialect == "sqlite" else "postgres", transpile_to=dialect):
            counts["questions"] += 1
            wants = [r for r in (run_readonly(conn, g) for g in case.golds) if r is not None]
            base = next((g for g in case.golds if run_readonly(conn, g) is not None), None)
            if base is None or not wants:
                counts["gold_fails"] += 1
                continue
            non_empty = any(wants)
            counts["scored"] += 1
            counts["non_empty"] += non_empty
            rendered = render(base, dialect)
            faithful = rendered is not None and matches(run_readonly(conn, rendered), wants)
            for kind in kinds:
                if kind in generator.tree_kinds and not faithful:
                    counts["unrenderable"] += kind == kinds[-1]
                    continue
                damaged = generator.damage(base, schema, kind, seed)
                if damaged is None:
                    continue
                asis_ok = matches(run_readonly(conn, strip_fences(damaged.reply)), wants)
                if AS_IS_ONLY[0]:
                    for key in (kind, "ALL"):
                        totals[f"all:{key}"].n[key] += 1
                        totals[f"all:{key}"].asis[key] += asis_ok
                    continue
                # a model that never improves, or one that writes the right SQL once it is shown the error
                again = base if FIXING_MODEL[0] else damaged.reply
                llm = ScriptedLLM(damaged.reply, again, again, again)  # the first, two repair rounds, a review
                pipeline = AskPipeline(database, llm, Settings(row_cap=1_000_000), today=lambda: today,
                                       meaning=None if MEANING[0] is False else _meaning)
                try:
                    answer = pipeline.ask(case.question)
                except Exception as exc:  # noqa: BLE001 - a crash is counted (a bug), and the run goes on
                    counts["crashed"] += 1
                    if counts["crashed"] <= 5:
                        print(f"CRASH [{kind}] {name} ({dialect}): {type(exc).__name__}: {str(exc)[:200]}")
                    answer = Answer(question=case.question, sql=None, columns=(), rows=(), error=repr(exc))
                cairn_ok = answer.ok and matches([tuple(r) for r in answer.rows], wants)
                for key in (kind, "ALL"):
                    for bucket in ("all", "non_empty") if non_empty else ("all",):
                        tally = totals[f"{bucket}:{key}"]
                        tally.n[key] += 1
                        tally.asis[key] += asis_ok
                        tally.cairn[key] += cairn_ok
                        tally.wrong[key] += answer.ok and not cairn_ok
                        tally.flagged[key] += answer.ok and not cairn_ok and bool(answer.alternatives)
                        tally.noise[key] += cairn_ok and bool(answer.alternatives)
                if asis_ok and not cairn_ok:  # the reply was right as written and Cairn changed its result
                    false_repairs.append(f"[{kind}] {name} ({dialect}): {case.question[:60]!r} -> "
                                         f"{answer.sql or answer.error}")  # fmt: skip
                if cairn_ok and answer.alternatives and (kind in show or "all" in show) and generator.name in DEVELOPMENT:
                    print(f"--- doubt [{kind}] {name}: {case.question[:90]}\n  offered: "
                          f"{[a.label for a in answer.alternatives]}")
                if not cairn_ok and (kind in show or "all" in show) and generator.name in DEVELOPMENT:
                    print(f"--- [{kind}] {name} ({dialect}): {case.question[:80]}\n  note: {damaged.note}\n  reply: "
                          f"{damaged.reply[:600]}\n  cairn: {answer.sql or ''}\n  error: {answer.error}"
                          f" | rejected: {answer.rejected_reason}\n  path={answer.path} as-is ok={asis_ok}"
                          f" offered: {[a.label for a in answer.alternatives]}")
    finally:
        database.close()
        conn.close()


def report(totals: dict[str, Tally], counts: Counter[str], false_repairs: list[str], kinds: tuple[str, ...],
           show_lines: bool = True) -> None:
    """Prints the table; the changed results one by one only for a development generator (``show_lines``)."""
    print(f"\nquestions {counts['questions']}, gold ran {counts['scored']} (failing gold skipped: "
          f"{counts['gold_fails']}), non-empty gold {counts['non_empty']} "
          f"({100 * counts['non_empty'] / max(1, counts['scored']):.0f}%), gold not faithfully re-rendered "
          f"(tree kinds skipped): {counts['unrenderable']}")
    print(f"{'kind':16} {'n':>5} {'as-is':>7} {'cairn':>7} | {'n≠∅':>5} {'as-is':>7} {'cairn':>7} | "
          f"{'wrong shown':>11} {'flagged':>7} {'no answer':>9} {'right+doubt':>11}")
    for key in (*kinds, "ALL"):
        a, b = totals["all:" + key], totals["non_empty:" + key]
        if not a.n[key]:
            continue

        def pct(t: Tally, c: Counter[str]) -> str:
            return f"{100 * c[key] / t.n[key]:6.1f}%" if t.n[key] else "      -"

        no_answer = a.n[key] - a.cairn[key] - a.wrong[key]
        if AS_IS_ONLY[0]:
            print(f"{key:16} {a.n[key]:>5} {pct(a, a.asis)}")
            continue
        print(f"{key:16} {a.n[key]:>5} {pct(a, a.asis)} {pct(a, a.cairn)} | {b.n[key]:>5} {pct(b, b.asis)} "
              f"{pct(b, b.cairn)} | {a.wrong[key]:>11} {a.flagged[key]:>7} {no_answer:>9} {a.noise[key]:>11}")
    print(f"changed results (the reply was right as written, Cairn's rows differ): {len(false_repairs)}")
    if counts["crashed"]:
        print(f"CRASHED (an exception out of AskPipeline.ask, counted as no answer): {counts['crashed']}")
    if false_repairs:
        by_kind = Counter(line[1:line.index("]")] for line in false_repairs)
        print("  by kind: " + ", ".join(f"{kind} {n}" for kind, n in by_kind.most_common()))
    for line in false_repairs[:20] if show_lines else ():
        print("  " + line)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="dev")
    parser.add_argument("--dbs", nargs="*", help="override the split with these databases")
    parser.add_argument("--dialect", choices=("postgres", "sqlite", "duckdb", "mysql", "both", "all"), default="both",
                        help="both: PostgreSQL and SQLite; all: those, DuckDB and MariaDB (a copy of each database)")
    parser.add_argument("--generator", choices=sorted(GENERATORS), default="own")
    parser.add_argument("--model", choices=("never", "fixes"), default="never",
                        help="asked to repair, the model sends the same reply (never) or the gold SQL (fixes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=1, help="run this many seeds from --seed on, pooled")
    parser.add_argument("--kinds", nargs="*", help="only these damage kinds (default: all of the generator's)")
    parser.add_argument("--as-is-only", action="store_true",
                        help="only run the damaged replies as written (n and as-is per kind): for checking a generator "
                             "without seeing Cairn's figures")
    parser.add_argument("--no-meaning", action="store_true",
                        help="no column names by meaning (the sentence encoder): the spelling rules alone")
    parser.add_argument("--show", nargs="*", default=[],
                        help="print Cairn's failures of these kinds ('all'); never for a held-out generator")
    args = parser.parse_args(argv)
    generator = Generator.load(args.generator)
    FIXING_MODEL[0] = args.model == "fixes"
    AS_IS_ONLY[0] = args.as_is_only
    if args.no_meaning:
        MEANING[0] = False
    else:  # loaded now: a checkout without the exported encoder stops here, not as "no answer" on every synonym
        from core.memory import MiniLMEmbedder

        MEANING[0] = MiniLMEmbedder()
    kinds = tuple(k for k in generator.kinds if not args.kinds or k in args.kinds)
    names = args.dbs or list(SPLITS[args.split])
    dialects = {"both": ("postgres", "sqlite"), "all": ("postgres", "sqlite", "duckdb", "mysql")}.get(args.dialect,
                                                                                          (args.dialect,))
    scratch = Path(tempfile.mkdtemp(prefix="cairn-rec-"))
    server = EmbeddedPostgres(scratch / "pg")
    server.start()
    started = time.perf_counter()
    try:
        for dialect in dialects:
            totals: dict[str, Tally] = defaultdict(Tally.new)
            counts: Counter[str] = Counter()
            false_repairs: list[str] = []
            for name in names:
                if dialect == "sqlite" and name == "chinook":
                    continue  # the Chinook questions here are written for its PostgreSQL names
                for seed in range(args.seed, args.seed + args.seeds):
                    bench_db(server, name, dialect, seed, set(args.show), totals, counts, false_repairs, generator,
                             kinds, scratch / "sqlite")  # fmt: skip
            print(f"\n== {dialect}, generator {generator.name}: {', '.join(names)}  (seed {args.seed}, "
                  f"{time.perf_counter() - started:.0f}s so far)")
            report(totals, counts, false_repairs, kinds, show_lines=generator.name in DEVELOPMENT)
    finally:
        server.stop()
        for mariadb in _MARIADB:
            mariadb.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
