"""A reply that came through a transport's encoding, read back to its text before anything else is looked for:

- **e-mail's quoted-printable** (``WHERE status =3D 'paid'``, a line broken by a final ``=``, ``=E2=80=99``): decoded
  where ``=3D`` — the encoding of ``=`` itself — stands outside a value, or its soft line breaks beside a byte past
  ASCII, or a line cut by one at its 76th character (or, right after a word, a little before; never after an
  operator, ``>=``), and every ``=`` is such an escape and no other ASCII byte is escaped (the encoding writes no
  other);
- **a tokenizer's raw pieces** — byte-level BPE's ``Ġ`` (a space), ``Ċ`` (a line break) and ``ĉ`` (a tab), and
  SentencePiece's ``▁`` (a space) and ``<0x0A>`` byte tokens — where three or more stand in the text: the text
  they spell (BPE's whole byte table, where it gives UTF-8);
- **Telegram's MarkdownV2 escapes** (``\\.``, ``\\-``, ``\\=``, ``\\(`` … before each of its special characters,
  inside values too) where three or more of the escapes only MarkdownV2 writes stand in the text.

Each is no SQL where it stands: ``=3D`` is no operator, ``Ġ`` and ``▁`` are no SQL characters, and SQL never writes a
backslash before ``.`` or ``=`` outside a value.
"""

from __future__ import annotations

import quopri
import re

__all__ = ["encodings_read"]

_QP_SOFT_BREAK = re.compile(r"=\r?\n")
_QP_HIGH = re.compile(r"=[89A-F][0-9A-F]")  # a byte past ASCII, as quoted-printable writes é: =C3=A9
_QP_ASCII = re.compile(r"=([0-7][0-9A-F])(?!\r?\n)")  # an ASCII byte escaped: only "=" itself (=3D) ever is
_QP_WRAPPED = re.compile(r"^(?:[^\n]{59,74}[^\s<>!=:]|[^\n]{74}[^<>!=:])=\r?$", re.MULTILINE)  # a line cut at the
# 76th character (never after an operator: ``order_date >=`` ends a line of SQL)
_BARE_EQUALS = re.compile(r"=(?![0-9A-F]{2}|\r?\n)")  # quoted-printable writes every "=" as an escape
_QUOTED_VALUE = re.compile(r"'(?:[^'\n]|'')*'")
_BPE = re.compile("[\u0120\u010a\u0109]")  # Ġ Ċ ĉ
_SENTENCEPIECE = re.compile(r"(?<!fim)\u2581|<0x[0-9A-F]{2}>")  # ▁; DeepSeek's ``<｜fim▁hole｜>`` is a FIM token
_V2_ONLY = re.compile(r"\\[.\-=!+>{}~]")  # escapes plain Markdown never needs (``\_``, ``\*`` are its own too)
_V2_ESCAPE = re.compile(r"\\([_*\[\]()~`>#+\-=|{}.!\\])")


def encodings_read(text: str) -> str:
    """``text`` decoded from the encodings of the module docstring, each only where its marks say it is one — marks
    counted outside quoted values (``LIKE '%=3D%'``, ``'Ġalice'``, ``~ '^10\\.0\\.'`` are data)."""
    bare = _QUOTED_VALUE.sub("''", text)
    if _quoted_printable_marks(text, bare):
        text = _quoted_printable(text)
    if len(_BPE.findall(bare)) >= 3:
        text = _byte_pieces(text)
    if len(_SENTENCEPIECE.findall(bare)) >= 3:
        text = _SENTENCEPIECE.sub(lambda m: " " if m[0] == "\u2581" else chr(int(m[0][3:5], 16)), text)
    if len(_V2_ONLY.findall(bare)) >= 3:
        text = _V2_ESCAPE.sub(r"\1", text)
    return text


def _quoted_printable_marks(text: str, bare: str) -> bool:
    """Every "=" an escape or a soft break, no ASCII byte escaped but "=" (``year=2023`` is SQL), and a mark only the
    encoding writes: ``=3D`` outside a value, a soft break beside a byte past ASCII, or a line cut at 76 characters."""
    if _BARE_EQUALS.search(text) or any(m[1].upper() != "3D" for m in _QP_ASCII.finditer(text)):
        return False
    return bool("=3D" in bare.upper() or (_QP_SOFT_BREAK.search(text) and _QP_HIGH.search(text))
                or _QP_WRAPPED.search(text))


def _quoted_printable(text: str) -> str:
    try:
        return quopri.decodestring(text.encode("utf-8")).decode("utf-8")
    except (UnicodeError, ValueError):
        return text


def _byte_table() -> dict[str, int]:
    """GPT-2's byte-level BPE alphabet: each byte as the character its tokenizer writes for it."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {chr(b): b for b in printable}
    extra = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + extra)] = b
            extra += 1
    return table


_BYTES = _byte_table()


def _byte_pieces(text: str) -> str:
    """The text BPE pieces spell: every character through the byte table where all are in it and the bytes are
    UTF-8; else only the space, line break and tab marks read (the rest of the text as written)."""
    if all(c in _BYTES for c in text):
        try:
            return bytes(_BYTES[c] for c in text).decode("utf-8")
        except UnicodeDecodeError:
            pass
    return text.replace("\u0120", " ").replace("\u010a", "\n").replace("\u0109", "\t")
