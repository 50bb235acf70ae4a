"""Request body parsers with bounds: a body larger than DATA_UPLOAD_MAX_MEMORY_SIZE is refused (413) before it
is parsed, and a JSON document nested deeper than MAX_JSON_DEPTH is refused (400) before the decoder recurses."""
from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings
from django.http import QueryDict
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import FormParser, JSONParser

#: No API body needs more than a few levels; 32 leaves room and stays far below Python's recursion limit.
MAX_JSON_DEPTH = 32

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the request body is too large"
    default_code = "too_large"


def read_bounded(stream) -> bytes:
    """The body, or ``PayloadTooLarge`` when it is longer than DATA_UPLOAD_MAX_MEMORY_SIZE."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    data = stream.read(limit + 1) if stream is not None else b""
    if limit is not None and len(data) > limit:
        raise PayloadTooLarge(f"the request body is larger than {limit:,} bytes")
    return data


def nesting_depth_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays/objects deeper than ``limit`` (strings are skipped)."""
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub('""', text)):
        if bracket.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, bounded in size and depth; NaN and Infinity are refused."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = read_bounded(stream)
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding}: {exc}") from None
        if nesting_depth_exceeds(text, MAX_JSON_DEPTH):
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


class FormBodyParser(FormParser):
    """DRF's url-encoded form parser, bounded in size (Django bounds the number of fields)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        return QueryDict(read_bounded(stream), encoding=encoding)
