"""Feedback that teaches: thumbs up/down on answers, the verified examples a thumbs-up keeps per database, the
few closest of them shown to the model as examples, and an append-only log of every verdict."""

from core.feedback._examples import (
    EXAMPLES_FORMAT,
    MAX_PER_DATABASE,
    ExampleStore,
    VerifiedExample,
    check_example,
    same_sql,
)
from core.feedback._fewshot import MAX_SHOT, SIMILARITY_FLOOR, ExamplesProvider, FewShotSelector, ScoredExample
from core.feedback._log import (
    FEEDBACK_DIR,
    VERDICTS,
    DayCount,
    FeedbackEvent,
    FeedbackLog,
    Verdict,
    cairn_version,
    feedback_counts,
    feedback_dir,
)
from core.feedback._verdicts import FeedbackOutcome, FeedbackRecorder

__all__ = [
    "EXAMPLES_FORMAT",
    "FEEDBACK_DIR",
    "MAX_PER_DATABASE",
    "MAX_SHOT",
    "SIMILARITY_FLOOR",
    "VERDICTS",
    "DayCount",
    "ExampleStore",
    "ExamplesProvider",
    "FeedbackEvent",
    "FeedbackLog",
    "FeedbackOutcome",
    "FeedbackRecorder",
    "FewShotSelector",
    "ScoredExample",
    "Verdict",
    "VerifiedExample",
    "cairn_version",
    "check_example",
    "feedback_counts",
    "feedback_dir",
    "same_sql",
]
