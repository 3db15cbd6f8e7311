"""Counting sqlglot's parses, for tests that bound the work on a long reply (bench/ times things; tests count)."""

from __future__ import annotations

import pytest


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text sqlglot parses from now on, in order (the list fills as parsing happens)."""
    import sqlglot.parser

    parsed: list[int] = []
    real_parse = sqlglot.parser.Parser.parse

    def counting(self, raw_tokens, sql=None):  # type: ignore[no-untyped-def]
        parsed.append(len(sql or ""))
        return real_parse(self, raw_tokens, sql)

    monkeypatch.setattr(sqlglot.parser.Parser, "parse", counting)
    return parsed
