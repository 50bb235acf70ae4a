"""Shared helpers of the sandbox tests: the bubblewrap requirement, a tiny test game, bot files."""
from __future__ import annotations

import os
import pytest

from sandbox_helpers import COUNT_GAME

REQUIRED = os.environ.get("ARENA_REQUIRE_SERVICES") == "1" or os.environ.get("CI") == "true"


def pytest_collection_modifyitems(config, items):
    """Tests marked ``sandbox`` skip (saying why) where bubblewrap cannot run, unless required."""
    from engines.sandbox import sandbox_problem

    marked = [item for item in items if item.get_closest_marker("sandbox")]
    if not marked:
        return
    problem = sandbox_problem()
    if problem is None:
        return
    if REQUIRED:
        return  # _require_sandbox fails each of them loudly
    for item in marked:
        item.add_marker(pytest.mark.skip(reason=f"sandbox unavailable: {problem}"))


@pytest.fixture(autouse=True)
def _require_sandbox(request):
    if request.node.get_closest_marker("sandbox") and REQUIRED:
        from engines.sandbox import sandbox_problem

        problem = sandbox_problem()
        if problem is not None:
            pytest.fail(f"the sandbox is required here (CI / ARENA_REQUIRE_SERVICES=1) but: {problem}")


@pytest.fixture
def count_game(monkeypatch):
    """Make ``play_match`` play the count game whatever id it is given."""
    import engines.match

    monkeypatch.setattr(engines.match, "get_game", lambda game_id: COUNT_GAME)
    return COUNT_GAME


