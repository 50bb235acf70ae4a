"""Django's CommonMiddleware, redirecting a request with a body to its URL's trailing slash without losing it and
refusing a body larger than any endpoint takes before it is read; the pages' refusal of methods none of them
serves."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponsePermanentRedirect, JsonResponse
from django.middleware import common
from django.utils.http import escape_leading_slashes

from web.api.errors import API_PREFIX, error_body

#: Methods whose redirect a client may turn into a GET; the others carry a body to keep.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")
#: What the pages (and the admin) serve: reads and form posts.
PAGE_METHODS = ("GET", "HEAD", "POST", "OPTIONS")


class PageMethodsMiddleware:
    """405 with Allow for a method outside PAGE_METHODS (TRACE, PROPFIND, PUT...) on a page: the pages are plain
    functions that answer any method with the page. Under /api/ each view answers for itself (its JSON 405 names
    the methods it allows)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in PAGE_METHODS and not request.path.startswith(API_PREFIX):
            return HttpResponseNotAllowed(PAGE_METHODS)
        return self.get_response(request)


class HttpResponsePermanentRedirectKeepingMethod(HttpResponsePermanentRedirect):
    """308: the client repeats its method and body at the new URL (a 301 lets it switch to a GET)."""

    status_code = 308


def largest_body() -> int | None:
    """The most any request may send: a form's fields (DATA_UPLOAD_MAX_MEMORY_SIZE) and one bot package
    (ARENA_UPLOAD_MAX_BYTES), the upload's; None if Django's field limit is off."""
    fields = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return None if fields is None else fields + settings.ARENA["UPLOAD_MAX_BYTES"]


class CommonMiddleware(common.CommonMiddleware):
    """Django's, but POST /api/token (PUT, PATCH, DELETE) answers a 308 to /api/token/: Django answers a 301,
    after which clients GET the new URL without the body, or, with DEBUG, raises RuntimeError (a 500).

    It also answers 413 to a body longer than ``largest_body()`` before anything reads it: Django bounds a form's
    fields but streams its files to temporary files whatever their size, and the CSRF check reads the form of
    any POST that has a CSRF cookie (anyone gets one from the login page): a disk filled by one request."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        """413 for a body over the site's bound (under /api/ it becomes the API's JSON error); Django's steps else."""
        limit = largest_body()
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:  # Django reads such a body as empty
            length = 0
        if limit is not None and length > limit:
            detail = f"the request body is {length:,} bytes; the limit is {limit:,}"
            if request.path.startswith(API_PREFIX):
                return JsonResponse(error_body("too_large", detail), status=413)
            return HttpResponse(f"{detail}\n", status=413, content_type="text/plain; charset=utf-8")
        return super().process_request(request)

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """The 308 for a missing trailing slash on an unsafe method; Django's answer otherwise."""
        if request.method not in SAFE_METHODS and response.status_code == 404 and self.should_redirect_with_slash(
                request):
            return HttpResponsePermanentRedirectKeepingMethod(
                escape_leading_slashes(request.get_full_path(force_append_slash=True)))
        return super().process_response(request, response)
