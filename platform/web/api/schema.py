"""The OpenAPI schema's view of the API: every operation lists the errors it can answer, in the one error shape."""
from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

from web.api.errors import ErrorSerializer

ERRORS = {
    400: "bad input: a query parameter, a body field or the JSON itself (see `fields`)",
    401: "an unknown token, or a write without one",
    403: "not yours to change",
    404: "no such object or endpoint",
    405: "method not allowed (see the Allow header)",
    406: "only application/json is served",
    429: "too many failed logins: wait Retry-After seconds",
}
BODY_ERRORS = {
    413: "the body is larger than the limit",
    415: "unsupported Content-Type",
}


class ArenaAutoSchema(AutoSchema):
    """drf-spectacular's schema, with the shared error responses added to each operation."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        errors = dict(ERRORS)
        if self.method in ("POST", "PUT", "PATCH"):
            errors.update(BODY_ERRORS)
        for code, description in errors.items():
            if str(code) not in responses:
                response = self._get_response_for_code(ErrorSerializer, str(code), direction=direction)
                response["description"] = description
                responses[str(code)] = response
        return responses
