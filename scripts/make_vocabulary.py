"""Builds core/insights/data/english_words.txt: the common English words a shared insight may use.

    python scripts/make_vocabulary.py /usr/share/dict/american-english /usr/share/dict/british-english

The lists are SCOWL's, as Debian's wamerican and wbritish packages ship them (`apt-get install wamerican
wbritish`). A spell-checker list writes proper nouns with a capital ("India", "Patrick", "Christmas"), so the
words it writes in lower case are the common ones: those are kept (letters, accents taken off as Cairn reads them,
no possessives, one letter only for "a" and "i"). The file is committed: Cairn never needs the packages at run time. Re-run it only to change the
source lists; the analytics and Hindi-English words are kept by hand in analytics_words.txt beside it.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "core" / "insights" / "data" / "english_words.txt"


def common_words(paths: list[str]) -> list[str]:
    words: set[str] = set()
    for path in paths:
        for word in Path(path).read_text(encoding="utf-8").split():
            if not (word.isalpha() and word.islower()):
                continue
            plain = "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))
            if plain.isascii() and (len(plain) > 1 or plain in ("a", "i")):  # "café" is kept as "cafe"
                words.add(plain)
    return sorted(words)


def main(paths: list[str]) -> None:
    if not paths:
        raise SystemExit(__doc__)
    words = common_words(paths)
    header = ("# Common English words (lower case in SCOWL's word lists: proper nouns are left out), one per line.\n"
              "# Made by scripts/make_vocabulary.py from Debian's wamerican and wbritish; see SCOWL-COPYRIGHT.txt.\n")
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    tmp.replace(OUT)
    print(f"{len(words):,} words -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
