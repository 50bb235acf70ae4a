"""Shared fixtures. Engine tests need no database; platform tests use pytest-django's."""
from __future__ import annotations

import os

import pytest

from arena_testing import require_services


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

