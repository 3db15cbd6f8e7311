"""The command line's exit codes and the SIGTERM interruption, shared by every command (``_commands`` and
``_eval_command`` both import this small module, so neither imports the other)."""

from __future__ import annotations

__all__ = [
    "EXIT_CANCELLED",
    "EXIT_DATABASE",
    "EXIT_INPUT",
    "EXIT_NO_ANSWER",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_TIMEOUT",
    "Terminated",
]

EXIT_OK, EXIT_NO_ANSWER, EXIT_INPUT, EXIT_DATABASE, EXIT_TIMEOUT, EXIT_CANCELLED = 0, 1, 2, 3, 4, 130
EXIT_TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop as Ctrl+C does, cancelling the running query in the database, rather than die mid-query
    (the server would run it on until its timeout)."""
