"""Pagination of every API list: ``{count, next, previous, results}`` with ``?limit=`` and ``?offset=``."""
from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination

from web.api.params import query_int


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


class LeaderboardPage(Page):
    """A leaderboard's page: what the board is of (game, ruleset, its options and player counts), then the page."""

    header: dict = {}

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
