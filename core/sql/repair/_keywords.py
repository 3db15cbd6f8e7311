"""Quote names that are key words of the target dialect (``AS order``, ``FROM orders AS user``, ``ORDER BY desc``).

sqlglot reads such a name as an identifier and writes it back bare, which the database then rejects as a syntax
error. Quoting it with the spelling the database would resolve (PostgreSQL folds a bare name to lower case) names
exactly the same thing, so the change is result-preserving by construction and needs no note.
"""

from __future__ import annotations

from sqlglot import exp

from core.sql.repair._names import effective, is_reserved

__all__ = ["quote_keywords"]


def quote_keywords(tree: exp.Expression, dialect: str) -> None:
    """Quote, in place, every bare identifier of ``tree`` that is a reserved word in ``dialect``."""
    for ident in tree.find_all(exp.Identifier):
        if not ident.quoted and is_reserved(ident.this, dialect):
            ident.set("this", effective(ident, dialect))
            ident.set("quoted", True)
