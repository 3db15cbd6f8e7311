"""A real MariaDB server for the tests: Debian's ``mariadbd`` (installed by scripts/install.sh), started in a
temporary folder on a private Unix socket with networking off, and stopped at the end. Skips when the binaries
are missing (a machine the install script has not prepared)."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["MariaDB"]


class MariaDB:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="cairn-mdb-"))
        self.socket = self.root / "s.sock"
        self._proc: subprocess.Popen[bytes] | None = None

    @staticmethod
    def available() -> bool:
        return bool(shutil.which("mariadbd") or Path("/usr/sbin/mariadbd").exists()) and bool(
            shutil.which("mariadb-install-db"))

    def start(self) -> None:
        user = getpass.getuser()
        data = self.root / "data"
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", f"--user={user}",
                        "--auth-root-authentication-method=normal", "--skip-test-db"],
                       check=True, capture_output=True, timeout=120)
        mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        self._proc = subprocess.Popen([mariadbd, "--no-defaults", f"--datadir={data}", f"--socket={self.socket}",
                                       "--skip-networking", f"--user={user}", f"--pid-file={self.root / 'pid'}",
                                       f"--log-error={self.root / 'error.log'}", "--innodb-buffer-pool-size=32M"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not self.socket.exists():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("MariaDB did not start: " + (self.root / "error.log").read_text()[-2000:])
            time.sleep(0.1)

    def admin(self):  # noqa: ANN201 - a pymysql connection
        import pymysql

        return pymysql.connect(unix_socket=str(self.socket), user="root", autocommit=True)

    def url(self, database: str, user: str = "root", password: str = "") -> str:
        secret = f":{password}" if password else ""
        return f"mysql://{user}{secret}@localhost/{database}?unix_socket={self.socket}"

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        shutil.rmtree(self.root, ignore_errors=True)
        os.environ.pop("CAIRN_TEST_MARIADB", None)
