"""Django's CommonMiddleware, redirecting a request with a body to its URL's trailing slash without losing it; the
pages' refusal of methods none of them serves."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponsePermanentRedirect
from django.middleware import common
from django.utils.http import escape_leading_slashes

from web.api.errors import API_PREFIX

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


class CommonMiddleware(common.CommonMiddleware):
    """Django's, but POST /api/token (PUT, PATCH, DELETE) answers a 308 to /api/token/: Django answers a 301,
    after which clients GET the new URL without the body, or, with DEBUG, raises RuntimeError (a 500)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """The 308 for a missing trailing slash on an unsafe method; Django's answer otherwise."""
        if request.method not in SAFE_METHODS and response.status_code == 404 and self.should_redirect_with_slash(
                request):
            return HttpResponsePermanentRedirectKeepingMethod(
                escape_leading_slashes(request.get_full_path(force_append_slash=True)))
        return super().process_response(request, response)
