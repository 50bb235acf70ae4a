"""The API's JSON parser: a document nested deeper than MAX_JSON_DEPTH is refused (400) before the decoder
recurses, and NaN/Infinity are refused. (The body's size is bounded before any parser runs: DRF reads JSON and
form bodies through ``request.body``, which Django refuses past DATA_UPLOAD_MAX_MEMORY_SIZE; see errors.py.)"""
from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

#: No API body needs more than a few levels; 32 leaves room and stays far below Python's recursion limit.
MAX_JSON_DEPTH = 32

# A string literal, or an unclosed one up to the end of the text. The match from a quote never fails, so re.sub
# scans each byte once: a pattern that needs the closing quote rescans the rest of an unclosed string from every
# quote in it (quadratic: hours for a 2.5 MB body of escaped quotes).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
# Each bracket as a signed byte, +1 opens and -1 (0xFF) closes, every other byte dropped: the running sum is the
# depth. (UTF-8 never uses bracket bytes inside a multi-byte character.)
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting_depth_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays/objects deeper than ``limit`` (brackets in strings do not count).

    C-speed and linear throughout (a regular expression, bytes.translate, accumulate): at most ~0.2 s for a
    2.5 MB body. Brackets after an unclosed quote do not count either: the decoder refuses that body anyway.
    """
    steps = array("b", _STRING.sub("", text).encode().translate(_STEPS, _NOT_BRACKETS))
    return max(accumulate(steps), default=0) > limit


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, bounded in depth; NaN and Infinity are refused."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = stream.read().decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding}: {exc}") from None
        if nesting_depth_exceeds(text, MAX_JSON_DEPTH):
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:  # unbalanced brackets the depth count cannot judge: the decoder's own guard
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
