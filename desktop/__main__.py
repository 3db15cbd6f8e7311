"""``python -m desktop`` opens the window."""

from desktop.shell.app import run

raise SystemExit(run())
