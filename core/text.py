"""Text people type, made safe to keep and show: terminal escape sequences and invisible or control characters
(bidi overrides, NUL, lone surrogates from undecodable bytes) become spaces. Used for questions and for memories
typed by hand alike, so what is stored is what the person and the model see."""

from __future__ import annotations

import re

__all__ = ["clean_text", "counted"]

_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")


def clean_text(text: str) -> str:
    """``text`` without escape sequences and unprintable characters (newlines and tabs kept), stripped."""
    without_escapes = _TERMINAL_ESCAPE.sub(" ", text)
    return "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in without_escapes).strip()


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2,048 rows``: a count with its noun in the right number (never "row(s)")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
