"""How long ago something happened, in words: the history list and the memory bank show times the same way."""

from __future__ import annotations

import time

__all__ = ["time_ago"]


def time_ago(at: float, now: float | None = None) -> str:
    """'just now', '5 min ago', '3 h ago', 'yesterday', '4 days ago', or the date for older ones."""
    seconds = max(0.0, (time.time() if now is None else now) - at)
    if seconds < 45:
        return "just now"
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min ago"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h ago"
    days = int(seconds // 86400)
    if days == 1:
        return "yesterday"
    if days < 30:
        return f"{days} days ago"
    return time.strftime("%Y-%m-%d", time.localtime(at))
