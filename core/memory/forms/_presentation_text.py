"""Standing presentation preferences in plain words -> sort, limit, columns, window and display forms.

"Newest orders first", "show me 20 rows by default", "always show email next to customer name", "default
period is the last 90 days", "two decimals", "monthly by default". Each finder returns None unless the words
say exactly one thing on real columns.
"""

from __future__ import annotations

import re
from typing import Any

from core.memory.forms._condition_text import duration_columns, parse_condition
from core.memory.forms._filter_text import filter_from_text
from core.memory.enforcement import filter_condition
from core.memory.forms._period_text import current_period, period_from_text
from core.memory.forms._schema_match import Lookup, column_expr, is_numeric, mentioned_tables, named_columns
from core.memory.kernel import NUMBER_WORDS, currency_code, normalize, words
from core.schema import Column, Schema, Table

__all__ = ["presentation_from_text", "states_time_range"]

_UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
          "year": "year", "years": "year", "quarter": "quarter", "quarters": "quarter"}  # fmt: skip
_NUMBER_WORDS = NUMBER_WORDS
_NUMW = r"(?P<n>\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_WINDOW_RE = re.compile(r"\b(?:last|past|previous|recent|trailing|rolling)\s+(?:" + _NUMW + r"\s+)?"
                        r"(?P<unit>days?|weeks?|months?|quarters?|years?)\b|"
                        r"\b(?P<n2>\d+)\s+(?P<unit2>days?|weeks?|months?|quarters?|years?)\s+(?:back|ago|old)\b",
                        re.IGNORECASE)  # fmt: skip
_ROWS = r"(?:rows?|results?|records?|lines?|entries|items|orders|customers|tracks|invoices)"
_LIMIT_RES = (
    re.compile(r"\b(?:limit|cap|restrict)\w*\s+(?:the\s+)?(?:results?|rows?|output|lists?)?\s*(?:to|at|of)?\s*"
               r"(?:the\s+)?(?:first\s+|top\s+)?(?P<n>\d+)\b", re.IGNORECASE),  # fmt: skip
    re.compile(r"\b(?:top|first|only|just|max(?:imum)?(?:\s+of)?|at\s+most|upto|up\s+to)\s+(?P<n>\d+)\s*"
               + _ROWS + r"?\b", re.IGNORECASE),
    re.compile(r"\b(?P<n>\d+)\s+" + _ROWS + r"\b", re.IGNORECASE),
    re.compile(r"\brows?\s+(?:limit|count|cap)\s*(?:of|is|=|:|to|should\s+be)?\s*(?:(?:down|up)\s+to\s+|at\s+)?"
               r"(?P<n>\d+)\b", re.IGNORECASE),  # fmt: skip
    re.compile(r"\b(?P<n>\d+)\s+(?:at\s+a\s+time|per\s+page|ek\s+baar\s+mein)\b", re.IGNORECASE),
)
_DESC = re.compile(r"\b(?:high(?:est)?\s+to\s+low(?:est)?|large(?:st)?\s+to\s+small(?:est)?|zyada\s+(?:wale\s+)?upar|"
                   r"newest|latest|most\s+recent|recent\s+ones|highest|largest|biggest|longest|most\s+expensive|"
                   r"descending|desc|de?s?cending|decen?ding|top|naye|nayi|z\s*(?:-|to)\s*a|big(?:gest)?\s+ones)\b",
                   re.IGNORECASE)
_ASC = re.compile(r"\b(?:low(?:est)?\s+to\s+high(?:est)?|small(?:est)?\s+to\s+(?:large|big)(?:st|gest)?|kam\s+(?:wale\s+)?upar|"
                  r"oldest|earliest|lowest|smallest|shortest|cheapest|ascending|asc|alphabetical(?:ly)?|"
                  r"a\s*(?:-|to)\s*z|purane)\b", re.IGNORECASE)
_SORT_CUE = re.compile(r"\b(?:first|sort\w*|order(?:ed)?\s+by|rank\w*|arrange\w*|top|upar)\b", re.IGNORECASE)
_BUCKETS = {"day": r"daily|per\s+day|by\s+day|day[-\s]wise|roz", "week": r"weekly|per\s+week|by\s+week|week[-\s]wise",
            "month": r"monthly|per\s+month|by\s+month|month[-\s]wise|months?\s+ke\s+hisaab",
            "quarter": r"quarterly|per\s+quarter|by\s+quarter|quarter[-\s]wise",
            "year": r"yearly|annually|annual|per\s+year|by\s+year|year[-\s]wise"}  # fmt: skip
_DECIMALS = re.compile(r"\b(?P<n>\d+|one|two|three|four|zero|no)\s+(?:decimal(?:\s+places?|\s+points?|s)?|"
                       r"dp)\b|\bdecimals?\s*(?:places?)?\s*(?:to|=|:|of)?\s*(?P<m>\d)\b|\b(?P<w>whole\s+(?:numbers|rupees|dollars|"
                       r"euros|pounds|units|amounts)|round(?:ed)?\s+(?:off\s+)?to\s+(?:the\s+)?(?:whole|nearest)\s+"
                       r"(?:rupee|dollar|euro|pound|unit|number)s?|"
                       r"no\s+decimals|without\s+decimals|integers?\s+only)\b", re.IGNORECASE)  # fmt: skip
_PAIR = re.compile(r"\b(?:next\s+to|alongside|along\s+with|together\s+with|beside|besides|with|saath|sath)\b",
                   re.IGNORECASE)
_WHENEVER = re.compile(r"\b(?:whenever|every\s+time|any\s*time|when(?:ever)?\s+(?:you\s+|u\s+|i\s+)?(?:show|list|display|see)\w*)"
                       r"\b|^\s*(?=\w+\s+(?:listings?|lists?)\s*:)", re.IGNORECASE)  # "Customer listings: …"
_ADD_VERB = re.compile(r"[:,]|\b(?:put|show|add|include|display|give|keep|place|dikhao)\b", re.IGNORECASE)


def _n(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS.get(text.lower(), 1)


def _date_columns(t: Table) -> list[Column]:
    return [c for c in t.columns if any(k in c.type.lower() for k in ("date", "time"))]


def _scope(text: str, schema: Schema) -> list[Table]:
    named = mentioned_tables(words(text), schema)
    return [t for t in schema.tables if t.qualified_name in named] or list(schema.tables)


def _one(cands: list[tuple[Table, Column]]) -> tuple[Table, Column] | None:
    unique = list(dict.fromkeys(cands))
    return unique[0] if len(unique) == 1 else None


def _named(text: str, schema: Schema, scope: list[Table], numeric: bool | None) -> tuple[Table, Column] | None:
    cands = named_columns(words(text), schema, numeric=numeric)
    best = max((s for _t, _c, s in cands), default=0)
    top = [(t, c) for t, c, s in cands if s == best]
    return _one([(t, c) for t, c in top if t in scope]) or _one(top)


MAX_WINDOW_DAYS = 100 * 366  # a default time range longer than a century is no time range
_DAYS_PER = {"day": 1, "week": 7, "month": 31, "year": 366}


def window_form(text: str, schema: Schema, lookup: Lookup | None = None) -> dict[str, Any] | None:
    """A default time range, or None. A statement that also states a filter ("current financial year and also
    exclude cancelled orders") is two rules: no one form says it, so it is kept as words."""
    found = _window_form(text, schema)
    if found is None:
        return None
    span = _period_span(text)
    rest = text[: span[0]] + " " + text[span[1] :] if span else text
    if filter_from_text(rest, schema, lookup) is not None:
        return None
    cond = parse_condition(rest, schema, lookup, infer=False)  # "… and no Brazil": a value is another rule
    if cond is not None and any(a.column is not None for a in cond.atoms):
        return None
    if _OTHER_RULE.search(rest):  # "… and also exclude cancelled orders" where no column says "cancelled"
        return None
    return found


_OTHER_RULE = re.compile(r"\b(?:exclude|excluding|except|omit|hide|skip|ignore|remove|drop|leave\s+out|without|"
                         r"hata\w*)\s+(?!(?:older|earlier|previous|past|prior|the\s+rest|"
                         r"anything\s+(?:before|older|earlier))\b)[a-z]", re.IGNORECASE)


def states_time_range(text: str, schema: Schema) -> bool:
    """True when ``text`` states a default time range (relative, fixed or calendar), whatever else it says."""
    return _window_form(text, schema) is not None


def _period_span(text: str) -> tuple[int, int] | None:
    m = _WINDOW_RE.search(text)
    if m:
        return m.start(), m.end()
    period = period_from_text(text)
    if period is not None:
        return period.span
    current = current_period(text)
    return current[2] if current else None


def _window_form(text: str, schema: Schema) -> dict[str, Any] | None:
    m = _WINDOW_RE.search(text)
    if not m or period_from_text(text) is not None:  # "last three years only: 2023 through 2025": the bounds
        return fixed_window_form(text, schema)
    amount = _n(m.group("n") or m.group("n2") or "1")
    unit = _UNITS[(m.group("unit") or m.group("unit2")).lower()]
    if unit == "quarter":
        amount, unit = amount * 3, "month"
    if not 0 < amount * _DAYS_PER[unit] <= MAX_WINDOW_DAYS:  # "last 0 days", "last 5000 years": no window
        return None
    picked = _date_column(text, (m.start(), m.end()), schema)
    if picked is None:
        return None
    return relative_window(picked[0], picked[1], amount, unit, schema.dialect)


def relative_window(table: Table, column: Column, amount: int, unit: str, dialect: str) -> dict[str, Any]:
    """The window form "the last ``amount`` ``unit``s" on ``table.column`` (unit: day, week, month or year)."""
    col = column_expr(table.qualified_name, column.name, dialect).sql(dialect=dialect)
    if dialect == "sqlite":
        days, word = (amount * 7, "days") if unit == "week" else (amount, unit + "s")
        sql = f"{col} >= DATE('now', '-{days} {word}')"
    else:
        sql = f"{col} >= CURRENT_DATE - INTERVAL '{amount} {unit}'"
    return {"kind": "window", "table": table.qualified_name, "column": column.name, "amount": amount, "unit": unit,
            "sql": sql}  # fmt: skip


def fixed_window_form(text: str, schema: Schema) -> dict[str, Any] | None:
    """"Only invoices from 2023 onwards", "calendar year 2025 only": a default time range with fixed bounds
    (``start`` the first day inside, ``end`` the first day after; either may be open)."""
    period = period_from_text(text)
    current = current_period(text) if period is None else None
    if period is None and current is None:
        return None
    picked = _date_column(text, period.span if period else (0, 0), schema)
    if picked is None:
        return None
    t, c = picked
    form: dict[str, Any] = {"kind": "window", "table": t.qualified_name, "column": c.name}
    if current is not None:  # "this year", "quarter to date": from the start of the current period
        form["current"] = current[0]
        if current[1] != 1:
            form["first_month"] = current[1]
    if period is not None and period.start is not None:
        form["start"] = period.start.isoformat()
    if period is not None and period.end is not None:
        form["end"] = period.end.isoformat()
    cond = filter_condition(form, t.name, dialect=schema.dialect)
    if cond is None:
        return None
    return {**form, "sql": cond.sql(dialect=schema.dialect)}


def _date_column(text: str, span: tuple[int, int], schema: Schema) -> tuple[Table, Column] | None:
    """The one date column a time range is about: named, else the only one of the tables named, else the only
    one in the schema."""
    scope = _scope(text, schema)
    rest = text[: span[0]] + text[span[1] :]
    picked = _named(rest, schema, scope, None)
    if picked is None or picked[1] not in _date_columns(picked[0]):
        cands = [(t, c) for t in scope for c in _date_columns(t)]
        # a default period is about events (invoices, orders), not about dates of a person's life
        picked = _one(cands) or _one([(t, c) for t, c in cands if not _LIFE_DATE.search(c.name)])
    return picked


_LIFE_DATE = re.compile(r"birth|born|dob|hire|hiring|joined|joining|anniversary|expir|valid", re.IGNORECASE)


def limit_form(text: str) -> dict[str, Any] | None:
    text = re.sub(r"\b(" + "|".join(w for w in _NUMBER_WORDS if len(w) > 2) + r")\b(?=\s+" + _ROWS + r"\b)",
                  lambda m: str(_NUMBER_WORDS[m.group(1).lower()]), text, flags=re.IGNORECASE)  # "ten rows"
    if not re.search(r"\b(?:rows?|results?|records?|lines?|entries|limit|by\s+default|default|top|at\s+most|"
                     r"max(?:imum)?|cap|at\s+a\s+time|per\s+page)\b", text, re.IGNORECASE):  # fmt: skip
        return None
    for rx in _LIMIT_RES:
        m = rx.search(text)
        # "more than 20 rows" is a row limit; "more than 20 orders" or "over 500" is a condition
        of_rows = bool(m) and re.match(r"\s*(?:rows?|results?|records?|lines?|entries)\b", text[m.end("n") :],
                                       re.IGNORECASE) is not None  # fmt: skip
        units = r"amount|total|price|days?|weeks?|months?|years?|decimals?"
        words_ = units if of_rows else units + "|over|above|under|below|than"
        guard = rf"[$€£₹]|\b(?:{words_})\b"
        if m and not re.search(guard, text[max(0, m.start() - 12) : m.end() + 12], re.IGNORECASE):
            n = int(m.group("n"))
            negative = text[max(0, m.start("n") - 1) : m.start("n")] in ("-", "−")
            year = not of_rows and 1900 <= n <= 2099  # "default to 2025 orders only": a year, not 2025 rows
            if 0 < n <= 100_000 and not negative and not year:
                return {"kind": "limit", "value": n}
    return None


def sort_form(text: str, schema: Schema) -> dict[str, Any] | None:
    desc, asc = _DESC.search(text), _ASC.search(text)
    if not (desc or asc) and not re.search(r"\b(?:sort|order)\w*\s+(?:\w+\s+){0,2}(?:by|ke\s+hisaab)\b", text,
                                           re.IGNORECASE):  # fmt: skip
        return None
    if not _SORT_CUE.search(text) and not re.search(r"\b(?:ascending|descending|alphabetical\w*|asc|desc)\b|"
                                                   r"\border\w*\s+(?:\w+\s+){0,2}by\b", text, re.IGNORECASE):
        return None
    direction = "DESC" if desc and (not asc or desc.start() < asc.start()) else "ASC"
    scope = _scope(text, schema)
    m = re.search(r"\b(?:sort\w*|order(?:ed)?|rank\w*|arrange\w*)\s+(?:\w+\s+)?by\s+(?P<col>.+)$", text,
                  re.IGNORECASE)  # fmt: skip
    if re.search(r"\b(?:then|phir|followed\s+by)\b", text, re.IGNORECASE):
        return None  # "by country first, then last name": a sort on two keys has no form (kept as words)
    if m:  # "by revenue desc, not by name": what comes after a comma or a "not" is not the sort key
        col_text = re.split(r",|;|\s+(?:not|instead\s+of|rather\s+than|nahi)\b", m.group("col"), maxsplit=1)[0]
        if col_text.strip():
            m = re.search(r"(?P<col>" + re.escape(col_text) + r")", text)
    picked = _named(m.group("col") if m else text, schema, scope, None)
    cue = (desc or asc).group().lower() if (desc or asc) else ""
    if picked is None and re.search(r"\b(?:length|duration|long(?:est)?|short(?:est)?|running\s+time|lamba\w*)\b",
                                    m.group("col") if m else text, re.IGNORECASE):  # fmt: skip
        timed = duration_columns(schema, scope)  # "sort tracks by length": the one column kept in a time unit
        picked = (timed[0][0], timed[0][1]) if len(timed) == 1 else None
    if picked is None:
        if re.search(r"new|lat|recent|old|earl|naye|nayi|purane", cue):
            picked = _one([(t, c) for t in scope for c in _date_columns(t)])
        elif re.search(r"high|larg|big|expens|low|small|cheap", cue) and len(scope) < len(schema.tables):
            # "biggest amount first for orders"; with no table named it is every list's number (below)
            picked = _one([(t, c) for t in scope for c in t.columns if is_numeric(c) and c.name not in t.primary_key
                           and not c.name.lower().endswith("id")])  # fmt: skip
        elif "alpha" in cue or "z" in cue:
            picked = _one([(t, c) for t in scope[:1] for c in t.columns if "name" in c.name.lower()])
    if picked is None:
        return _output_sort(text, m.group("col") if m else "", cue, direction, schema)
    return {"kind": "sort", "table": picked[0].qualified_name, "column": picked[1].name, "direction": direction}


_MEASURE_WORDS = re.compile(r"\b(?:sales|revenue|spend|amount|value|total|count|numbers?|price|biggest|highest|"
                            r"largest|smallest|lowest|most|least|bikri)\b", re.IGNORECASE)  # fmt: skip


def _output_sort(text: str, col_text: str, cue: str, direction: str, schema: Schema) -> dict[str, Any] | None:
    """A sort for every list, with no one table: "newest first" (by the answer's date column), "alphabetical"
    (its name column), "highest sales first" / "descending" (its number), "by last name" (that column, where
    several tables have it). Applied to the answer's own columns (``_presentation._apply_output_sort``).
    "Top 10 rows by default" is a row limit, not a sort."""
    if limit_form(text) is not None:
        return None
    named = named_columns(words(col_text), schema, numeric=None) if col_text else []
    best = max((s for _t, _c, s in named), default=0)
    names = {c.name for _t, c, s in named if s == best and s == 2}
    exact = {c.name for _t, c, s in named if s == 2 and words(c.name) == words(col_text)}
    names = exact if len(exact) == 1 else names  # "by last name": LastName, not every Name column
    if len(names) == 1:  # "by last name": LastName of whichever table the answer lists
        return {"kind": "sort", "column": names.pop(), "direction": direction}
    if re.search(r"new|lat|recent|old|earl|naye|nayi|purane", cue):
        by = "date"
    elif "alpha" in cue or re.search(r"\ba\s*(?:-|to)\s*z\b|\bz\s*(?:-|to)\s*a\b", text, re.IGNORECASE):
        by = "name"
    elif re.search(r"high|larg|big|expens|low|small|cheap", cue) or _MEASURE_WORDS.search(text) or re.search(
            r"\b(?:de?s?cending|ascending|asc|desc)\b", text, re.IGNORECASE):  # fmt: skip
        by = "measure"
    else:
        return None
    return {"kind": "sort", "by": by, "direction": direction}


def columns_form(text: str, schema: Schema) -> dict[str, Any] | None:
    w = _WHENEVER.search(text)
    scope = _scope(text, schema)
    if w:  # "whenever you show customer name, also show email"
        parts = re.split(r",|:|\bthen\b|\balso\b", text[w.end() :], maxsplit=1)
        if len(parts) != 2:  # "whenever u list customers put their segment next to the name"
            parts = _when_then_add(text[w.end() :], schema) or parts
        if len(parts) == 2:
            when_text, add_text = parts[0], parts[1] + " " + text[: w.start()]
        else:  # "show country too whenever a customer name appears"
            when_text, add_text = text[w.end() :], text[: w.start()]
    else:
        pairs = list(_PAIR.finditer(text))  # the last: "along with the email, also show the city next to the name"
        m = pairs[-1] if pairs else None
        if not m or not re.search(r"\b(?:show|display|include|add|list|dikhao)\w*\b", text, re.IGNORECASE):
            return None
        add_text, when_text = text[: m.start()], text[m.end() :]
        if m.group().lower() in ("saath", "sath"):  # "naam ke saath email": email goes with the name
            add_text, when_text = when_text, add_text
    when = _named(when_text, schema, scope, None) or _label_column(add_text, when_text, schema)
    if when is None:
        return None
    adds = [c for t, c, s in named_columns(words(add_text), schema, numeric=None) if t is when[0] and s == 2
            and c is not when[1]]  # fmt: skip
    if not adds:
        return None
    return {"kind": "columns", "table": when[0].qualified_name, "when": when[1].name,
            "add": list(dict.fromkeys(c.name for c in adds))}  # fmt: skip


def _when_then_add(rest: str, schema: Schema) -> list[str] | None:
    """Split "u list customers put their segment next to the name" at the first verb of adding that follows a
    table's name: ["u list customers", "their segment next to the name"]."""
    for verb in _ADD_VERB.finditer(rest):
        if mentioned_tables(words(rest[: verb.start()]), schema):
            return [rest[: verb.start()], rest[verb.end() :]]
    return None


def _label_column(add_text: str, when_text: str, schema: Schema) -> tuple[Table, Column] | None:
    """"When listing customers, include their email next to the name": the rows are named by a table alone;
    the column they are shown by is the one named after "next to"/"beside", else the table's first name column,
    else its one-column primary key."""
    tables = [t for t in schema.tables if t.qualified_name in mentioned_tables(words(when_text), schema)]
    if len(tables) != 1:
        return None
    table = tables[0]
    m = _PAIR.search(add_text)
    if m:
        near = named_columns(words(add_text[m.end() :]), schema, numeric=False)
        found = [(t, c) for t, c, _s in near if t is table]
        if found:  # "the name" of a table with FirstName and LastName: the first, as the table lists them
            return found[0]
    names = [c for c in table.columns if re.search(r"name|title", c.name, re.IGNORECASE)]
    if names:
        return table, names[0]
    key = table.column(table.primary_key[0]) if len(table.primary_key) == 1 else None
    return (table, key) if key is not None else None  # "whenever orders are listed": by their id


_AMOUNT = re.compile(r"[$€£₹¥]\s*\d|\d[\d,.]*\s*(?:k\s+)?(?:dollars?|usd|eur|euros?|rupees?|rs\.?|inr|pounds?|gbp|yen)\b|"
                     r"\b(?:rs\.?|inr|usd|eur|gbp)\s*\d", re.IGNORECASE)
_DISPLAY_CUE = re.compile(r"\b(?:show|display|format|express|convert|currency|amounts?\s+in|money\s+in|"
                          r"values?\s+in|figures?\s+in|numbers?\s+in|report\s+in|in\s+(?:indian\s+)?(?:rupees|dollars|"
                          r"euros|pounds))\b", re.IGNORECASE)


def display_form(text: str) -> dict[str, Any] | None:
    code = currency_code(text)
    m = _DECIMALS.search(text)
    if code and _AMOUNT.search(text) and not _DISPLAY_CUE.search(text):
        code = None  # "don't count invoices under $2": an amount in a currency, not how money is shown
    if code:
        form: dict[str, Any] = {"kind": "display", "setting": "currency", "value": code}
        if m:  # "INR with 2 decimals": both settings in one memory
            raw = m.group("n") or m.group("m") or "0"
            form["decimals"] = 0 if m.group("w") or raw.lower() in ("no", "zero") else _n(raw)
        return form
    if m:
        raw = m.group("n") or m.group("m") or "0"
        value = 0 if m.group("w") or raw.lower() in ("no", "zero") else _n(raw)
        return {"kind": "display", "setting": "decimals", "value": value}
    cue = re.search(r"\b(?:default|always|group\w*|bucket\w*|break\w*|aggregat\w*|roll\w*|trends?|charts?|"
                    r"view|numbers|figures|data|show\w*|dikhao|hisaab|wise|time\s+series|granularity)\b", text,
                    re.IGNORECASE)  # fmt: skip
    for bucket, pattern in _BUCKETS.items():
        if cue and re.search(r"\b(?:" + pattern + r")\b", text, re.IGNORECASE):
            return {"kind": "display", "setting": "time_bucket", "value": bucket}
    return None


_INSTEAD = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|not)\s+[\w-]+(?:\s+(?:ones|buckets?|"
                      r"order|trends?))?\b", re.IGNORECASE)


def presentation_from_text(text: str, schema: Schema | None, lookup: Lookup | None = None) -> dict[str, Any] | None:
    """The one presentation form ``text`` states, or None (then it may still be a filter or include).
    "Monthly trends instead of weekly": what is replaced is not what is asked for."""
    text = _INSTEAD.sub(" ", normalize(text))
    found = display_form(text)
    if found is not None or schema is None:
        return found
    found = window_form(text, schema, lookup)
    if found is not None:
        return found
    for finder in (sort_form, columns_form):
        found = finder(text, schema)
        if found is not None:
            return found
    return limit_form(text)
