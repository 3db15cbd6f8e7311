"""How a model writes a clause otherwise than SQL does, read back before the statement is looked for: ``_keywords``
(clause keywords misspelt, doubled, glued; C's ``&&``/``||``; other tools' sort words) and ``_forms`` (forms of a
clause no dialect's grammar has: a direction before its key, a CASE without WHEN, an IN list without brackets,
another language's literals, other tools' marks, a statement written as a derived table)."""

from core.sql.written._forms import with_ended
from core.sql.written._keywords import c_logic, spelled_keywords, spelled_statement_start
from core.sql.written._misplaced import names_joined

__all__ = ["c_logic", "names_joined", "spelled_keywords", "spelled_statement_start", "with_ended"]
