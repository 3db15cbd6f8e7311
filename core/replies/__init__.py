"""Replies that are not a new SQL question: small talk, questions about Cairn / the schema / the memory bank,
and edits of the previous query (a one-off change to the last SQL; nothing is stored)."""

from core.replies._chat import chat_reply
from core.replies._meta import MetaContext, meta_reply
from core.replies._refine import RefineResult, refine_by_rules

__all__ = ["MetaContext", "RefineResult", "chat_reply", "meta_reply", "refine_by_rules"]
