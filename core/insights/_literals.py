"""The literals of one answered question — every value that must never leave the machine in a shared insight.

Collected from the SQL (its string, number and date literals, LIKE patterns without their wildcards), the
result rows (every cell), values the caller knows are hidden from the model, and the question itself (quoted
text, numbers, dates, e-mail addresses, capitalised names, and words that are also row values). Each literal is
kept in the forms it is matched in: its words folded (case, accents, punctuation and spacing aside), the same
squeezed together ("O'Brien" ~ "OBrien", "Priya  Sharma" ~ "priyasharma"), its number, its date.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["EMAIL", "Literal", "Literals", "collect_literals", "common_words", "dates_in", "days_in", "fold_words", "numbers_in", "without_dates"]

# Words never a value on their own: function words, question words, and Hindi-English ones.
STOPWORDS = frozenset("""
a an the and or not no nor of in on at to for from by with without into onto per via as is are was were be been
being am do does did done has have had having this that these those there here it its they them their we our you
your us he she his her i me my mine what which who whom whose when where why how all any each every some most more
less least many much few top bottom first last next previous than then between among over under above below up
down out off about after before during since until till while also only just very can could should would will
shall may might must show list give get find count total sum average avg number numbers per by ki ka ke ko se
mein me hai hain tha the thi kya kaun kitne kitna kitni sabse wale wala wali aur ya bhi nahi dikhao batao chahiye
pichle agle is us yeh woh sab
""".split())

_MONTHS = {name: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), start=1) for name in names}
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
         r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DATE_PATTERNS = (
    (re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(r"\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b"), ("a", "b", "y")),  # d/m/y or m/d/y: both tried
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.I), ("d", "M", "y")),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), ("M", "d", "y")),
)
_NUMBER = re.compile(
    r"(?<![\w.])(?:\d{1,2}(?:,\d{2})+,\d{3}(?!\d)"  # Indian grouping: 12,50,000
    r"|\d{1,3}(?:\.\d{3})+,\d+(?!\d)"  # European: 1.250.000,00
    r"|\d{1,3}(?:[,_\u202f]\d{3})+|\d+)(?:\.\d+)?(?:\s?[kKmMbB](?:n|illion)?\b)?")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"'([^']{2,200})'|\"([^\"]{2,200})\"|“([^”]{2,200})”|‘([^’]{2,200})’")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_TOKEN = 3  # a token of a longer value counts alone from this many characters
MAX_LITERALS = 20_000  # cells looked at, at most (an answer is capped far below this anyway)


def fold_words(text: str, *, singular: bool = True) -> tuple[str, ...]:
    """``text`` as folded words: accents off, case folded, punctuation and spacing gone, a plural or possessive
    "s" off ("Sharma's" ~ "Sharma", "cities'" ~ "citie" on both sides alike)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    plain = re.sub(r"['’]s\b", "", plain).replace("'", "").replace("’", "")
    words = _WORD.findall(plain)
    return tuple(_singular(w) for w in words) if singular else tuple(words)


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


@dataclass(frozen=True)
class Literal:
    """One value, and where it came from (``sql``, ``row``, ``hidden``, ``question``, ``user``)."""

    text: str
    source: str
    words: tuple[str, ...]
    number: float | None = None
    date: _dt.date | None = None

    @functools.cached_property
    def squeezed(self) -> str:
        """The value's letters and digits run together, as written (no plural folded off)."""
        return "".join(fold_words(self.text, singular=False))


@dataclass(frozen=True)
class Literals:
    """Every literal of an answered question, and the words that name its schema (never values themselves)."""

    items: tuple[Literal, ...]
    schema_words: frozenset[str]
    vocabulary: frozenset[str] = frozenset()  # words the question itself writes in lower case
    question_words: tuple[str, ...] = ()  # the question, folded: a summary must not copy its wording
    hidden_names: tuple[tuple[str, ...], ...] = ()  # names of hidden tables and columns, folded: never shared

    def is_vocabulary(self, literal: Literal) -> bool:
        """A lower-case value made only of common English words the person used as plain lower-case words in the
        question ('weekend' for "weekends vs weekdays", LIKE '%payment%' for "payments"): how they talk, not
        data. A user name or code ('psharma') is not a common word, so it stays a value."""
        common = common_words()
        return literal.source in ("sql", "row", "question") and literal.text == literal.text.lower() and not any(
            ch.isdigit() for ch in literal.text) and all(
            w in self.vocabulary and (w in common or w + "s" in common) for w in literal.words)

    @functools.cached_property
    def partial_tokens(self) -> dict[str, Literal]:
        """Single words of multi-word values that give the value away alone ("Sharma" of "Priya Sharma"); not the
        parts of a lower-case code ('agri_seasonal', 'truck_16t') nor the question's own lower-case words."""
        out: dict[str, Literal] = {}
        for literal in self.items:
            if literal.number is not None or literal.date is not None or len(literal.words) < 2:
                continue
            lower = literal.text == literal.text.lower()
            if lower and not re.search(r"\s", literal.text.strip()):
                continue
            for word in literal.words:
                if len(word) >= MIN_TOKEN and not word.isdigit() and word not in STOPWORDS \
                        and word not in self.schema_words and not (lower and word in self.vocabulary):
                    out.setdefault(word, literal)
        return out


@functools.lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Whole English words of the embedding model's WordPiece vocabulary (~20k): a word a tokenizer trained on
    general text keeps whole is common; names, handles and codes are split. Empty when the encoder's export is
    missing (then no value counts as a common word: stricter, never looser)."""
    from core.memory import encoder_vocabulary

    return frozenset(w for w in encoder_vocabulary() if w.isalpha() and w.islower() and len(w) > 1)


def collect_literals(*, question: str, sql: str | None, rows: Sequence[Sequence[Any]] = (),
                     hidden_values: Iterable[Any] = (), schema_words: Iterable[str] = (),
                     dialect: str | None = None, private_words: Iterable[str] = (),
                     hidden_names: Iterable[str] = ()) -> Literals:
    """Every literal of the question, the SQL, the rows, the hidden values and the private words (the user's
    name: a login such as "will.baker" also counts by its parts, "Will" and "Baker"); ``hidden_names``: the names
    of hidden tables and columns, which a shared text must not hold even when they are common words ("salary")."""
    words = frozenset(w for name in schema_words for w in (*fold_words(name.replace("_", " ")),
                                                            "".join(fold_words(name))))
    items: list[Literal] = []
    seen: set[tuple[str, str]] = set()

    def add(value: Any, source: str) -> None:
        literal = _literal(value, source)
        if literal is None or (literal.squeezed, source) in seen:
            return
        seen.add((literal.squeezed, source))
        items.append(literal)
        for email in EMAIL.findall(literal.text):  # its local part is a name or handle: its words count alone
            local = re.sub(r"[._+-]+", " ", email.split("@", 1)[0]).strip()
            if len(local) >= 3:
                add(local if " " in local else local.capitalize(), source)
            domain = email.split("@", 1)[1].split(".")[0]  # the organisation's name ("bluefield" of …@bluefield.test)
            if len(domain) >= 4:
                add(domain.capitalize(), source)

    for value in _sql_literals(sql or "", dialect):
        add(value, "sql")
    for count, value in enumerate(cell for row in rows for cell in row):
        if count >= MAX_LITERALS:
            break
        add(value, "row")
    for value in hidden_values:
        add(value, "hidden")
    for value in private_words:
        add(value, "user")
        parts = [p for p in re.split(r"[\W_\d]+", str(value)) if len(p) >= 3]
        if " " not in str(value).strip() and len(parts) >= 2:
            for part in parts:
                add(part.capitalize(), "user")
    row_words = {w for lit in items if lit.source == "row" for w in lit.words}
    for value in _question_literals(question, words | STOPWORDS, row_words):
        add(value, "question")
    vocabulary = frozenset(w for token in re.findall(r"[^\W\d_]+", question) if token == token.lower()
                           for w in fold_words(token))
    hidden = tuple(dict.fromkeys(name for name in (fold_words(n.replace("_", " ")) for n in hidden_names) if name))
    return Literals(tuple(items), words, vocabulary, fold_words(question), hidden)


def _literal(value: Any, source: str) -> Literal | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float, decimal.Decimal)):
        number = float(value)
        return Literal(str(value), source, fold_words(str(value)), number=number) if number == number else None
    if isinstance(value, _dt.datetime):
        return Literal(value.isoformat(), source, fold_words(value.date().isoformat()), date=value.date())
    if isinstance(value, _dt.date):
        return Literal(value.isoformat(), source, fold_words(value.isoformat()), date=value)
    text = str(value).strip().strip("%_").strip()
    if not text:
        return None
    words = fold_words(text)
    if not words:
        return None
    found_dates = dates_in(text)
    if found_dates and len(words) <= 4:
        return Literal(text, source, words, date=found_dates[0])
    numbers = numbers_in(text)
    if len(numbers) == 1 and re.fullmatch(r"[\s$€£₹¥+-]*[\d.,_ ]+[kKmMbB%]?\s*", text):
        return Literal(text, source, words, number=numbers[0])
    if len(words) == 1 and len(words[0]) < 2:
        return None
    return Literal(text, source, words)


def _sql_literals(sql: str, dialect: str | None) -> list[Any]:
    """String and number literals of the SQL (sqlglot), or of its quoted text when it does not parse."""
    if not sql.strip():
        return []
    try:
        import sqlglot
        from sqlglot import exp

        values: list[Any] = []
        for tree in sqlglot.parse(sql, read=dialect):
            if tree is None:
                continue
            for node in tree.find_all(exp.Literal):
                text = str(node.this)
                if isinstance(node.parent, exp.Interval) or (node.is_string and _is_time_vocabulary(text)):
                    continue  # a window ("3 months") or a date part/format ('month', 'YYYY-MM'): not data
                values.append(text if node.is_string else _as_number(text))
        return values
    except Exception:  # noqa: BLE001 - unparsable SQL: its quoted text and numbers still count
        return [m.group(1) for m in re.finditer(r"'((?:[^']|'')*)'", sql)] + numbers_in(sql)


_TIME_WORDS = frozenset("""microsecond millisecond second minute hour day week month quarter year decade century
millennium dow doy isodow isoyear epoch weekday timezone""".split())


def _is_time_vocabulary(text: str) -> bool:
    """A date part ('month'), an interval ('3 months') or a date format ('YYYY-MM', '%Y-%m'): never a value."""
    if "%" in text or re.fullmatch(r"[YMDHISQWFmsyhdi24\-/:. ,]+", text.strip()):
        return True
    words = fold_words(text)
    return bool(words) and all(w in _TIME_WORDS or w.isdigit() for w in words) and not all(
        w.isdigit() for w in words)


def _question_literals(question: str, generic: frozenset[str], row_words: set[str]) -> list[Any]:
    """Quoted text, e-mails, dates, numbers, capitalised names and row-value words of the question."""
    values: list[Any] = []
    for match in _QUOTED.finditer(question):
        values.append(next(g for g in match.groups() if g))
    values.extend(EMAIL.findall(question))
    values.extend(dates_in(question))
    values.extend(numbers_in(without_dates(EMAIL.sub(" ", question))))
    tokens = re.findall(r"[^\W\d_][\w'’.-]*", question)
    name: list[str] = []  # consecutive capitalised words: one name ("Priya Sharma"), kept whole as well
    for i, token in enumerate(tokens + [""]):
        folded = "".join(fold_words(token))
        value = bool(folded) and folded not in generic and len(folded) >= 2
        capital = value and token[0].isupper() and i > 0
        if value and (capital or folded in row_words or sum(c.isdigit() for c in token) >= 3):
            values.append(token)
        if capital:
            name.append(token)
            continue
        if len(name) > 1:
            values.append(" ".join(name))
        name = []
    return values


def numbers_in(text: str) -> list[float]:
    """The numbers written in ``text``: separators, decimals and k/m/bn suffixes understood."""
    out: list[float] = []
    for match in _NUMBER.finditer(text):
        raw = match.group(0).strip()
        scale = 1.0
        suffix = re.search(r"([kKmMbB])(?:n|illion)?$", raw)
        if suffix:
            scale = {"k": 1e3, "m": 1e6, "b": 1e9}[suffix.group(1).lower()]
            raw = raw[: suffix.start()].strip()
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d+", raw):  # European: dots group, the comma is the decimal
            raw = raw.replace(".", "").replace(",", ".")
        value = _as_number(re.sub(r"[,_\u202f ]", "", raw))
        if isinstance(value, float):
            out.append(value * scale)
    return out


_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?!\w)|"
                        rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*,?\s*\d{{3}})", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s*,?\s+(\d{{4}})\b", re.I)
_SHORT_DATE = re.compile(r"\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{2})\b")


def days_in(text: str) -> list[tuple[int, int] | tuple[int, int, int]]:
    """Parts of dates written in ``text``: (month, day) for "15 March" / "March 15th" / "15/03/24", and
    (year, month, 0) for "March 2024"."""
    found: list[tuple[int, int] | tuple[int, int, int]] = []
    for match in _DAY_MONTH.finditer(text):
        day, month, month2, day2 = match.groups()
        found.append((_MONTHS[(month or month2).lower().rstrip(".")], int(day or day2)))
    for match in _MONTH_YEAR.finditer(text):
        found.append((int(match.group(2)), _MONTHS[match.group(1).lower().rstrip(".")], 0))
    for match in _SHORT_DATE.finditer(text):
        a, b = int(match.group(1)), int(match.group(2))
        found.extend([(b, a), (a, b)])  # d/m/yy or m/d/yy
    return found


def without_dates(text: str) -> str:
    """``text`` with its written dates blanked out (their parts are not numbers of their own)."""
    for pattern, _order in _DATE_PATTERNS:
        text = pattern.sub(" ", text)
    return text


def dates_in(text: str) -> list[_dt.date]:
    """The calendar dates written in ``text`` (ISO, d/m/y and m/d/y, "15 March 2024", "March 15, 2024")."""
    found: list[_dt.date] = []
    for pattern, order in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            parts = dict(zip(order, match.groups(), strict=True))
            if "M" in parts:
                parts["m"] = str(_MONTHS[parts.pop("M").lower().rstrip(".")])
            candidates = [parts] if "a" not in parts else [
                {"y": parts["y"], "d": parts["a"], "m": parts["b"]}, {"y": parts["y"], "m": parts["a"], "d": parts["b"]}]
            for c in candidates:
                try:
                    found.append(_dt.date(int(c["y"]), int(c["m"]), int(c["d"])))
                except ValueError:
                    continue
    return found


def _as_number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text
