"""Default deny for shared text (issue 31, item 1): only common English, the shipped analytics and Hindi-English
words, the schema's names, small numbers and windows of time pass; any other word is refused, whatever its
spelling, before the literal matching even looks."""

from __future__ import annotations

import base64
import codecs

import pytest

from core.insights._vocabulary import allowed_words, unknown_words

SCHEMA = ["shipments", "courier_id", "promised_date", "delivered_at", "hub"]


@pytest.mark.parametrize("text", [
    "Late deliveries per courier rose in the last quarter, mostly at the busiest hub.",
    "Average delay by hub for the top 5 couriers over the last 90 days.",
    "Which hubs miss the promised_date most often on weekends?",
    "Compared month-on-month on-time rates with the previous year's.",
    "har mahine ka late shipments ratio by hub dikhao",
    "Cancelled shipments per hub vary more than volume explains.",
    "Re-routed parcels and reattempted deliveries were counted separately.",
    "Café orders’ average basket size, per weekday.",
    "How do p95 delivery times compare across couriers this month?",
])
def test_ordinary_analytics_text_passes(text: str) -> None:
    assert unknown_words(text, SCHEMA) == []


@pytest.mark.parametrize("text, kind", [
    ("Parcels to Thessaloniki were late", "a place name"),
    ("Courier Okonkwo had the most delays", "a person's name"),
    (f"Deliveries to {base64.b64encode(b'Thessaloniki').decode()} were late", "base64"),
    (f"Deliveries to {b'Thessaloniki'.hex()} were late", "hex"),
    (f"Deliveries to {codecs.encode('Thessaloniki', 'rot13')} were late", "rot13"),
    ("Deliveries to Th3ss4l0n1k1 were late", "leetspeak"),
    ("The top courier was O K O N K W O", "spelled out"),
    ("Revenue reached forty-two thousand last month", "an amount in words"),
    ("Revenue reached 42k last month", "an amount with a suffix"),
    ("Revenue reached 3.5 lakh last month", "lakh"),
    ("The outage on 14/02/2024 hit one hub", "a date"),
    ("Most parcels went out on the 45th day of the year", "a day number"),
    ("Most returns came from थेसालोनिकी", "another script"),
    ("Accounts at protonmail.example were slower", "an e-mail domain"),
    ("Hub 7741 had the longest queues", "an identifier"),
])
def test_names_codes_and_numbers_are_refused(text: str, kind: str) -> None:
    assert unknown_words(text, SCHEMA), kind


def test_a_time_window_passes_but_a_bare_number_does_not() -> None:
    assert unknown_words("Counted returns within 30 days of delivery", SCHEMA) == []
    assert unknown_words("Counted 30 returns", SCHEMA) == ["30"]
    assert unknown_words("Counted returns within 4000 days", SCHEMA) == ["4000"]


def test_the_shipped_vocabulary_holds_common_words_and_no_proper_nouns() -> None:
    words = allowed_words()
    assert len(words) > 60_000
    assert {"revenue", "cohort", "churn", "delivered", "mahine", "kpi"} <= words
    assert not {"india", "london", "patrick", "christmas", "thousand", "forty"} & words


def test_digits_spelled_out_and_dotted_initials_are_refused() -> None:
    assert unknown_words("Call the courier on seven three one one four", SCHEMA)
    assert unknown_words("Was O.K.O.N.K.W.O. late again?", SCHEMA)
    assert unknown_words("One or two hubs, e.g. the busiest, were late", SCHEMA) == []


def _redacted(summary: str, rows: list[list[object]]) -> object:
    from core.insights import InsightDraft, collect_literals, redact

    literals = collect_literals(question="How do shipments end up, per hub?", sql="SELECT hub, outcome, COUNT(*) "
                                "FROM shipments GROUP BY hub, outcome", rows=rows, hidden_values=[],
                                schema_words=["shipments", "hub", "outcome"])
    draft = InsightDraft(True, summary, ("table:shipments",), ())
    return redact(draft, literals, {"shipments": ["hub", "outcome"]}).draft


def test_a_status_in_plain_words_is_a_word_but_never_tied_to_a_count() -> None:
    rows = [["North Yard", "returned", 48], ["North Yard", "delivered", 950]]
    assert _redacted("Most shipments are delivered; returned ones are a small share.", rows) is not None
    assert _redacted("Most shipments are delivered; 48 returned ones stand out.", rows) is None
    assert _redacted("Most shipments are delivered; three returned ones stand out.", rows) is None
    assert _redacted("The north yard returns the most shipments.", rows) is None  # a name in common words
