"""Shared insights between agents (the second source document): after an answer, a redacted summary of what was
explored — never SQL, rows, the question's words, the user's name or memory contents — embedded and put in a
store other Cairn agents read; for a new question, the follow-ups other agents' insights suggest, shown to a
person to click (never put into the SQL prompt).

``_record`` (the record and its JSON form), ``_summarize`` (the second model call and its strict parsing),
``_literals`` and ``_redact`` (redaction enforced by code: every literal of the question, SQL, rows and hidden
values removed, entities proven against the schema), ``_store`` (the interface and the registry of stores:
``_store_jsonl`` the default, ``_store_pgvector``, ``_store_milvus``), ``_signing`` (each agent's Ed25519 key: records
and changes to them count only when signed by their author), ``_rejected`` (this agent's thumbs-downs, kept in
its own folder), ``_share`` (the two flows).
"""

from core.insights._literals import Literal, Literals, collect_literals
from core.insights._record import MAX_FOLLOWUPS, InsightDraft, InsightRecord, ScoredInsight, followup_key
from core.insights._redact import Redaction, find_leaks, redact
from core.insights._rejected import RejectedFollowups
from core.insights._share import InsightSharing, ShareOutcome, Suggestion, default_agent_id
from core.insights._signing import KEY_FILE, AgentKey, agent_folder
from core.insights._store import DEFAULT_STORE, STORES, InsightStore, open_insight_store
from core.insights._summarize import parse_draft, summarize, summary_prompt

__all__ = [
    "DEFAULT_STORE",
    "KEY_FILE",
    "MAX_FOLLOWUPS",
    "STORES",
    "AgentKey",
    "InsightDraft",
    "InsightRecord",
    "InsightSharing",
    "InsightStore",
    "Literal",
    "Literals",
    "Redaction",
    "RejectedFollowups",
    "ScoredInsight",
    "ShareOutcome",
    "Suggestion",
    "agent_folder",
    "collect_literals",
    "default_agent_id",
    "find_leaks",
    "followup_key",
    "open_insight_store",
    "parse_draft",
    "redact",
    "summarize",
    "summary_prompt",
]
