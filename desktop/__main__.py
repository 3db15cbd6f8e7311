"""``python -m desktop`` opens the window."""

from desktop.app import run

raise SystemExit(run())
