"""The API's JSON renderer: DRF's, written by orjson.

A leaderboard page with its rating histories is ~770 kB of JSON: the standard library takes ~13 ms of CPU
to write it, orjson ~1.3 ms. The values are the same as DRF's renderer writes: compact, UTF-8, datetimes
in ISO 8601 with ``Z`` for UTC, U+2028 and U+2029 escaped (JSON that is also valid JavaScript); what orjson
cannot write by itself (lazy translations, Decimal, sets, bytes...) goes through DRF's own encoder.
"""
from __future__ import annotations

from typing import Any

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

_default = JSONEncoder().default
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_UTC_Z
# U+2028 and U+2029 in UTF-8, and their escapes
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


class JSONRenderer(renderers.JSONRenderer):
    """DRF's ``JSONRenderer`` with orjson doing the writing. An indented response (``Accept:
    application/json; indent=4``) and values orjson refuses (an int beyond 64 bits) take DRF's own path.
    NaN and infinities, which DRF's strict JSON refuses with an error, are written as null."""

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict | None = None) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}) is None:
            try:
                out = orjson.dumps(data, default=_default, option=_OPTIONS)
            except TypeError:  # orjson.JSONEncodeError: e.g. an int beyond 64 bits
                pass
            else:
                if b"\xe2\x80" in out:
                    for raw, escaped in _LINE_SEPARATORS:
                        out = out.replace(raw, escaped)
                return out
        return super().render(data, accepted_media_type, renderer_context)
