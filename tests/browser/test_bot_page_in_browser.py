"""A bot's page in a real browser: its sections render (versions, rating chart, recent matches with
places, faults, head-to-head), and a fault's link opens the match viewer at the move of the fault."""
from __future__ import annotations

import pytest
from django.test import Client

from arena_testing import faulty_bot_tournament
from bots.services import register_builtin_bots
from players.models import Player
from tournaments.models import MatchSeat

pytestmark = pytest.mark.browser


def test_the_bot_page_renders_its_sections_and_a_fault_opens_its_move(tab, live_server, transactional_db, settings):
    settings.ARENA = {**settings.ARENA, "TRUSTED_BOTS": True}  # the bot runs unsandboxed: this is about the page
    builtins = {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    version, _ = faulty_bot_tournament(alice, builtins, seed=2, games=2)
    seat = MatchSeat.objects.filter(bot_version=version, faults__gt=0).order_by("-match_id").first()
    move = seat.fault_log[0]["move"] + 1

    visitor = tab()
    visitor.page.goto(f"{live_server.url}/bots/{version.bot_id}/")
    for heading in ("Versions", "Rating history", "Recent matches", "Faults", "Head to head"):
        assert visitor.page.is_visible(f"h2:text-is('{heading}')"), heading
    assert visitor.page.is_visible("#rating-history svg.chart polyline")
    assert visitor.page.locator("#recent-matches tbody tr").count() == 2  # its tournament matches, not validation
    assert visitor.page.locator("#head-to-head tbody tr").count() == 2
    detail = seat.fault_log[0]["detail"]
    assert "illegal" in visitor.page.inner_text("#faults") and detail not in visitor.page.inner_text("#faults")
    visitor.page.click(f"#faults a[href='/matches/{seat.match_id}/?move={move}']")
    visitor.page.wait_for_function("() => window.arenaViewer && window.arenaViewer.renders > 0")
    assert visitor.js("arenaViewer.position()") == move
    assert "fault of seat" in visitor.page.inner_text(".av-current")
    assert visitor.errors == []

    # The owner sees the fault's detail and the validation matches too.
    client = Client()
    client.force_login(alice)
    owner = tab()
    owner.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
    owner.page.goto(f"{live_server.url}/bots/{version.bot_id}/")
    assert detail in owner.page.inner_text("#faults")
    assert owner.page.locator("#recent-matches tbody tr").count() == 4
    assert owner.errors == []
