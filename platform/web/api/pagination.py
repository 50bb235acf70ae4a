"""Pagination of every API list: ``{count, next, previous, results}`` with ``?limit=`` and ``?offset=``."""
from __future__ import annotations

import re

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

_NUMBER = re.compile(r"[0-9]{1,18}")


def query_int(request, name: str, default: int | None, low: int, high: int | None = None) -> int | None:
    """The query parameter ``name`` as an int in [low, high]; a clear 400 for anything else (``²``, 30 nines)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not _NUMBER.fullmatch(raw) or int(raw) < low or (high is not None and int(raw) > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise ValidationError({name: [f"must be a whole number, {bound}; got {raw[:40]!r}"]})
    return int(raw)


class Page(LimitOffsetPagination):
    """Limit/offset pages, strict about their parameters (DRF's silently falls back or overflows the database)."""

    default_limit = 50
    max_limit = 200
    max_offset = 10**12

    def get_limit(self, request):
        return query_int(request, self.limit_query_param, self.default_limit, 1, self.max_limit)

    def get_offset(self, request):
        return query_int(request, self.offset_query_param, 0, 0, self.max_offset)

    def get_schema_operation_parameters(self, view):
        bounds = {self.limit_query_param: (1, self.max_limit), self.offset_query_param: (0, self.max_offset)}
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"].update({"minimum": low, "maximum": high})
        return parameters
