"""Idioms of other languages and databases, read as the SQL they stand for: ``_foreign`` (another dialect's functions
and clauses the target rejects, by their definitions), ``_python`` (a host language's chained comparison, timedelta
and LIKE called as a function), ``_typed`` (what PostgreSQL's types reject: ``COUNT()``, a sum of a condition, a yes/no
column against 1, a date matched as text), ``_orm`` (an ORM's field lookups, ``price__gte = 10``)."""

from core.sql.repair.idioms._foreign import cross_joins_on_true, rewrite_foreign_idioms
from core.sql.repair.idioms._orm import orm_idioms
from core.sql.repair.idioms._python import python_idioms
from core.sql.repair.idioms._typed import typed_idioms

__all__ = ["cross_joins_on_true", "orm_idioms", "python_idioms", "rewrite_foreign_idioms", "typed_idioms"]
