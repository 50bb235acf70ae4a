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


def token_client(player):
    """An API client that authenticates as ``player`` with its token."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    token, _ = Token.objects.get_or_create(user=player)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def purge_broker_queue() -> None:
    """Empty the configured broker queue (as after a broker restarted empty)."""
    from arena.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)
