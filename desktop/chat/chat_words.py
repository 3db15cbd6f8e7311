"""What the chat says around an answer: the words for each stage of the work, the icon of each kind of memory,
and a one-value answer as a sentence ("591 · delivered orders")."""

from __future__ import annotations

__all__ = ["CATEGORY_ICONS", "STAGE_TEXT", "one_value"]

CATEGORY_ICONS = {
    "preference": "fa5s.filter",
    "terminology": "fa5s.book",
    "metric": "fa5s.calculator",
    "entity": "fa5s.tag",
    "forget": "fa5s.eraser",
}
STAGE_TEXT = {
    "load_embedder": "Loading the embedding model (the first question only)…",
    "load_schema": "Reading the schema…",
    "build_prompt": "Preparing the prompt…",
    "generate": "The model is writing SQL…",
    "guard": "Checking the SQL is read-only…",
    "validate": "Checking names against the schema…",
    "no_harm": "Checking a repair keeps the rows…",
    "apply_memory": "Applying your preferences…",
    "execute": "Running the query…",
    "repair": "The query failed; asking the model to repair it…",
    "check_answer": "Checking joins and orders change only what they should…",
    "review": "Showing the model what the check measured…",
    "fallback": "Trying the rule-based fallback…",
}

def one_value(column: str, value: object) -> str:
    """``591 · delivered orders`` for a one-cell answer (a number with thousands separators)."""
    label = column.replace("_", " ").strip() or "value"
    if isinstance(value, bool) or value is None:
        shown = "—" if value is None else str(value)
    elif isinstance(value, int):
        shown = f"{value:,}"
    elif isinstance(value, float) or type(value).__name__ == "Decimal":
        number = float(value)  # type: ignore[arg-type]
        shown = f"{number:,.0f}" if number.is_integer() else f"{number:,.2f}"
    else:
        shown = str(value)[:200]
    return f"{shown} · {label}"
