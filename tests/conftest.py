"""Shared fixtures. Engine tests need no database; platform tests use pytest-django's."""
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


@pytest.fixture
def builtin_versions(db):
    """The built-in bot versions of Port Royal, by name."""
    from bots.services import register_builtin_bots

    return {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}


@pytest.fixture
def sandbox():
    """Skip (or, in CI, fail) unless bubblewrap can run uploaded bots here."""
    from engines.sandbox import sandbox_problem

    problem = sandbox_problem()
    if problem is not None:
        if require_services() or os.environ.get("CI") == "true":
            pytest.fail(f"the sandbox is required here but: {problem}")
        pytest.skip(f"sandbox unavailable: {problem}")
