"""Pagination of every API list: ``{count, next, previous, results}`` with ``?limit=`` and ``?offset=``.

``count`` is exact up to ``EXACT_COUNT_UP_TO`` rows; above that it is PostgreSQL's estimate (an exact COUNT(*)
over a million matches would cost more than the page). Lists of matches and tournaments also page by key
(``?before=<id>``, ``?after=<id>``): their ``next`` and ``previous`` links use it, so every page costs the
same however deep it is.
"""
from __future__ import annotations

import json

from django.db import connections
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.utils.urls import remove_query_param, replace_query_param

from web.api.params import query_int

EXACT_COUNT_UP_TO = 10_000


def estimated_count(queryset) -> int:
    """The number of rows of ``queryset``: exact up to EXACT_COUNT_UP_TO, else the planner's estimate on
    PostgreSQL (never below the exact bound), exact elsewhere.

    PostgreSQL: the planner's estimate first (no rows read); only a list it expects to be small is
    counted, and that count stops after the bound."""
    if connections[queryset.db].vendor != "postgresql":
        return queryset.count()
    queryset = queryset.order_by()
    plan = json.loads(queryset.explain(format="json"))
    estimate = int(plan[0]["Plan"]["Plan Rows"])
    if estimate > 2 * EXACT_COUNT_UP_TO:
        return estimate
    capped = queryset[:EXACT_COUNT_UP_TO + 1].count()
    return capped if capped <= EXACT_COUNT_UP_TO else max(EXACT_COUNT_UP_TO + 1, estimate)


def _key(row) -> int:
    """The id of a listed row: a model object, or values with "id"."""
    return row["id"] if isinstance(row, dict) else row.pk


class Page(LimitOffsetPagination):
    """Limit/offset pages, strict about their parameters (DRF's silently falls back or overflows the database)."""

    default_limit = 50
    max_limit = 200
    max_offset = 10**12

    def get_limit(self, request):
        return query_int(request, self.limit_query_param, self.default_limit, 1, self.max_limit)

    def get_offset(self, request):
        return query_int(request, self.offset_query_param, 0, 0, self.max_offset)

    def get_count(self, queryset):
        if isinstance(queryset, list):
            return len(queryset)
        return estimated_count(queryset)

    def get_schema_operation_parameters(self, view):
        bounds = {self.limit_query_param: (1, self.max_limit), self.offset_query_param: (0, self.max_offset)}
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"].update({"minimum": low, "maximum": high})
        return parameters

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["count"]["description"] = (
            f"rows in the list: exact up to {EXACT_COUNT_UP_TO}, an estimate above")
        return paginated


class KeysetPage(Page):
    """Newest first by id. ``?before=<id>``: the rows older than that id; ``?after=<id>``: the rows newer
    than it (the page just before). ``next``/``previous`` use these keys; ``?offset=`` still works."""

    before_query_param, after_query_param = "before", "after"
    max_id = 10**18 - 1

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        before = query_int(request, self.before_query_param, None, 0, self.max_id)
        after = query_int(request, self.after_query_param, None, 0, self.max_id)
        self.count = self.get_count(queryset)
        # One row more than the page says whether there is a page beyond it, that way; an indexed probe
        # says so the other way (only when the page is not the newest).
        end = self.offset + self.limit + 1
        if after is not None:
            rows = list(queryset.filter(pk__gt=after).order_by("pk")[self.offset:end])
            self.newer = len(rows) > self.limit
            rows = rows[:self.limit][::-1]
            self.older = bool(rows) and queryset.filter(pk__lt=_key(rows[-1])).exists()
        else:
            rows = list((queryset if before is None else queryset.filter(pk__lt=before)).order_by("-pk")[self.offset:end])
            self.older = len(rows) > self.limit
            rows = rows[:self.limit]
            self.newer = (bool(rows) and (before is not None or self.offset > 0)
                          and queryset.filter(pk__gt=_key(rows[0])).exists())
        self.first_key = _key(rows[0]) if rows else None
        self.last_key = _key(rows[-1]) if rows else None
        return rows

    def _url(self, key_param: str, key: int) -> str:
        url = self.request.build_absolute_uri()
        for param in (self.offset_query_param, self.before_query_param, self.after_query_param):
            url = remove_query_param(url, param)
        return replace_query_param(url, key_param, key)

    def get_next_link(self):
        return self._url(self.before_query_param, self.last_key) if self.older else None

    def get_previous_link(self):
        return self._url(self.after_query_param, self.first_key) if self.newer else None

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for name, what in ((self.before_query_param, "older than this id (the next page)"),
                           (self.after_query_param, "newer than this id (the page before)")):
            parameters.append({"name": name, "required": False, "in": "query", "description": f"only rows {what}",
                               "schema": {"type": "integer", "minimum": 0, "maximum": self.max_id}})
        return parameters


class LeaderboardPage(Page):
    """A leaderboard's page: what the board is of (game, ruleset, its options and player counts), then the page."""

    header: dict = {}

    def page_of(self, request, count: int) -> tuple[int, int]:
        """Read ``limit``/``offset`` for rows the view fetches itself; returns (offset, limit)."""
        self.request, self.count = request, count
        self.limit, self.offset = self.get_limit(request), self.get_offset(request)
        return self.offset, self.limit

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data = {**self.header, **response.data}
        return response

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        paginated["required"] = ["game", "ruleset", "options", "players", *paginated.get("required", [])]
        paginated["properties"] = {
            "game": {"type": "string"},
            "ruleset": {"type": "string", "example": "standard"},
            "options": {"type": "object", "description": "the ruleset's full options"},
            "players": {"type": "array", "items": {"type": "integer"}, "description": "player counts it allows"},
            "bracket": {"type": "string", "description": 'the player-count bracket shown (?players=), or "all"'},
            **paginated["properties"],
        }
        return paginated
