"""Cairn's engine: question to checked, read-only SQL to rows. No Qt in here (enforced by import-linter)."""
