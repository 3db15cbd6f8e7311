"""Output files never go through what another account planted (issue 32, hardening 1 and 6): ``--csv``, ``--out``,
``memory export`` and appends (``eval --resume``, history) refuse a symbolic link, a named pipe, a device or a
socket with what to do, and leave whatever it points at untouched; nothing waits on a FIFO."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.private_files import private_opener
from tests.test_hardening_inputs import chinook, run  # noqa: F401 - the fixture


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "someone-elses.txt"
    victim.write_text("precious\n")
    return victim


def test_csv_through_a_planted_link_is_refused_and_its_target_untouched(chinook: Path, tmp_path: Path,  # noqa: F811
                                                                         capsys) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "rows.csv"
    link.symlink_to(victim)
    code, out, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(link), "--json")
    assert code == 2 and "symbolic link" in err and json.loads(out)["error_kind"] == "InputError"
    assert victim.read_text() == "precious\n" and link.is_symlink()


@pytest.mark.timeout(60)
def test_csv_to_a_named_pipe_is_refused_at_once(chinook: Path, tmp_path: Path, capsys) -> None:  # noqa: F811
    fifo = tmp_path / "rows.csv"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(fifo))
    assert code == 2 and "named pipe" in err  # not a hang waiting for a reader


def test_batch_out_to_a_device_is_refused(tmp_path: Path, capsys) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"question": "How many artists?"}\n')
    code, _, err = run(capsys, "ask", "--batch", str(batch), "--out", "/dev/null")
    assert code == 2 and "device" in err


def test_memory_export_never_replaces_a_link(tmp_path: Path, capsys) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "memories.json"
    link.symlink_to(victim)
    code, _, err = run(capsys, "memory", "export", str(link), "--user", "ann")
    assert code == 2 and "symbolic link" in err
    assert link.is_symlink() and victim.read_text() == "precious\n"


def _planted_folder_link(tmp_path: Path) -> tuple[Path, Path]:
    """Another account's link in a shared folder, pointing at a folder of ours (``/tmp/a2dir`` -> ``/root/x``)."""
    import pwd

    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("precious\n")
    link = tmp_path / "shared" / "a2dir"
    link.parent.mkdir()
    link.symlink_to(target, target_is_directory=True)
    nobody = pwd.getpwnam("nobody")
    os.lchown(link, nobody.pw_uid, nobody.pw_gid)  # made by another account
    return link, target


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to own a link as another account")
def test_no_output_goes_through_a_folder_link_another_account_made(chinook: Path, tmp_path: Path,  # noqa: F811
                                                                   capsys) -> None:
    link, target = _planted_folder_link(tmp_path)
    before = sorted(p.name for p in target.iterdir())
    code, _, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(link / "notes.txt"))
    assert code == 2 and "link another account made" in err
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"question": "How many artists?"}\n')
    code, _, err = run(capsys, "ask", "--batch", str(batch), "--db", str(chinook), "--out", str(link / "t2"))
    assert code == 2 and "link another account made" in err
    code, _, err = run(capsys, "memory", "export", str(link / "t3"), "--user", "ann")
    assert code == 2 and "link another account made" in err
    questions = tmp_path / "set.jsonl"
    questions.write_text(json.dumps({"question": "How many artists?", "gold_sql": "SELECT COUNT(*) FROM artist",
                                     "db": str(chinook)}) + "\n")
    code, _, err = run(capsys, "eval", "--set", str(questions), "--report", str(link / "rep"))
    assert code == 2 and "link another account made" in err
    assert sorted(p.name for p in target.iterdir()) == before and (target / "notes.txt").read_text() == "precious\n"
    os.lchown(link, 0, 0)  # the same link made by root (or by us): a folder of our own choosing, allowed
    code, _, err = run(capsys, "ask", "How many artists?", "--db", str(chinook), "--csv", str(link / "rows.csv"))
    assert code == 0 and (target / "rows.csv").is_file(), err


def test_appends_never_go_through_a_planted_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "results.jsonl"  # eval --resume appends here
    link.symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link"):
        open(link, "a", encoding="utf-8", opener=private_opener)  # noqa: SIM115
    assert victim.read_text() == "precious\n"


def test_bytes_that_are_not_utf8_search_memories_without_a_crash(capsys) -> None:
    code, _, err = run(capsys, "memory", "search", "\udcff\udcfe cheap orders", "--user", "ann")  # as argv decodes
    assert code == 0 and "failed unexpectedly" not in err


def test_a_db_path_too_long_for_the_file_system_is_bad_input(capsys) -> None:
    code, _, err = run(capsys, "ask", "How many artists?", "--db", "/tmp/" + "a" * 5000 + ".sqlite")
    assert code == 2 and "Cannot look at" in err and "5,012 characters" in err and "failed unexpectedly" not in err


def test_eval_resume_through_a_planted_results_link_says_so(chinook: Path, tmp_path: Path,  # noqa: F811
                                                            capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.fake_ollama import FakeOllama

    questions = tmp_path / "set.jsonl"
    questions.write_text(json.dumps({"question": "How many artists?", "gold_sql": "SELECT COUNT(*) FROM artist",
                                     "db": str(chinook)}) + "\n")
    report = tmp_path / "rep"
    with FakeOllama() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)  # after the module's own fixture, which points it nowhere
        server.default_chat = lambda body: "```sql\nSELECT COUNT(*) FROM artist\n```"
        code, _, err = run(capsys, "eval", "--set", str(questions), "--report", str(report))
        assert code == 0, err
        victim = _victim(tmp_path)
        (report / "results.jsonl").unlink()
        (report / "results.jsonl").symlink_to(victim)
        code, _, err = run(capsys, "eval", "--set", str(questions), "--report", str(report), "--resume")
    assert code == 2 and "symbolic link" in err and "unexpectedly" not in err, err
    assert victim.read_text() == "precious\n"
