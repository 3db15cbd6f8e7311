"""Cairn's PySide6 desktop shell over ``core`` (the window arrives with the desktop issue)."""
