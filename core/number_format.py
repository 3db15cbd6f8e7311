"""How an answer's numbers are shown, from the person's saved display preferences ("amounts in INR",
"two decimal places"). Formatting only: the SQL and the values are never changed, exports stay raw.

A currency labels the money columns (their header reads "total_amount (INR)"): a column is money when its
name says so (amount, price, revenue, sales, spend, cost, total, value...). Decimals apply to every
fractional number (floats and decimals; whole-number columns such as counts stay whole).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["NumberFormat"]

_MONEY = re.compile(
    r"(?:^|[^a-z])(?:amount|amt|price|revenue|sales|spend|spent|cost|costs|total|totals|value|income|profit|"
    r"earnings|turnover|gmv|aov|basket|paid|payment|payments|salary|fee|fees|charge|charges|refund|refunds|"
    r"balance|budget|unitprice|money|inr|usd|eur|gbp)(?:[^a-z]|$)",
    re.IGNORECASE,
)
_MAX_DECIMALS = 10


def _words(column: str) -> str:
    """"totalAmount" / "UnitPrice" / "total_amount" -> "total amount" / "unit price" / "total amount"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", column).replace("_", " ")


@dataclass(frozen=True)
class NumberFormat:
    currency: str | None = None  # an ISO code: "INR"
    decimals: int | None = None  # digits after the point for fractional numbers

    @classmethod
    def of(cls, settings: Mapping[str, Any] | None) -> NumberFormat:
        """From ``Recall.display()`` / ``Answer.display``; values that make no sense are ignored."""
        settings = settings or {}
        currency = settings.get("currency")
        if not (isinstance(currency, str) and re.fullmatch(r"[A-Za-z]{3}", currency)):
            currency = None
        currency = currency.upper() if currency else None
        decimals = settings.get("decimals")
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= _MAX_DECIMALS:
            decimals = None
        return cls(currency, decimals)

    def __bool__(self) -> bool:
        return self.currency is not None or self.decimals is not None

    def touches(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, sample: int = 200) -> bool:
        """True when this format changes something in these rows: a money column to label, or a fractional
        number to round (the first ``sample`` rows looked at). A count alone is left as it is."""
        if self.currency and any(self.is_money(c) for c in columns):
            return True
        return self.decimals is not None and any(self.number(v) is not None for row in rows[:sample] for v in row)

    def is_money(self, column: str) -> bool:
        return bool(_MONEY.search(_words(column)))

    def header(self, column: str) -> str:
        """The column's header: with the currency when it holds money."""
        if self.currency and self.is_money(column) and self.currency.lower() not in column.lower():
            return f"{column} ({self.currency})"
        return column

    def number(self, value: Any, *, separators: bool = True) -> str | None:
        """A fractional number with the saved decimals, or None when the setting does not apply to ``value``."""
        if self.decimals is None or isinstance(value, bool):
            return None
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                return None
        elif isinstance(value, decimal.Decimal):
            if not value.is_finite():
                return None
        else:
            return None
        return format(value, f"{',' if separators else ''}.{self.decimals}f")
