"""One error shape for the whole API.

Every error under /api/ is JSON: ``{"error": <short code>, "detail": <text>}``; ``detail`` is always a string.
Invalid fields add ``"fields": {<field path>: [<message>, ...]}`` (nested fields as ``bots.1``). The exception
handler shapes DRF's errors and the domain's; the middleware shapes what Django answers by itself (an unknown
URL, an unhandled exception, a bad Host header). The handler is also where every API view (the router's root
and drf-spectacular's views included) answers a method it does not allow with 405 whoever asks.
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, MethodNotAllowed, ValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from bots.selectors import BotNotFound
from bots.services import UploadError
from engines.core import BadOptions
from tournaments.services import TournamentError

API_PREFIX = "/api/"

# The code of an error by its status, where the exception does not name one.
CODES = {
    400: "bad_request", 401: "not_authenticated", 403: "permission_denied", 404: "not_found",
    405: "method_not_allowed", 406: "not_acceptable", 413: "too_large", 415: "unsupported_media_type",
    429: "throttled", 500: "server_error",
}
# Headers of Django's own error responses that a client still needs.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


class ErrorSerializer(serializers.Serializer):
    """The error shape (for the schema)."""

    error = serializers.CharField(help_text="a short code: invalid, not_found, throttled, ...")
    detail = serializers.CharField(help_text="what is wrong, in words")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                   help_text="invalid input only: the messages of each field")


def error_body(code: str, detail: str, fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"error": code, "detail": detail}
    if fields:
        body["fields"] = fields
    return body


def field_messages(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation detail flattened to ``{"name": [...], "bots.1": [...]}``."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            out.update(field_messages(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(detail, list) and detail and all(not isinstance(d, (dict, list)) for d in detail):
        return {prefix or "non_field_errors": [str(d) for d in detail]}
    if isinstance(detail, list):
        out = {}
        for index, value in enumerate(detail):
            out.update(field_messages(value, f"{prefix}.{index}" if prefix else str(index)))
        return out
    return {prefix or "non_field_errors": [str(detail)]}


def exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """DRF's handler, answering in the API's shape; ``None`` (a 500) for what is not an API error."""
    view, request = context.get("view"), context.get("request")
    in_view = view is not None and request is not None
    if (in_view and isinstance(exc, APIException) and not isinstance(exc, MethodNotAllowed)
            and request.method.upper() not in view.allowed_methods):
        # DRF negotiates, authenticates, checks permissions and throttles before it looks at the method: what
        # refused a method the view never allows (a 401 for PUT /api/ without a token) is a 405 for anyone.
        exc = MethodNotAllowed(request.method)
    if in_view and isinstance(exc, Http404) and getattr(request, "accepted_renderer", None) is None:
        return unknown_format(view, request)  # only content negotiation raises Http404 before it picks a renderer
    if isinstance(exc, BadOptions) and exc.option:  # the engine names the option at fault
        return Response(error_body("invalid", str(exc), {f"options.{exc.option}": [str(exc)]}),
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (TournamentError, BadOptions, BotNotFound, UploadError)):
        return Response(error_body("invalid", str(exc)), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(error_body("too_large", f"the request body (files aside) is larger than {limit:,} bytes"),
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    # Django's other request limits (SuspiciousOperation: a bare "Bad Request" if left to Django).
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return Response(error_body("too_many_fields", f"more than {limit:,} fields in the query string or the form"),
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return Response(error_body("too_many_files", f"more than {limit:,} files in the form"),
                        status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        fields = field_messages(exc.detail)
        text = "; ".join(f"{name}: {' '.join(messages)}" if name != "non_field_errors" else " ".join(messages)
                         for name, messages in fields.items())
        response.data = error_body("invalid", text, fields)
        return response
    drf_detail = response.data.get("detail") if isinstance(response.data, dict) else response.data
    code = getattr(drf_detail, "code", None) or CODES.get(response.status_code, "error")
    detail = str(drf_detail) if drf_detail else _phrase(response.status_code)
    response.data = error_body(code, detail)
    return response


def unknown_format(view, request) -> JsonResponse:
    """The 404 of a ``?format=`` (or ``.xml`` suffix) that none of the view's renderers writes, naming those it has.

    A JsonResponse, not a Response: DRF would write a Response with the view's first renderer, which is YAML for
    the schema and HTML for the docs."""
    wanted = getattr(view, "format_kwarg", None) or request.query_params.get(api_settings.URL_FORMAT_OVERRIDE) or ""
    formats = ", ".join(dict.fromkeys(renderer.format for renderer in view.get_renderers()))
    return JsonResponse(error_body("not_found", f"no format {wanted[:40]!r} here; formats: {formats}"), status=404)


def _phrase(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "Error"


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


class ApiErrorMiddleware:
    """Under /api/, an error response that is not JSON (Django's own 404, 500, 400) becomes the API's shape."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400 or _is_json(response):
            return response
        code = response.status_code
        if code == 404 and getattr(request, "resolver_match", None) is None:
            detail = f"no API endpoint at {request.path}; the endpoints are listed at {API_PREFIX}docs/"
        elif code >= 500:
            detail = "the server failed on this request; it is logged"
        else:
            detail = _phrase(code)
        shaped = JsonResponse(error_body(CODES.get(code, "error"), detail), status=code)
        for header in KEPT_HEADERS:
            if header in response:
                shaped[header] = response[header]
        return shaped
