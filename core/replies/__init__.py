"""Replies that are not a new SQL question: small talk, questions about Cairn / the schema / the memory bank,
edits of the previous query (a one-off change to the last SQL; nothing is stored), and SQL explained in plain
words (the model's words, or a reading of the query's structure; the SQL is never run), and its plan as the
database would run it (``EXPLAIN`` without ``ANALYZE``)."""

from core.replies._chat import chat_reply
from core.replies._describe import describe_sql
from core.replies._explain import Explanation, explain_sql
from core.replies._meta import MetaContext, meta_reply
from core.replies._plan import PlanNode, query_plan
from core.replies._refine import RefineResult, refine_by_rules

__all__ = [
    "Explanation",
    "MetaContext",
    "PlanNode",
    "RefineResult",
    "chat_reply",
    "describe_sql",
    "explain_sql",
    "meta_reply",
    "query_plan",
    "refine_by_rules",
]
