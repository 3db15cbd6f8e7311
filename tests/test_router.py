"""The learned router: shipped weights in step with their training file, and the behaviour the issue asks for
on messages of each kind (with the real MiniLM). Accuracy itself is measured by bench.classifier."""

from __future__ import annotations

import pytest

from core.memory import MiniLMEmbedder, classify, router_applies
from core.memory.routing._router import load_router, training_file_digest
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_shipped_weights_match_the_training_file() -> None:
    model = load_router()
    assert model is not None, "core/memory/routing/data/router.npz is missing: run scripts/train_router.py"
    assert model.train_digest == training_file_digest(), "routing_train.csv changed: run scripts/train_router.py"


def test_router_only_with_the_embedder_it_was_trained_on(minilm) -> None:
    assert router_applies(minilm)
    assert not router_applies(FakeEmbedder())
    assert not router_applies(None)


@pytest.mark.parametrize(("message", "group"), [
    ("hello!", "talk"),
    ("which tables do you have?", "talk"),
    ("From now on only count paid orders", "memory"),
    ("How many orders were placed last month?", "data"),
])
def test_routes_by_group(minilm, message: str, group: str) -> None:
    from core.memory import route_group

    assert route_group(classify(message, embedder=minilm).kind) == group


def test_findings_of_the_attack_route_as_meant(minilm) -> None:
    """A scoped standing rule was answered as a question; a complete question after earlier turns was taken
    for a follow-up (history alone read as "follow-up")."""
    rule = "When I ask about tracks, skip the video files (media type 'Protected MPEG-4 video file')"
    assert classify(rule, embedder=minilm).kind == "preference"
    assert classify("How many long tracks are there", embedder=minilm, has_history=True).kind == "question"


def test_edit_of_the_last_query_needs_history(minilm) -> None:
    with_history = classify("take the country filter off and run it again", embedder=minilm, has_history=True)
    assert with_history.kind == "refine"
    without = classify("take the country filter off and run it again", embedder=minilm, has_history=False)
    assert without.kind not in ("refine", "follow_up")


def _probs(**given: float) -> dict[str, float]:
    from core.memory.routing._router import LABELS

    rest = (1.0 - sum(given.values())) / (len(LABELS) - len(given))
    return {k: given.get(k, rest) for k in LABELS}


def test_unsure_router_asks_the_local_model() -> None:
    """An unsure choice goes to the model, whose one-word verdict decides (and the route is then sure)."""
    from core.memory.routing._classifier import _decide
    from core.memory.routing._classify_rules import classify_rules

    probs = _probs(preference=0.45, question=0.40)
    llm = ScriptedLLM("question")
    route = _decide("Newest orders first", probs, classify_rules("Newest orders first"), llm, True)
    assert llm.history, "the model was not asked"
    assert route.kind == "question" and not route.uncertain and route.alternative == "question"


def test_unsure_between_remembering_and_answering_answers_without_a_model() -> None:
    from core.memory.routing._classifier import _decide
    from core.memory.routing._classify_rules import classify_rules

    probs = _probs(preference=0.45, question=0.40)
    route = _decide("Newest orders first", probs, classify_rules("Newest orders first"), None, True)
    assert route.kind == "question" and route.uncertain and route.alternative == "preference"


def test_an_unsure_forget_never_deletes_on_a_guess() -> None:
    """"also leave out bank_transfer orders" read as forget 0.37 / preference 0.30 deleted the paypal exclusion."""
    from core.memory.routing._classifier import _decide
    from core.memory.routing._classify_rules import classify_rules

    text = "also leave out bank_transfer orders"
    route = _decide(text, _probs(forget=0.37, preference=0.30), classify_rules(text), None, False)
    assert route.kind == "preference" and route.uncertain and route.alternative == "forget"
    route = _decide(text, _probs(forget=0.40, question=0.35), classify_rules(text), None, False)
    assert route.kind == "question"


def test_a_withdrawal_with_a_replacement_keeps_the_new_value() -> None:
    from core.memory.routing._classifier import _decide
    from core.memory.routing._classify_rules import classify_rules

    text = "Switch the country filter from India to Japan."
    route = _decide(text, _probs(forget=0.90, preference=0.05), classify_rules(text), None, False)
    assert route.kind == "preference"
    text = "forget my India filter"
    assert _decide(text, _probs(forget=0.90, preference=0.05), classify_rules(text), None, False).kind == "forget"


def test_sure_router_never_asks_the_model() -> None:
    from core.memory.routing._classifier import _decide
    from core.memory.routing._classify_rules import classify_rules

    llm = ScriptedLLM()
    route = _decide("Newest orders first", _probs(preference=0.9), classify_rules("x"), llm, True)
    assert route.kind == "preference" and not llm.history


@pytest.mark.parametrize(("message", "kind"), [
    ("no need for the top-10 cap anymore", "forget"),
    ("we're fine seeing returned orders again", "forget"),
    ("I don't have key accounts any more, drop that", "forget"),
    ("VIP wali definition bhool jao", "forget"),
    ("customers with no orders any more", "question"),
])  # fmt: skip
def test_withdrawals_in_everyday_words(minilm, message: str, kind: str) -> None:
    assert classify(message, embedder=minilm).kind == kind


@pytest.mark.parametrize("message", ["Skip video tracks (media type 'Protected MPEG-4 video file').",
                                     "cancelled wale orders mat gino"])
def test_a_rule_with_no_words_that_take_back_is_never_a_withdrawal(minilm, message: str) -> None:
    from core.memory.routing._classifier import withdraws

    assert not withdraws(message)
    assert classify(message, embedder=minilm).kind != "forget"


# Values of each kind the router was NOT trained with (scripts/train_router.py SWAP_VALUES holds those it was).
_UNSEEN = {
    "country": ("Pakistan", "Kenya", "Peru", "Egypt", "Nigeria", "Vietnam", "Turkey", "Greece", "Austria", "Finland"),
    "city": ("Lagos", "Nairobi", "Lima", "Oslo", "Kyoto", "Lisbon", "Vienna", "Athens", "Cairo", "Hanoi"),
    "status": ("on hold", "backordered", "dispatched", "voided", "draft"),
    "segment": ("nonprofit", "education", "startup", "healthcare"),
}


def test_the_route_does_not_hang_on_which_value_a_message_names(minilm) -> None:
    """Every country, city, status and segment of the training statements swapped for values the router never
    saw: the route stays (issue 26: "only show customers from <country>" stored for one country, answered as a
    question for another)."""
    import csv
    import random
    import re

    from core.memory.routing._router import resources
    from scripts.train_router import SWAP_VALUES

    patterns = {kind: re.compile(r"\b(" + "|".join(map(re.escape, values)) + r")\b", re.IGNORECASE)
                for kind, values in SWAP_VALUES.items()}
    text = resources.files("core.memory.routing").joinpath("data", "routing_train.csv").read_text(encoding="utf-8")
    rng = random.Random(5)
    swaps, flips = 0, []
    for row in csv.DictReader(text.splitlines()):
        message, history = row["message"], row.get("has_history") == "1"
        kinds = [kind for kind, pattern in patterns.items() if pattern.search(message)]
        if not kinds:
            continue
        before = classify(message, embedder=minilm, has_history=history).kind
        for _ in range(1):
            swapped = message
            for kind in kinds:
                swapped = patterns[kind].sub(lambda _m, k=kind: rng.choice(_UNSEEN[k]), swapped)
            swaps += 1
            after = classify(swapped, embedder=minilm, has_history=history).kind
            if after != before:
                flips.append((message, before, swapped, after))
    assert swaps > 400
    assert len(flips) <= swaps // 100, f"{len(flips)} of {swaps} swaps changed the route: {flips[:10]}"
