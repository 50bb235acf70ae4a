"""Text that people write and everyone is shown: one line of plain text."""
from __future__ import annotations

import unicodedata

#: Characters that change how the text around them is shown (the bidi embeddings, overrides and isolates: a
#: name could show text reversed, "Trojan Source"); the control characters (Cc) are refused beside them.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def control_character(text: str | None) -> str | None:
    """The first control character in ``text`` (line breaks, terminal escapes, bidi controls), named for a
    message ("U+202E (right-to-left override)"); None if there is none."""
    bad = next((c for c in text or "" if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS), None)
    if bad is None:
        return None
    label = unicodedata.name(bad, "")  # the bidi controls have names; C0 and C1 controls have none
    return f"U+{ord(bad):04X}" + (f" ({label.lower()})" if label else "")
