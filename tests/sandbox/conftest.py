"""Fixtures of the sandbox tests (the bubblewrap requirement is in tests/conftest.py)."""
from __future__ import annotations

import pytest

from sandbox_helpers import COUNT_GAME


@pytest.fixture
def count_game(monkeypatch):
    """Make ``play_match`` play the count game whatever id it is given."""
    import engines.match

    monkeypatch.setattr(engines.match, "get_game", lambda game_id: COUNT_GAME)
    return COUNT_GAME


