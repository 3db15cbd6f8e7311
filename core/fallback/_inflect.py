"""English plural -> singular, small and general: enough to match ``people`` with a ``person`` table.

Both question words and schema names go through the same function, so an imperfect form (``series``) still
matches itself; the rules only have to send a plural and its singular to the same key.
"""

from __future__ import annotations

import logging

__all__ = ["singular"]

logger = logging.getLogger(__name__)

_IRREGULAR = {
    "people": "person", "persons": "person", "men": "man", "women": "woman", "children": "child",
    "mice": "mouse", "geese": "goose", "feet": "foot", "teeth": "tooth", "oxen": "ox",
    "criteria": "criterion", "phenomena": "phenomenon", "indices": "index", "vertices": "vertex",
    "matrices": "matrix", "appendices": "appendix", "analyses": "analysis", "diagnoses": "diagnosis",
    "theses": "thesis", "crises": "crisis", "hypotheses": "hypothesis", "synopses": "synopsis",
    "parentheses": "parenthesis", "bases": "base", "leaves": "leaf", "lives": "life", "wives": "wife",
    "knives": "knife", "halves": "half", "shelves": "shelf", "wolves": "wolf", "selves": "self",
    "thieves": "thief", "loaves": "loaf", "calves": "calf", "heroes": "hero", "potatoes": "potato",
    "tomatoes": "tomato", "echoes": "echo", "vetoes": "veto", "cacti": "cactus", "alumni": "alumnus",
    "syllabi": "syllabus", "stimuli": "stimulus", "nuclei": "nucleus", "radii": "radius", "fungi": "fungus",
    "curricula": "curriculum", "addenda": "addendum", "quizzes": "quiz",
}  # fmt: skip
# Words that look plural but are not (or are the same in both numbers).
_INVARIANT = {
    "series", "species", "news", "status", "bus", "gas", "analysis", "basis", "axis", "canvas", "atlas",
    "alias", "bias", "chassis", "corps", "means", "physics", "mathematics", "economics", "politics",
    "ethics", "aircraft", "sheep", "fish", "deer", "data", "media", "metadata", "premises",
    "headquarters", "is", "was", "has", "yes", "this", "its", "us", "plus", "minus", "campus", "bonus",
    "census", "virus", "focus", "genus", "corpus", "apparatus", "prospectus", "radius", "cactus",
}  # fmt: skip
# "-ies" plurals whose singular ends in "-ie", not "-y".
_IE_WORDS = {
    "movies", "cookies", "ties", "pies", "lies", "calories", "zombies", "rookies", "goalies", "selfies",
    "brownies", "smoothies", "hoodies", "newbies", "freebies", "genies", "sorties", "pixies", "prairies",
    "budgies", "techies", "aunties", "lingeries", "eyries", "reveries", "birdies", "bogies",
}  # fmt: skip


def singular(word: str) -> str:
    """The singular of an English noun (lower-case); words that are not plural come back unchanged."""
    w = word.lower()
    if not w.isalpha():
        return w
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in _INVARIANT or not w.endswith("s"):
        return w
    if len(w) == 3:
        return w if w.endswith(("ss", "us", "is")) else w[:-1]  # "ids" -> "id"
    if len(w) < 3:
        return w
    if w.endswith("ies"):
        return w[:-1] if w in _IE_WORDS or len(w) <= 4 else w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return w[:-2]  # addresses, dishes, matches, boxes, buzzes
    if w.endswith("uses"):
        # statuses, bonuses, buses -> drop "es"; houses, causes, clauses -> drop "s"
        return w[:-1] if w[-5:-4] in ("a", "e", "o") else w[:-2]
    if w.endswith(("ss", "us", "is")):
        return w  # address, status, analysis: already singular
    return w[:-1]
