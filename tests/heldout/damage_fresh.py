"""Held-out damage generator: the SQL a small (7B-class) model writes instead of the gold query.

Written independently of the repair code and of the earlier generators. Each kind imitates an error class
reported in published analyses of LLM-written SQL:

* DIN-SQL (Pourreza & Rafiei 2023), error classes "schema linking", "JOIN", "GROUP BY", "nested queries",
  "invalid SQL", "miscellaneous";
* MAC-SQL (Wang et al. 2023), refiner error types: syntax / execution errors, "no such column", ambiguity;
* BIRD (Li et al. 2023) and Spider (Yu et al. 2018) error reviews: wrong column / table names, dialect
  functions, missing quoting, redundant joins, grouping on non-key columns;
* "SQL hallucination" studies (e.g. Qu et al. 2024 "Before Generation, Align it!", Ning et al. 2023
  "An empirical study of LLM errors in text-to-SQL"): schema hallucination (plural / synonym / convention
  names), alias hallucination, output-format noise (markdown fences, prose, trailing explanations).

Family (A) keeps the meaning: the database rejects the reply, or a careful repair from schema + reply
alone can undo it.  Family (B) (``silent_*``) changes the rows without any error.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Callable

import sqlglot
from sqlglot import exp

__all__ = ["DAMAGE_KINDS", "TREE_KINDS", "Damaged", "damage"]


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str  # the full text the fake model answers
    note: str  # one line: what was damaged


DAMAGE_KINDS: tuple[str, ...] = (
    "clean",
    "prose_fence",
    "semicolon_explanation",
    "column_convention",
    "column_synonym",
    "table_plural",
    "keyword_table_bare",
    "backtick_quotes",
    "foreign_limit",
    "foreign_function",
    "string_concat_plus",
    "missing_group_by",
    "where_aggregate",
    "wrong_alias",
    "ambiguous_column",
    "silent_extra_join",
    "silent_group_by_name",
)

TREE_KINDS: tuple[str, ...] = (
    "column_convention",
    "column_synonym",
    "table_plural",
    "foreign_function",
    "string_concat_plus",
    "missing_group_by",
    "where_aggregate",
    "wrong_alias",
    "ambiguous_column",
    "silent_extra_join",
    "silent_group_by_name",
)

# --------------------------------------------------------------------------------------------- helpers


def _rng(gold_sql: str, kind: str, seed: int) -> random.Random:
    h = hashlib.sha256(f"{gold_sql}\x00{kind}\x00{seed}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        trees = sqlglot.parse(sql, read=dialect)
    except Exception:
        return None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        return None
    return trees[0]


def _render(tree: exp.Expression, dialect: str, rng: random.Random) -> str:
    return tree.sql(dialect=dialect, pretty=rng.random() < 0.4)


def _strip_semis(sql: str) -> str:
    return sql.strip().rstrip(";").rstrip()


def _from(sel: exp.Select) -> exp.From | None:
    return sel.args.get("from_") or sel.args.get("from")


def _schema_table(schema, node: exp.Table):
    if not isinstance(node, exp.Table) or not node.name:
        return None
    if node.args.get("db"):
        t = schema.table(f"{node.db}.{node.name}")
        if t is not None:
            return t
    return schema.table(node.name)


def _sources(sel: exp.Select) -> list[exp.Table]:
    """The exp.Table nodes named directly in this SELECT's FROM and JOINs (no subqueries)."""
    out: list[exp.Table] = []
    fr = _from(sel)
    if fr is not None and isinstance(fr.this, exp.Table):
        out.append(fr.this)
    for j in sel.args.get("joins") or []:
        if isinstance(j.this, exp.Table):
            out.append(j.this)
    return out


def _has_col(table, name: str) -> bool:
    return table is not None and table.column(name) is not None


def _owner(node: exp.Expression) -> exp.Select | None:
    return node.find_ancestor(exp.Select)


def _resolve(col: exp.Column, schema):
    """(schema Table, exp.Table source) that this column reference reads, or None."""
    if not col.name or isinstance(col.this, exp.Star):
        return None
    qual = col.table
    sel = _owner(col)
    while sel is not None:
        srcs = _sources(sel)
        if qual:
            for s in srcs:
                if s.alias_or_name.lower() == qual.lower():
                    t = _schema_table(schema, s)
                    return (t, s) if _has_col(t, col.name) else None
        else:
            hits = [(t, s) for s in srcs if _has_col(t := _schema_table(schema, s), col.name)]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                return None
            if any(p.alias_or_name.lower() == col.name.lower() for p in sel.expressions if isinstance(p, exp.Alias)):
                return None
        sel = sel.find_ancestor(exp.Select)
    return None


def _query_tables(tree: exp.Expression, schema) -> list:
    out = []
    for node in tree.find_all(exp.Table):
        t = _schema_table(schema, node)
        if t is not None and t not in out:
            out.append(t)
    return out


def _in_using(col: exp.Expression) -> bool:
    p = col.parent
    while p is not None:
        if isinstance(p, exp.Join) and col in (p.args.get("using") or []):
            return True
        p = p.parent
    return False


def _singular(word: str) -> str:
    w = word.lower()
    irregular = {"people": "person", "children": "child", "men": "man", "women": "woman"}
    if w in irregular:
        return irregular[w]
    if w.endswith("ies") and len(w) > 4:
        return word[:-3] + "y"
    if w.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return word[:-1]
    return word


def _is_text(col) -> bool:
    t = (col.type or "").lower()
    return any(k in t for k in ("char", "text", "string", "clob")) or t == ""


def _is_numeric(col) -> bool:
    t = (col.type or "").lower()
    return any(k in t for k in ("int", "real", "num", "dec", "float", "double"))


_LABELS = {"name", "title", "label", "full_name", "fullname"}


def _label_columns(table) -> list:
    out = []
    for c in table.columns:
        low = c.name.lower()
        if not _is_text(c):
            continue
        if low in _LABELS or low.endswith("_name") or low.endswith("_title"):
            out.append(c)
    return out


def _is_key(table, colname: str) -> bool:
    low = colname.lower()
    if low in {k.lower() for k in table.primary_key}:
        return True
    base = _singular(table.name).lower()
    return not table.primary_key and low in ("id", f"{base}_id", f"{table.name.lower()}_id")


def _taken(tree, schema, name: str) -> bool:
    """Whether ``name`` is a column of any table in the query (case-insensitively, as PostgreSQL folds it)."""
    return any(t.column(name) is not None for t in _query_tables(tree, schema))


def _tables_phrase(tree, schema) -> str:
    names = [t.name for t in _query_tables(tree, schema)]
    if not names:
        return "the table"
    if len(names) == 1:
        return f"the {names[0]} table"
    return "the " + ", ".join(names[:-1]) + f" and {names[-1]} tables"


def _explain(tree, schema, rng: random.Random) -> str:
    parts = [f"This query reads {_tables_phrase(tree, schema)}"]
    if tree.find(exp.Join):
        parts.append("joins them on their key columns")
    if tree.find(exp.AggFunc):
        parts.append("aggregates the values" + (" per group" if tree.find(exp.Group) else ""))
    if tree.find(exp.Where):
        parts.append("filters the rows as requested")
    if tree.find(exp.Order):
        parts.append("sorts the result")
    if len(parts) == 1:
        return parts[0] + " and returns the requested columns."
    return ", ".join(parts[:-1]) + " and " + parts[-1] + "."


def _wrap_light(sql: str, rng: random.Random) -> str:
    """How a small model usually prints a bare answer: plain, fenced, or one sentence then a fence."""
    r = rng.random()
    if r < 0.55:
        return sql
    if r < 0.85:
        return f"```sql\n{sql}\n```"
    lead = rng.choice(["Here is the SQL query:", "Sure, here's the query:", "The SQL query is:"])
    return f"{lead}\n\n```sql\n{sql}\n```"


# ------------------------------------------------------------------------------------------ text kinds


def _k_prose_fence(gold, tree, schema, rng):
    sql = _strip_semis(gold)
    expl = _explain(tree, schema, rng) if tree is not None else "This query answers the question."
    v = rng.randrange(4)
    if v == 0:
        reply = f"Here is the SQL query to answer your question:\n\n```sql\n{sql}\n```\n\n{expl}"
    elif v == 1:
        reply = f"```sql\n{sql}\n```\n\nExplanation:\n- {expl}"
    elif v == 2:
        reply = f"Sure! To get this, we can use the following query.\n```\n{sql}\n```\n{expl}"
    else:
        reply = f"SQL query:\n{sql}\n\n{expl}"
    return reply, f"markdown fence / prose around the SQL (variant {v})"


def _k_semicolon_explanation(gold, tree, schema, rng):
    sql = _strip_semis(gold)
    expl = _explain(tree, schema, rng) if tree is not None else "This query answers the question."
    v = rng.randrange(3)
    if v == 0:
        reply = f"{sql};\n\n{expl}"
    elif v == 1:
        reply = f"{sql};\nExplanation: {expl}"
    else:
        reply = f"{sql}; {expl}"
    return reply, "trailing semicolon followed by an explanation"


_RESERVED_PG = set(
    """all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create
    current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc
    distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral
    leading limit localtime localtimestamp not null offset on only or order placing primary references returning
    select session_user some symmetric table then to trailing true union unique user using variadic when where
    window with authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull
    join left like natural notnull outer overlaps right similar tablesample verbose""".split()
)
_RESERVED_SQLITE = set(
    """order group select from where table limit having union join check references default case when to and or
    not primary foreign create values index transaction add all as in is on into null unique between collate
    constraint delete distinct drop else escape except exists insert intersect isnull notnull set then update
    using""".split()
)


def _tokens(sql: str, dialect: str):
    try:
        return list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))
    except Exception:
        return None


def _splice(sql: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(edits, reverse=True):
        sql = sql[:start] + text + sql[end + 1 :]
    return sql


def _k_keyword_table_bare(gold, tree, schema, rng):
    reserved = _RESERVED_PG if schema.dialect == "postgres" else _RESERVED_SQLITE
    toks = _tokens(gold, schema.dialect)
    if not toks or tree is None:
        return None
    names = {t.name.lower() for t in _query_tables(tree, schema)}
    cands = sorted({t.text for t in toks if t.token_type == sqlglot.TokenType.IDENTIFIER
                    and t.text.lower() in reserved and t.text.lower() in names})
    if not cands:
        return None
    name = rng.choice(cands)
    edits = [(t.start, t.end, name) for t in toks if t.token_type == sqlglot.TokenType.IDENTIFIER and t.text == name]
    return _strip_semis(_splice(gold, edits)), f"reserved word {name!r} used as a bare, unquoted table name"


def _k_backtick_quotes(gold, tree, schema, rng):
    toks = _tokens(gold, schema.dialect)
    if not toks:
        return None
    names = set()
    for t in schema.tables:
        names.add(t.name.lower())
        names.update(c.name.lower() for c in t.columns)
    edits = []
    for i, t in enumerate(toks):
        if t.token_type not in (sqlglot.TokenType.VAR, sqlglot.TokenType.IDENTIFIER):
            continue
        if t.text.lower() not in names:
            continue
        if i + 1 < len(toks) and toks[i + 1].token_type == sqlglot.TokenType.L_PAREN:
            continue
        edits.append((t.start, t.end, f"`{t.text}`"))
    if not edits:
        return None
    return _strip_semis(_splice(gold, edits)), f"MySQL backticks around {len(edits)} identifiers"


def _k_foreign_limit(gold, tree, schema, rng):
    if not isinstance(tree, exp.Select) or tree.args.get("offset") is not None:
        return None
    lim = tree.args.get("limit")
    if lim is None or not isinstance(lim.expression, exp.Literal) or lim.expression.is_string:
        return None
    toks = _tokens(gold, schema.dialect)
    if not toks:
        return None
    while toks and toks[-1].token_type == sqlglot.TokenType.SEMICOLON:
        toks.pop()
    if len(toks) < 3 or toks[-2].token_type != sqlglot.TokenType.LIMIT or toks[-1].token_type != sqlglot.TokenType.NUMBER:
        return None
    n = toks[-1].text
    depth = 0
    sel_tok = None
    for i, t in enumerate(toks):
        if t.token_type == sqlglot.TokenType.L_PAREN:
            depth += 1
        elif t.token_type == sqlglot.TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and t.token_type == sqlglot.TokenType.SELECT:
            sel_tok = i
            break
    if sel_tok is None:
        return None
    insert_after = toks[sel_tok]
    if sel_tok + 1 < len(toks) and toks[sel_tok + 1].token_type == sqlglot.TokenType.DISTINCT:
        insert_after = toks[sel_tok + 1]
    head = gold[: toks[-2].start].rstrip()
    options = ["top"] + (["fetch"] if schema.dialect == "sqlite" else [])
    how = rng.choice(options)
    if how == "top":
        pos = insert_after.end + 1
        sql = head[:pos] + f" TOP {n}" + head[pos:]
        return sql, f"T-SQL 'TOP {n}' instead of LIMIT {n}"
    return f"{head}\nFETCH FIRST {n} ROWS ONLY", f"'FETCH FIRST {n} ROWS ONLY' instead of LIMIT {n} (SQLite lacks it)"


# ------------------------------------------------------------------------------------------ tree kinds


def _column_refs(tree, schema):
    """[(schema Table, column name as in the schema, exp.Column)] for every resolvable column reference."""
    out = []
    for col in tree.find_all(exp.Column):
        if _in_using(col):
            continue
        r = _resolve(col, schema)
        if r is None:
            continue
        t, _src = r
        out.append((t, t.column(col.name).name, col))
    return out


def _rename_column(tree, schema, rng, variants: Callable, what: str):
    refs = _column_refs(tree, schema)
    pairs = []
    for t, cname, _ in refs:
        if (t.qualified_name, cname) not in [(a.qualified_name, b) for a, b in pairs]:
            pairs.append((t, cname))
    rng.shuffle(pairs)
    for t, cname in pairs:
        opts = [v for v in variants(t, cname) if v and v.lower() != cname.lower() and not _taken(tree, schema, v)
                and not (schema.table(v) is not None)]
        if not opts:
            continue
        new = rng.choice(sorted(set(opts)))
        for tt, cc, col in refs:
            if tt.qualified_name == t.qualified_name and cc == cname:
                col.set("this", exp.Identifier(this=new, quoted=col.this.quoted))
        return tree, f"{what}: {t.name}.{cname} written as {new}"
    return None


def _convention_variants(table, cname: str) -> list[str]:
    out = []
    low = cname.lower()
    col = table.column(cname)
    if low.endswith("_id") and len(cname) > 3:
        base = cname[:-3]
        out += [base + "_no", base + "_num", base + "_number"]
    if low == "id":
        out.append(_singular(table.name).lower() + "_id")
    if "_" in cname.strip("_"):
        parts = [p for p in cname.split("_") if p]
        out.append(parts[0].lower() + "".join(p[:1].upper() + p[1:].lower() for p in parts[1:]))
    if re.search(r"[a-z][A-Z]", cname):
        out.append(re.sub(r"([a-z])([A-Z])", r"\1_\2", cname).lower())
    if low in ("name", "title", "type", "date", "year", "age", "status", "code", "description", "address"):
        out.append(_singular(table.name).lower() + "_" + low)
    if col is not None and not low.endswith(("_id", "id", "name")):
        if _is_text(col):
            out.append(cname + "_name")
        elif _is_numeric(col):
            out.append(cname + ("_count" if low.endswith("s") else "_value"))
    return out


def _k_column_convention(gold, tree, schema, rng):
    return _rename_column(tree, schema, rng, _convention_variants, "column in another naming convention")


_SYNONYMS = {
    "salary": ["wage", "pay"], "price": ["cost"], "cost": ["price"], "amount": ["total"], "quantity": ["qty"],
    "city": ["town"], "country": ["nation"], "email": ["email_address"], "phone": ["phone_number"],
    "gender": ["sex"], "budget": ["funding"], "birth_date": ["date_of_birth"], "dob": ["birth_date"],
    "description": ["details"], "revenue": ["sales"], "capacity": ["size"], "population": ["inhabitants"],
}


def _synonym_variants(table, cname: str) -> list[str]:
    low = cname.lower()
    labels = _label_columns(table)
    if len(labels) == 1 and labels[0].name == cname:
        if low == "name":
            return ["title", "full_name", "label"]
        if low == "title":
            return ["name", "heading"]
        if low.endswith("_name"):
            return [cname[:-5] + "_title", "title"]
        return ["name"]
    return list(_SYNONYMS.get(low, []))


def _k_column_synonym(gold, tree, schema, rng):
    return _rename_column(tree, schema, rng, _synonym_variants, "column synonym")


_OVER_PLURAL = {"people": "peoples", "children": "childrens", "men": "mens", "women": "womens", "staff": "staffs",
                "data": "datas", "media": "medias", "criteria": "criterias", "person": "peoples", "child": "childrens",
                "feedback": "feedbacks", "equipment": "equipments", "information": "informations"}


def _plural_variants(name: str) -> list[str]:
    head, sep, last = name.rpartition("_")
    low = last.lower()
    out = []
    if low in _OVER_PLURAL:
        out.append(_OVER_PLURAL[low])
    elif low.endswith("s") and not low.endswith("ss"):
        out.append(_singular(last))
    elif re.search(r"[^aeiou]y$", low):
        out.append(last[:-1] + "ies")
    elif low.endswith(("s", "x", "ch", "sh")):
        out.append(last + "es")
    else:
        out.append(last + "s")
    return [head + sep + o for o in out if o.lower() != low]


def _k_table_plural(gold, tree, schema, rng):
    nodes = [n for n in tree.find_all(exp.Table) if _schema_table(schema, n) is not None]
    names = sorted({n.name for n in nodes})
    rng.shuffle(names)
    for name in names:
        opts = [v for v in _plural_variants(name) if schema.table(v) is None]
        if not opts:
            continue
        new = rng.choice(opts)
        for n in nodes:
            if n.name != name:
                continue
            unaliased = not n.alias
            reserved = _RESERVED_PG if schema.dialect == "postgres" else _RESERVED_SQLITE
            plain = re.fullmatch(r"[a-z_][a-z0-9_]*", new) is not None and new.lower() not in reserved
            n.set("this", exp.Identifier(this=new, quoted=n.this.quoted and not plain))
            if unaliased:
                sel = _owner(n)
                scope = sel if sel is not None else tree
                for col in scope.find_all(exp.Column):
                    if col.table and col.table.lower() == name.lower():
                        q = col.args["table"]
                        col.set("table", exp.Identifier(this=new, quoted=q.quoted and not plain))
        return tree, f"table {name} written as {new}"
    return None


def _fn(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


_SQLITE_MOD = re.compile(r"^\s*([+-]?)\s*(\d+)\s+(day|month|year|hour|minute)s?\s*$", re.I)


def _k_foreign_function(gold, tree, schema, rng):
    pg = schema.dialect == "postgres"
    cands: list[tuple[exp.Expression, Callable[[], exp.Expression], str]] = []
    for node in tree.walk():
        if isinstance(node, exp.Coalesce) and len(node.expressions) == 1:
            name = rng.choice(["IFNULL", "ISNULL", "NVL"] if pg else ["ISNULL", "NVL"])
            cands.append((node, lambda n=node, f=name: _fn(f, n.this.copy(), n.expressions[0].copy()), f"{name} for COALESCE"))
        elif isinstance(node, exp.Length):
            cands.append((node, lambda n=node: _fn("LEN", n.this.copy()), "LEN for LENGTH"))
        elif pg and isinstance(node, (exp.CurrentDate, exp.CurrentTimestamp)):
            f = rng.choice(["GETDATE", "CURDATE", "SYSDATE"])
            cands.append((node, (lambda f=f: exp.column(f)) if f == "SYSDATE" else (lambda f=f: _fn(f)), f"{f} for the current date"))
        elif pg and isinstance(node, exp.Extract) and node.name.upper() in ("YEAR", "MONTH", "DAY"):
            u = node.name.upper()
            cands.append((node, lambda n=node, u=u: _fn(u, n.expression.copy()), f"{u}() for EXTRACT"))
        elif pg and isinstance(node, (exp.Sub, exp.Add)) and isinstance(node.expression, exp.Interval):
            iv = node.expression
            num = iv.this.name if iv.this is not None else ""
            unit = iv.unit.name.upper().rstrip("S") if iv.unit is not None else ""
            if re.fullmatch(r"\d+", num or "") and unit in ("DAY", "MONTH", "YEAR", "WEEK", "HOUR"):
                sign = "-" if isinstance(node, exp.Sub) else ""
                cands.append((node, lambda n=node, u=unit, s=sign, k=num: _fn(
                    "DATEADD", exp.var(u), exp.Literal.number(f"{s}{k}"), n.this.copy()), "DATEADD for interval arithmetic"))
        elif not pg and isinstance(node, exp.TimeToStr) and isinstance(node.args.get("format"), exp.Literal):
            fmt = node.args["format"].this
            u = {"%Y": "YEAR", "%m": "MONTH", "%d": "DAY"}.get(fmt)
            if u:
                arg = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
                if rng.random() < 0.5:
                    cands.append((node, lambda a=arg, u=u: _fn(u, a.copy()), f"{u}() for strftime"))
                else:
                    cands.append((node, lambda a=arg, u=u: exp.Extract(this=exp.var(u), expression=a.copy()), "EXTRACT for strftime"))
        elif not pg and isinstance(node, exp.Anonymous) and node.name.upper() in ("DATE", "DATETIME"):
            args = node.expressions
            if len(args) == 1 and isinstance(args[0], exp.Literal) and args[0].this.lower() == "now":
                f = "CURDATE" if node.name.upper() == "DATE" else rng.choice(["NOW", "GETDATE"])
                cands.append((node, lambda f=f: _fn(f), f"{f}() for {node.name}('now')"))
            elif len(args) == 2 and isinstance(args[1], exp.Literal) and (m := _SQLITE_MOD.match(args[1].this)):
                sign, k, u = m.group(1), m.group(2), m.group(3).upper()
                base = args[0]
                base_fn = (lambda: _fn("GETDATE")) if isinstance(base, exp.Literal) and base.this.lower() == "now" else (lambda b=base: b.copy())
                cands.append((node, lambda s=sign, k=k, u=u, bf=base_fn: _fn(
                    "DATEADD", exp.var(u), exp.Literal.number(f"{'-' if s == '-' else ''}{k}"), bf()), "DATEADD for a date() modifier"))
        elif not pg and isinstance(node, exp.Sub) and all(
            isinstance(x, exp.Anonymous) and x.name.lower() == "julianday" and len(x.expressions) == 1
            for x in (node.this, node.expression)):
            cands.append((node, lambda n=node: _fn("DATEDIFF", n.this.expressions[0].copy(), n.expression.expressions[0].copy()),
                          "DATEDIFF for julianday difference"))
        elif not pg and isinstance(node, exp.Like) and not isinstance(node.parent, exp.Escape):
            # sqlglot would transpile ILIKE back to LOWER(..) LIKE LOWER(..) for SQLite: print it verbatim.
            cands.append((node, lambda n=node: exp.Var(this=f"{n.this.sql(dialect='sqlite')} ILIKE "
                                                            f"{n.expression.sql(dialect='sqlite')}"), "ILIKE for LIKE"))
        elif pg and isinstance(node, exp.GroupConcat):
            sep = node.args.get("separator")
            cands.append((node, lambda n=node, s=sep: _fn("GROUP_CONCAT", n.this.copy(), *([s.copy()] if s is not None else [])),
                          "GROUP_CONCAT for STRING_AGG"))
    if not cands:
        return None
    node, make, what = rng.choice(cands)
    node.replace(make())
    return tree, f"another dialect's function: {what}"


def _k_string_concat_plus(gold, tree, schema, rng):
    tops = [n for n in tree.find_all(exp.DPipe) if not isinstance(n.parent, exp.DPipe)]
    if not tops:
        return None
    top = rng.choice(tops)
    parts = list(top.flatten())
    use_concat = schema.dialect == "sqlite" and rng.random() < 0.4
    if use_concat:
        new = _fn("CONCAT", *[p.copy() for p in parts])
        what = "CONCAT(...) instead of || (no CONCAT in older SQLite)"
    else:
        new = parts[0].copy()
        for p in parts[1:]:
            new = exp.Add(this=new, expression=p.copy())
        what = "'+' instead of || for string concatenation"
    top.replace(new)
    return tree, what


def _agg(e: exp.Expression) -> bool:
    return e.find(exp.AggFunc) is not None


def _k_missing_group_by(gold, tree, schema, rng):
    for sel in tree.find_all(exp.Select):
        grp = sel.args.get("group")
        if grp is None or sel.args.get("having") is not None or not grp.expressions:
            continue
        projs = sel.expressions
        if any(isinstance(p, exp.Star) for p in projs) or not any(_agg(p) for p in projs):
            continue
        bare = [p.unalias() for p in projs if not _agg(p) and not isinstance(p.unalias(), exp.Literal)]
        if not bare:
            continue
        aliases = {p.alias.lower(): p.unalias() for p in projs if isinstance(p, exp.Alias)}
        keys = []
        for g in grp.expressions:
            if isinstance(g, exp.Literal) and not g.is_string and g.this.isdigit() and 0 < int(g.this) <= len(projs):
                g = projs[int(g.this) - 1].unalias()
            elif isinstance(g, exp.Column) and not g.table and g.name.lower() in aliases:
                g = aliases[g.name.lower()]
            keys.append(g.sql())
        if sorted(set(keys)) != sorted({b.sql() for b in bare}):
            continue
        sel.set("group", None)
        return tree, "GROUP BY dropped although the SELECT mixes bare columns with aggregates"
    return None


def _k_where_aggregate(gold, tree, schema, rng):
    for sel in tree.find_all(exp.Select):
        hav = sel.args.get("having")
        if hav is None or not _agg(hav.this):
            continue
        cond = hav.this.copy()
        where = sel.args.get("where")
        new = cond if where is None else exp.and_(where.this.copy(), cond)
        sel.set("where", exp.Where(this=new))
        sel.set("having", None)
        return tree, "aggregate condition written in WHERE instead of HAVING"
    return None


def _k_wrong_alias(gold, tree, schema, rng):
    cands = []
    for col in tree.find_all(exp.Column):
        if not col.table or _in_using(col):
            continue
        sel = _owner(col)
        if sel is None:
            continue
        srcs = _sources(sel)
        r = _resolve(col, schema)
        if r is None or not any(r[1] is s for s in srcs):
            continue
        t, src = r
        owners = [s for s in srcs if _has_col(_schema_table(schema, s), col.name)]
        if len(owners) == 1:
            for other in srcs:
                ot = _schema_table(schema, other)
                if other is not src and ot is not None and not _has_col(ot, col.name):
                    cands.append((col, other.alias_or_name, f"{col.sql()} qualified with the other alias {other.alias_or_name}"))
            if not src.alias:
                letter = src.name[:1].lower()
                if all(s.alias_or_name.lower() != letter for s in srcs) and letter:
                    cands.append((col, letter, f"{col.sql()} qualified with an alias {letter} that is never declared"))
        if src.alias and src.alias.lower() != src.name.lower() and len(srcs) > 1 and \
                all(s.alias_or_name.lower() != src.name.lower() for s in srcs):
            cands.append((col, src.name, f"{col.sql()} qualified with the table name although it is aliased {src.alias}"))
    if not cands:
        return None
    col, qual, what = rng.choice(cands)
    col.set("table", exp.to_identifier(qual))
    return tree, "wrong alias: " + what


def _equated_pairs(join: exp.Join) -> list[tuple[exp.Column, exp.Column]]:
    on = join.args.get("on")
    if on is None:
        return []
    out = []
    for eq in on.find_all(exp.EQ):
        a, b = eq.this, eq.expression
        if isinstance(a, exp.Column) and isinstance(b, exp.Column) and a.table and b.table \
                and a.name.lower() == b.name.lower() and a.table.lower() != b.table.lower():
            out.append((a, b))
    return out


def _k_ambiguous_column(gold, tree, schema, rng):
    cands = []
    for sel in tree.find_all(exp.Select):
        srcs = _sources(sel)
        for j in sel.args.get("joins") or []:
            if (j.side or "").upper() or (j.kind or "").upper() not in ("", "INNER"):
                continue
            for a, b in _equated_pairs(j):
                name = a.name.lower()
                quals = {a.table.lower(), b.table.lower()}
                havers = {s.alias_or_name.lower() for s in srcs if _has_col(_schema_table(schema, s), name)}
                if havers != quals:
                    continue
                in_on = {id(c) for jj in sel.args.get("joins") or [] if jj.args.get("on") is not None
                         for c in jj.args["on"].find_all(exp.Column)}
                uses = [c for c in sel.find_all(exp.Column)
                        if _owner(c) is sel and c.table and c.table.lower() in quals and c.name.lower() == name
                        and id(c) not in in_on]
                if uses:
                    cands.append((uses, name))
    if not cands:
        return None
    uses, name = rng.choice(cands)
    for c in uses:
        c.set("table", None)
    return tree, f"column {name} left unqualified although both joined tables have it"


def _child_tables(schema, parent):
    """[(child Table, child column, parent column)] for tables that reference ``parent``."""
    out = []
    pkey = parent.primary_key[0] if len(parent.primary_key) == 1 else None
    for t in schema.tables:
        if t.qualified_name == parent.qualified_name:
            continue
        found = False
        for fk in t.foreign_keys:
            ref = schema.table(fk.ref_table)
            if ref is not None and ref.qualified_name == parent.qualified_name and len(fk.columns) == 1:
                out.append((t, fk.columns[0], fk.ref_columns[0]))
                found = True
                break
        if found or pkey is None:
            continue
        for cand in {f"{parent.name}_id", f"{_singular(parent.name)}_id"}:
            c = t.column(cand)
            if c is not None:
                out.append((t, c.name, pkey))
                break
    return out


def _new_alias(srcs, child) -> str:
    used = {s.alias_or_name.lower() for s in srcs}
    spider = [s.alias for s in srcs if s.alias and re.fullmatch(r"[Tt]\d+", s.alias)]
    if spider:
        n = len(srcs) + 1
        while f"t{n}" in used:
            n += 1
        return f"{spider[0][0]}{n}"
    for cand in (child.name[:1].lower(), child.name[:2].lower(), child.name.lower() + "_x"):
        if cand not in used:
            return cand
    return "x9"


def _k_silent_extra_join(gold, tree, schema, rng):
    cands = []
    for sel in tree.find_all(exp.Select):
        fr = _from(sel)
        if fr is None or not isinstance(fr.this, exp.Table):
            continue
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star)) for p in sel.expressions):
            continue
        parent = _schema_table(schema, fr.this)
        if parent is None:
            continue
        srcs = _sources(sel)
        present = {_schema_table(schema, s).qualified_name for s in srcs if _schema_table(schema, s) is not None}
        for child, ccol, pcol in _child_tables(schema, parent):
            if child.qualified_name not in present and parent.column(pcol) is not None:
                cands.append((sel, fr.this, parent, child, ccol, pcol))
    if not cands:
        return None
    idx = rng.randrange(len(cands))
    sel, ptab, parent, child, ccol, pcol = cands[idx]
    srcs = _sources(sel)
    # Qualify bare columns the new table would make ambiguous (a model adding a join writes qualified names).
    for col in list(sel.find_all(exp.Column)):
        if _owner(col) is not sel or col.table or isinstance(col.this, exp.Star) or child.column(col.name) is None:
            continue
        r = _resolve(col, schema)
        if r is None:
            if any(isinstance(p, exp.Alias) and p.alias.lower() == col.name.lower() for p in sel.expressions):
                continue
            return None
        col.set("table", exp.to_identifier(r[1].alias_or_name))
    uses_alias = any(s.alias for s in srcs)
    palias = ptab.alias_or_name
    if uses_alias:
        calias = _new_alias(srcs, child)
        cref = calias
    else:
        if child.name.lower() in {s.alias_or_name.lower() for s in srcs}:
            return None
        cref = child.name
    reserved = _RESERVED_PG if schema.dialect == "postgres" else _RESERVED_SQLITE

    def ident(name: str) -> exp.Identifier:
        q = name.lower() in reserved or not re.fullmatch(r"[a-z_][a-z0-9_]*", name)
        return exp.Identifier(this=name, quoted=q)

    tnode = exp.Table(this=ident(child.name), db=ident(child.schema) if child.qualified_name != child.name else None)
    if uses_alias:
        tnode.set("alias", exp.TableAlias(this=ident(calias)))
    join = exp.Join(this=tnode, on=exp.EQ(this=exp.Column(this=ident(ccol), table=ident(cref)),
                                          expression=exp.Column(this=ident(pcol), table=ptab.args.get("alias").this.copy()
                                                                if ptab.alias else ptab.this.copy())))
    joins = list(sel.args.get("joins") or [])
    joins.insert(rng.randrange(len(joins) + 1), join)
    sel.set("joins", joins)
    return tree, f"silent: extra INNER JOIN {child.name} ON {cref}.{ccol} = {palias}.{pcol} that contributes no column"


def _k_silent_group_by_name(gold, tree, schema, rng):
    cands = []
    for sel in tree.find_all(exp.Select):
        grp = sel.args.get("group")
        if grp is None:
            continue
        for g in grp.expressions:
            if not isinstance(g, exp.Column):
                continue
            r = _resolve(g, schema)
            if r is None:
                continue
            t, src = r
            if not _is_key(t, g.name):
                continue
            labels = [c for c in t.columns if c.name.lower() in ("name", "title") and _is_text(c)] or _label_columns(t)
            if len(labels) != 1:
                continue
            cands.append((sel, g, t, src, labels[0].name))
    if not cands:
        return None
    sel, g, t, src, label = rng.choice(cands)
    key = t.column(g.name).name

    def is_key_ref(c):
        if not isinstance(c, exp.Column) or c.name.lower() != key.lower():
            return False
        r = _resolve(c, schema)
        return r is not None and r[1] is src

    def is_label_ref(c):
        if not isinstance(c, exp.Column) or c.name.lower() != label.lower():
            return False
        r = _resolve(c, schema)
        return r is not None and r[1] is src

    projs = sel.expressions
    key_proj = [p for p in projs if is_key_ref(p.unalias())]
    label_proj = [p for p in projs if is_label_ref(p.unalias())]
    if key_proj and label_proj:
        return None
    # A use of the key in HAVING or inside a computed projection would break under the new grouping.
    hav = sel.args.get("having")
    if hav is not None and any(is_key_ref(c) for c in hav.find_all(exp.Column)):
        return None
    for p in projs:
        if any(p is k for k in key_proj):
            continue
        if any(is_key_ref(c) for c in p.find_all(exp.Column) if _owner(c) is sel):
            return None
    order = sel.args.get("order")
    if order is not None and any(is_key_ref(c) and not isinstance(c.parent, exp.Ordered)
                                 for c in order.find_all(exp.Column)):
        return None
    qual = g.table or None

    def label_col():
        return exp.column(label, table=qual) if qual else exp.column(label)

    new_group = []
    seen = set()
    for e in grp.expressions:
        if e is g or is_key_ref(e):
            e = label_col()
        s = e.sql().lower()
        if s not in seen:
            seen.add(s)
            new_group.append(e.copy() if e.parent is not None else e)
    grp.set("expressions", new_group)
    for p in key_proj:
        inner = p.unalias()
        inner.replace(label_col())
    order = sel.args.get("order")
    if order is not None:
        for c in list(order.find_all(exp.Column)):
            if is_key_ref(c):
                c.replace(label_col())
    return tree, f"silent: GROUP BY {t.name}.{label} (a non-key label) instead of the key {t.name}.{key}"


# --------------------------------------------------------------------------------------------- entry


_TEXT_FNS = {
    "prose_fence": _k_prose_fence,
    "semicolon_explanation": _k_semicolon_explanation,
    "keyword_table_bare": _k_keyword_table_bare,
    "backtick_quotes": _k_backtick_quotes,
    "foreign_limit": _k_foreign_limit,
}
_TREE_FNS = {
    "column_convention": _k_column_convention,
    "column_synonym": _k_column_synonym,
    "table_plural": _k_table_plural,
    "foreign_function": _k_foreign_function,
    "string_concat_plus": _k_string_concat_plus,
    "missing_group_by": _k_missing_group_by,
    "where_aggregate": _k_where_aggregate,
    "wrong_alias": _k_wrong_alias,
    "ambiguous_column": _k_ambiguous_column,
    "silent_extra_join": _k_silent_extra_join,
    "silent_group_by_name": _k_silent_group_by_name,
}
assert set(_TEXT_FNS) | set(_TREE_FNS) | {"clean"} == set(DAMAGE_KINDS)
assert set(_TREE_FNS) == set(TREE_KINDS)


def damage(gold_sql: str, schema, kind: str, seed: int = 0) -> Damaged | None:
    """The reply a small model might give instead of gold_sql, damaged as `kind` says; None when the kind does
    not apply. Deterministic for (gold_sql, kind, seed)."""
    if kind == "clean":
        return Damaged(kind, gold_sql, "unchanged")
    if kind not in _TEXT_FNS and kind not in _TREE_FNS:
        raise ValueError(f"unknown damage kind {kind!r}")
    rng = _rng(gold_sql, kind, seed)
    dialect = schema.dialect
    tree = _parse(gold_sql, dialect)
    if tree is None:  # not one parseable statement: nothing a model would plausibly garble from it
        return None
    try:
        if kind in _TEXT_FNS:
            if kind in ("keyword_table_bare", "backtick_quotes", "foreign_limit"):
                got = _TEXT_FNS[kind](gold_sql, tree, schema, rng)
                if got is None:
                    return None
                sql, note = got
                if _strip_semis(sql) == _strip_semis(gold_sql):
                    return None
                return Damaged(kind, _wrap_light(sql, rng), note)
            got = _TEXT_FNS[kind](gold_sql, tree, schema, rng)
            return None if got is None else Damaged(kind, got[0], got[1])
        if tree is None:
            return None
        before = tree.sql(dialect=dialect)
        got = _TREE_FNS[kind](gold_sql, tree.copy(), schema, rng)
        if got is None:
            return None
        new_tree, note = got
        sql = _render(new_tree, dialect, rng)
        if new_tree.sql(dialect=dialect) == before:
            return None
        return Damaged(kind, _wrap_light(sql, rng), note)
    except Exception:  # sqlglot surprises on odd gold SQL: the kind simply does not apply
        return None
