"""Helpers shared by the tests (a module of its own: every test folder may have a conftest)."""
from __future__ import annotations

import os
import socket

import pytest


def require_services() -> bool:
    """CI sets ARENA_REQUIRE_SERVICES=1: then unreachable services fail tests instead of skipping them."""
    return os.environ.get("ARENA_REQUIRE_SERVICES") == "1"


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def need_services(*services: tuple[str, str, int]) -> None:
    """Skip (or, when required, fail) unless every (name, host, port) answers."""
    down = [f"{name} at {host}:{port}" for name, host, port in services if not reachable(host, port)]
    if down:
        message = "unreachable: " + ", ".join(down)
        if require_services():
            pytest.fail(f"ARENA_REQUIRE_SERVICES=1 but {message}")
        pytest.skip(message + " (set ARENA_REQUIRE_SERVICES=1 to make this a failure)")


def tools_required() -> bool:
    """In CI (and wherever services are required) a missing sandbox or browser fails its tests instead of
    skipping them."""
    return require_services() or os.environ.get("CI") == "true"


CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (Playwright driving Debian's Chromium), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (deploy/system-deps.sh installs it with apt; ARENA_CHROMIUM names another)"
    return None


def token_client(player):
    """An API client that authenticates as ``player`` with its token."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    token, _ = Token.objects.get_or_create(user=player)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
