"""Positions shown where the question asks for values: a rank in place of the measure it ranks by, and the n-th row
in place of the top n. Each reading is a guess the model is shown first (``GUESSED``), and only for a question in
English words that asks for no position.

- ``SELECT name, RANK() OVER (ORDER BY SUM(x) DESC) AS total_rank … ORDER BY SUM(x) DESC`` where the question asks for
  the totals ("the top 5 sellers by total sales"): the measure itself, ``SUM(x) AS total`` — only a rank (RANK,
  DENSE_RANK, ROW_NUMBER; PERCENT_RANK is a fraction) over one ordered aggregate with no partition, as the item's whole value, named
  as a rank (``total_rank``, ``rank``, ``rn``; a name of its own, ``sr``, may be a measure the question defines so),
  never where the question says rank, position, place, standing or numbering; an ORDER BY of the rank's name or position
  sorts by the measure in the rank's direction.
- ``ORDER BY total DESC LIMIT 1 OFFSET 4`` where the question asks for the top 5 ("top 5", "5 highest", "first five"):
  ``LIMIT 5``, the rows up to the n-th — only where the question's number is the offset plus one and it says no
  ordinal ("the 5th", "fifth", "second"), skip or page.
- ``HAVING COUNT(*) >= 5 ORDER BY COUNT(*) DESC`` with no LIMIT where the question asks for the top 5: the top 5 by
  that aggregate, ``ORDER BY COUNT(*) DESC LIMIT 5`` — only where the threshold is the question's number, the HAVING
  test is that one aggregate at least it, and the query is ordered by the same aggregate from the largest down.
- ``WHERE rn = 0`` (also ``rn < 1``, ``rn <= 0``) over ``ROW_NUMBER() … AS rn``: a row number, RANK or DENSE_RANK is 1
  or more, so the filter keeps no row, by construction — read as counted from 0, the first row, ``rn = 1``; any
  question (no words ask for an empty answer). The filter a WHERE puts on a CTE or derived table that names the rank,
  or a QUALIFY on its own SELECT; a condition of the clause or of its AND, never an OR or a flag; never a body of
  several SELECTs (a UNION's other branch, a recursive step, may give the name 0).
"""

from __future__ import annotations

import re

from sqlglot import exp

from core.sql.repair._names import GUESSED, words_of

__all__ = ["nth_as_top", "rank_filters", "rank_named", "ranks_kept_first", "threshold_as_top", "unasked_ranks", "zero_based_ranks"]

_RANK_ASKED = re.compile(r"\b(?:rank\w*|position\w*|place[sd]?|placing|standing\w*|number\s+(?:the|them|each|every)|"
                         r"numbered|numbering|row\s+numbers?|percentile\w*|quartile\w*|quantile\w*|decile\w*|"
                         r"ordinal|\d+(?:st|nd|rd|th)|finish\w*|leaderboard|spot|tier\w*|fraction|percent\w*|pct|"
                         r"relative)\b", re.IGNORECASE)
_RANK_WORDS = frozenset({"rank", "ranking", "ranked", "position", "rn", "pos", "place", "standing", "row", "num"})
_RANKINGS = (exp.Rank, exp.DenseRank, exp.RowNumber)  # PERCENT_RANK is a fraction, a measure of its own
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}
_TOP_N = re.compile(r"\b(?<!\bat\s)(?:top|first|best|worst|bottom|highest|lowest|largest|smallest|biggest|most|least|leading)\s+"
                    r"(\d+|" + "|".join(_NUMBERS) + r")\b|\b(\d+|" + "|".join(_NUMBERS) + r")\s+(?:\w+\s+){0,4}?"
                    r"(?:highest|lowest|largest|smallest|biggest|best|worst|most|least|top|leading|greatest|"
                    r"busiest|cheapest|longest|shortest|oldest|newest|latest|earliest)\b", re.IGNORECASE)
_NTH_ASKED = re.compile(r"\b\d+(?:st|nd|rd|th)\b|\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                        r"nth|skip\w*|page|offset|after\s+the|next|runner[- ]up|penultimate|among|within|make|reach\w*|"
                        r"cut-?off|threshold|need\w*|required?|minimum|lowest|smallest|least|last|bottom|or\s+more|"
                        r"or\s+fewer|or\s+less|at\s+least|at\s+most|more\s+than|fewer\s+than|less\s+than|"
                        r"over|under|above|below)\b", re.IGNORECASE)  # an ordinal, a cut-off or a threshold


def unasked_ranks(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """A rank over one measure shown where the question asks for no position: the measure (a guess)."""
    if not question or not question.isascii() or _RANK_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    for index, item in enumerate(list(tree.expressions)):
        window = item.unalias()
        if not isinstance(window, exp.Window) or not isinstance(window.this, _RANKINGS) or window.args.get(
                "partition_by"):
            continue
        order = window.args.get("order")
        if order is None or len(order.expressions) != 1 or order.expressions[0].this.find(exp.Window):
            continue
        measure, descending = order.expressions[0].this, bool(order.expressions[0].args.get("desc"))
        if not measure.find(exp.AggFunc):
            continue  # numbered by a label or a column: a numbering, not a measure shown as its rank
        name = item.alias
        if name and not set(words_of(name)) & _RANK_WORDS:
            continue  # a name of its own (``sr``): a measure the question may define as the rank
        kept = "_".join(w for w in words_of(name) if w not in _RANK_WORDS) if name else ""
        written = item.sql(dialect=dialect)
        new = exp.alias_(measure.copy(), kept, quoted=False) if kept else measure.copy()
        if any(other is not item and other.unalias() == measure for other in tree.expressions):
            item.pop()  # the measure is shown beside it already
        else:
            item.replace(new)
        for ordered in (tree.args["order"].expressions if tree.args.get("order") else []):
            key = ordered.this
            if (isinstance(key, exp.Column) and not key.table and name and key.name.lower() == name.lower()) or (
                    isinstance(key, exp.Literal) and key.is_int and int(key.name) == index + 1):
                ordered.set("this", measure.copy())  # the rank's order, as the measure's
                ordered.set("desc", descending != bool(ordered.args.get("desc")))
        fixes.append(f"{written}: a position the question does not ask for -> {new.sql(dialect=dialect)}, the "
                     "measure it ranks by" + GUESSED)


def nth_as_top(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """``LIMIT 1 OFFSET n-1`` where the question asks for the top n: ``LIMIT n`` (a guess)."""
    if not question or not question.isascii() or _NTH_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    limit, offset = tree.args.get("limit"), tree.args.get("offset")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    skipped = offset.expression if isinstance(offset, exp.Offset) else None
    asked = {int(n) if n.isdigit() else _NUMBERS[n.lower()] for m in _TOP_N.finditer(question) for n in m.groups() if n}
    if not (isinstance(count, exp.Literal) and count.name == "1" and isinstance(skipped, exp.Literal)
            and skipped.is_int and asked == {int(skipped.name) + 1}) or tree.args.get("order") is None:
        return
    written = f"LIMIT 1 OFFSET {skipped.name}"
    tree.set("offset", None)
    tree.set("limit", exp.Limit(expression=exp.Literal.number(int(skipped.name) + 1)))
    fixes.append(f"{written}: only the row at {int(skipped.name) + 1}, where the question asks for the top "
                 f"{int(skipped.name) + 1} -> LIMIT {int(skipped.name) + 1}" + GUESSED)


def threshold_as_top(tree: exp.Expression, dialect: str, fixes: list[str], question: str) -> None:
    """``HAVING agg >= n … ORDER BY agg DESC`` with no LIMIT where the question asks for the top n: ``LIMIT n``."""
    if not question or not question.isascii() or _NTH_ASKED.search(question) or not isinstance(tree, exp.Select):
        return
    having, order = tree.args.get("having"), tree.args.get("order")
    if having is None or order is None or tree.args.get("limit") is not None or not order.expressions:
        return
    test = having.this.unnest()
    first = order.expressions[0]
    key = output_named(first.this, tree)
    asked = {int(n) if n.isdigit() else _NUMBERS[n.lower()] for m in _TOP_N.finditer(question) for n in m.groups() if n}
    if not (isinstance(test, exp.GTE) and isinstance(test.expression, exp.Literal) and test.expression.is_int
            and asked == {int(test.expression.name)} and first.args.get("desc") and test.this == key
            and test.this.find(exp.AggFunc)):
        return
    written = having.sql(dialect=dialect)
    tree.set("having", None)
    tree.set("limit", exp.Limit(expression=exp.Literal.number(int(test.expression.name))))
    fixes.append(f"{written}: the groups with at least {test.expression.name}, where the question asks for the top "
                 f"{test.expression.name} -> LIMIT {test.expression.name}" + GUESSED)


def output_named(key: exp.Expression, select: exp.Select) -> exp.Expression:
    """An ORDER BY key, an output name read as the expression it names (else the key itself)."""
    if isinstance(key, exp.Column) and not key.table:
        return next((i.unalias() for i in select.expressions if i.alias and i.alias.lower() == key.name.lower()), key)
    return key


def zero_based_ranks(tree: exp.Expression, dialect: str, fixes: list[str]) -> None:
    """``rn = 0`` over a row number, which is never 0: the first row, ``rn = 1`` (a guess)."""
    for clause in [*tree.find_all(exp.Where), *tree.find_all(exp.Qualify)]:
        select = clause.parent
        if not isinstance(select, exp.Select):
            continue
        parts = list(clause.this.flatten()) if isinstance(clause.this, exp.And) else [clause.this]
        for compare in (p.unnest() for p in parts):
            if not isinstance(compare, (exp.EQ, exp.LT, exp.LTE)) or not isinstance(compare.expression, exp.Literal):
                continue
            bound = compare.expression
            if bound.is_string or not bound.name.isdigit() or int(bound.name) != (1 if isinstance(compare, exp.LT)
                                                                                    else 0):
                continue
            rank = rank_named(compare.this, select, tree, isinstance(clause, exp.Qualify))
            if rank is None:
                continue
            written = compare.sql(dialect=dialect)
            new = exp.EQ(this=compare.this.copy(), expression=exp.Literal.number(1))
            compare.replace(new)
            fixes.append(f"{written} keeps no row: {rank.this.sql(dialect=dialect)} numbers the rows from 1 -> "
                         f"{new.sql(dialect=dialect)}, the first, read as counted from 0" + GUESSED)


def rank_named(key: exp.Expression, select: exp.Select, tree: exp.Expression, own: bool) -> exp.Window | None:
    """The ROW_NUMBER/RANK/DENSE_RANK window ``key`` is: the window itself, or the output name of one — of ``select``
    itself (``own``: a QUALIFY), else of a CTE or derived table ``select`` reads whose body is one plain SELECT (a
    UNION's other branch, or a recursive step, may give the name any value: ``0 AS rn``)."""
    if isinstance(key, exp.Window):
        return key if isinstance(key.this, _RANKINGS) else None
    if not isinstance(key, exp.Column):
        return None
    sources: list[exp.Expression] = [select] if own else []
    if not own:
        ctes = {cte.alias_or_name.lower(): cte.this for with_ in tree.find_all(exp.With) for cte in with_.expressions
                if not with_.args.get("recursive")}
        reads = [select.args.get("from_"), *(select.args.get("joins") or [])]
        for read in (r.this for r in reads if r is not None):
            if isinstance(read, exp.Table) and read.name.lower() in ctes and (
                    not key.table or key.table.lower() == read.alias_or_name.lower()):
                sources.append(ctes[read.name.lower()])
            elif isinstance(read, exp.Subquery) and (not key.table or key.table.lower() == read.alias.lower()):
                sources.append(read.this)
    for source in sources:
        if not isinstance(source, exp.Select):
            continue  # a UNION, INTERSECT or EXCEPT: its other branches name the column too
        for item in source.expressions:
            window = item.unalias()
            if item.alias and item.alias.lower() == key.name.lower() and isinstance(window, exp.Window) \
                    and isinstance(window.this, _RANKINGS):
                return window
    return None


def rank_filters(tree: exp.Expression) -> list[tuple[exp.Window, int]]:
    """The ranking windows a WHERE or QUALIFY condition keeps to a top n — ``<= n`` (n), ``< n`` (n - 1), ``= 1`` (1),
    alone or in its AND; never a flag (``CASE WHEN rn = 1``) or an OR — read through the CTE or derived table the
    filtered SELECT reads (:func:`rank_named`), with that n."""
    kept = []
    for clause in [*tree.find_all(exp.Where), *tree.find_all(exp.Qualify)]:
        if not isinstance(clause.parent, exp.Select):
            continue
        parts = list(clause.this.flatten()) if isinstance(clause.this, exp.And) else [clause.this]
        for compare in (p.unnest() for p in parts):
            bound = compare.expression if isinstance(compare, (exp.LTE, exp.LT, exp.EQ)) else None
            if not isinstance(bound, exp.Literal) or bound.is_string or not bound.name.isdigit() or (
                    isinstance(compare, exp.EQ) and bound.name != "1"):
                continue
            window = rank_named(compare.this, clause.parent, tree, isinstance(clause, exp.Qualify))
            if window is not None:
                kept.append((window, int(bound.name) - (1 if isinstance(compare, exp.LT) else 0)))
    return kept


def ranks_kept_first(tree: exp.Expression) -> list[exp.Window]:
    """The ranking windows kept to their first row (:func:`rank_filters` with n = 1)."""
    return [window for window, n in rank_filters(tree) if n == 1]
