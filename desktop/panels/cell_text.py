"""What a result cell says, without Qt: the kind of a column from a sample of its values, the text a grid cell
shows (separators for quantities, ISO dates, one line, cut when long), the plain text exports write, and the
formats a person can choose for one column (``ColumnFormat``: decimals, percent, money, date)."""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.answer import json_value

__all__ = [
    "KIND_LABELS",
    "SHOWN_DECIMALS",
    "ColumnFormat",
    "column_formats",
    "column_kind",
    "display_text",
    "export_text",
    "is_identifier_column",
    "is_numeric_kind",
]

_SAMPLE = 500  # values per column looked at to name its kind
_MAX_CELL_CHARS = 300  # longer text is cut in the cell; the tooltip has more

_NUMERIC_KINDS = frozenset({"integer", "float", "decimal", "number"})
KIND_LABELS = {
    "integer": "integer",
    "float": "floating point",
    "decimal": "decimal",
    "number": "number (mixed)",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp",
    "time": "time",
    "interval": "interval",
    "text": "text",
    "bytes": "binary",
    "uuid": "uuid",
    "json": "json/array",
    "mixed": "mixed",
    "null": "unknown (all NULL)",
}
# Last word of a column name that marks a code rather than a quantity: no thousands separators there.
_ID_WORDS = frozenset(
    {"id", "ids", "key", "pk", "fk", "year", "yr", "zip", "zipcode", "postcode", "postal", "code", "phone",
     "number", "no", "sku", "ean", "isbn", "upc"}
)
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def _value_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    if isinstance(value, _dt.datetime):
        return "timestamp"
    if isinstance(value, _dt.date):
        return "date"
    if isinstance(value, _dt.time):
        return "time"
    if isinstance(value, _dt.timedelta):
        return "interval"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, uuid.UUID):
        return "uuid"
    if isinstance(value, (list, tuple, dict)):
        return "json"
    return "mixed"


def column_kind(rows: Sequence[Sequence[Any]], column: int, sample: int = _SAMPLE) -> str:
    """The kind of one column from its first ``sample`` non-NULL values ("integer", "text", "date"...)."""
    kinds: set[str] = set()
    seen = 0
    for row in rows:
        value = row[column]
        if value is None:
            continue
        kinds.add(_value_kind(value))
        seen += 1
        if seen >= sample:
            break
    if not kinds:
        return "null"
    if len(kinds) == 1:
        return next(iter(kinds))
    if kinds <= _NUMERIC_KINDS:
        return "number"
    if kinds == {"date", "timestamp"}:
        return "timestamp"
    return "mixed"


def is_numeric_kind(kind: str) -> bool:
    return kind in _NUMERIC_KINDS


def is_identifier_column(name: str) -> bool:
    """True for names like ``id``, ``customer_id``, ``CustomerId``, ``order_year``: codes, not amounts."""
    words = [w for w in _WORD_SPLIT.split(name) if w]
    return bool(words) and words[-1].lower() in _ID_WORDS


def export_text(value: Any) -> str:
    """Plain text for CSV/TSV: NULL empty, dates ISO, numbers without separators, bytes hex."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(json_value(value), ensure_ascii=False)
    converted = json_value(value)
    return converted if isinstance(converted, str) else str(converted)


SHOWN_DECIMALS = 4  # an average's 16 decimals are noise on screen; the exports and the tooltip keep them all


def _readable(value: decimal.Decimal, separators: bool) -> str:
    """A number as a person reads it: as stored up to 4 decimals (12.50 stays 12.50); beyond, 4 decimals for
    |x| ≥ 1 and 4 significant digits below (0.0001234), trailing zeros dropped."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > SHOWN_DECIMALS:
        if value == 0:
            return "0"
        if abs(value) >= 1:
            value = value.quantize(decimal.Decimal(1).scaleb(-SHOWN_DECIMALS), rounding=decimal.ROUND_HALF_EVEN)
        else:
            value = decimal.Context(prec=SHOWN_DECIMALS).plus(value)
        value = value.normalize() if value != value.to_integral_value() else value.quantize(decimal.Decimal(1))
    return format(value, ",f" if separators else "f")


def display_text(value: Any, *, separators: bool = True) -> str:
    """What a grid cell shows: thousands separators for quantities, ISO dates, one line, cut if long."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        return "true" if value else "false"
    elif isinstance(value, int):
        return f"{value:,}" if separators else str(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return _readable(decimal.Decimal(repr(value)), separators)
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return str(value)
        return _readable(value, separators)
    elif isinstance(value, _dt.datetime):  # a month or day cut by date_trunc is a date to read (exports keep all)
        return value.date().isoformat() if value.time() == _dt.time(0) else value.isoformat(sep=" ")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        hexed = raw[: _MAX_CELL_CHARS // 2].hex()
        return f"\\x{hexed}" + ("…" if len(raw) > _MAX_CELL_CHARS // 2 else "")
    else:
        text = export_text(value)
    if len(text) > _MAX_CELL_CHARS:
        text = text[:_MAX_CELL_CHARS] + "…"
    if "\n" in text or "\r" in text or "\t" in text:
        text = text.replace("\r\n", " ⏎ ").replace("\n", " ⏎ ").replace("\r", " ").replace("\t", " ")
    return text


_CURRENCIES = ("USD", "EUR", "GBP", "INR", "JPY")  # offered when no currency is saved


def _as_decimal(value: Any) -> decimal.Decimal | None:
    """A finite number from a number, or from text that is one (SQLite keeps numbers as text in text columns)."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, decimal.Decimal):
            number = value
        elif isinstance(value, float):
            number = decimal.Decimal(repr(value))
        elif isinstance(value, int):
            number = decimal.Decimal(value)
        elif isinstance(value, str) and value.strip():
            number = decimal.Decimal(value.strip().replace(",", ""))
        else:
            return None
    except (decimal.InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _as_datetime(value: Any) -> _dt.datetime | _dt.date | None:
    """A date or timestamp from one, or from ISO text (SQLite's dates are text)."""
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value
    if isinstance(value, str) and len(value) >= 10 and value[:4].isdigit() and value[4] == "-":
        try:
            return _dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class ColumnFormat:
    """How one column's cells read, chosen by the person (the header's menu in Results); exports stay raw.
    ``style``: "number", "percent" (0.153 reads 15.3%), "money" (the currency in the header), "date" or
    "datetime". A cell the format does not fit (a NULL, a word in a number column) reads as before."""

    style: str
    decimals: int = 2
    currency: str | None = None

    @property
    def label(self) -> str:
        places = f"{self.decimals} decimal{'s' if self.decimals != 1 else ''}"
        return {"number": f"Number, {places}", "percent": f"Percent, {places}",
                "money": f"Money ({self.currency}), {places}" if self.currency else f"Money, {places}",
                "date": "Date only", "datetime": "Date and time"}.get(self.style, self.style)

    def header(self, column: str) -> str:
        if self.style == "money" and self.currency and self.currency.lower() not in column.lower():
            return f"{column} ({self.currency})"
        if self.style == "percent":
            return f"{column} (%)"
        return column

    def text(self, value: Any) -> str | None:
        if value is None:
            return None
        if self.style in ("number", "percent", "money"):
            number = _as_decimal(value)
            if number is None:
                return None
            if self.style == "percent":
                number *= 100
            rounded = number.quantize(decimal.Decimal(1).scaleb(-self.decimals), rounding=decimal.ROUND_HALF_EVEN)
            return format(rounded, f",.{self.decimals}f") + ("%" if self.style == "percent" else "")
        when = _as_datetime(value)
        if when is None:
            return None
        if self.style == "date":
            return (when.date() if isinstance(when, _dt.datetime) else when).isoformat()
        if isinstance(when, _dt.datetime):
            return when.isoformat(sep=" ", timespec="seconds" if when.second or when.microsecond else "minutes")
        return when.isoformat()


def column_formats(sample: Sequence[Any], saved_currency: str | None = None) -> list[ColumnFormat]:
    """The formats that fit a column whose values include ``sample`` (non-NULL): numbers get decimals, percent
    and money; dates and timestamps (real ones, or ISO text) get date only / date and time; others none."""
    values = [v for v in sample if v is not None][:_SAMPLE]
    if not values:
        return []
    if all(_as_decimal(v) is not None for v in values):
        currencies = (saved_currency,) if saved_currency else _CURRENCIES
        return [*(ColumnFormat("number", d) for d in (0, 1, 2, 4)), ColumnFormat("percent", 0),
                ColumnFormat("percent", 1), *(ColumnFormat("money", 2, c) for c in currencies)]
    if all(_as_datetime(v) is not None for v in values):
        return [ColumnFormat("date"), ColumnFormat("datetime")]
    return []
