"""The server-rendered pages: leaderboards, tournaments, matches, bots; owner-only stderr."""
import re

import pytest
from django.test import Client

from players.models import Player
from tournaments.running import pipeline
from tournaments.models import MatchSeat
from tournaments.selectors import match_log


def test_home_lists_the_games_and_tournaments(played):
    html = Client().get("/").content.decode()
    assert "Port Royal" in html and "Summer Cup" in html


@pytest.mark.parametrize("cookie", ["abcdefghij\x00klmnop", "a" * 31 + "\x00", "A" * 32, "a" * 33])
def test_a_session_cookie_that_cannot_be_a_key_is_no_session(db, cookie):
    # Not looked up at all: PostgreSQL refuses a NUL in a query (a 500 on every page).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.cookies["sessionid"] = cookie
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    assert not [q for q in queries if "django_session" in q["sql"]]


def test_a_login_still_keeps_its_session(db):
    Player.objects.create_user("alice", password="a-long-password-1")
    client = Client()
    assert client.post("/accounts/login/", {"username": "alice", "password": "a-long-password-1"}).status_code == 302
    assert len(client.cookies["sessionid"].value) == 32
    assert client.get("/").wsgi_request.user.username == "alice"


def test_leaderboard_page_shows_ratings_and_a_history_chart(played):
    response = Client().get("/games/port_royal/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "heuristic v1" in html and "random v1" in html and "<svg" in html and "<polyline" in html
    assert Client().get("/games/chess/").status_code == 404


def test_tournament_page_shows_progress_standings_and_matches(played):
    html = Client().get(f"/tournaments/{played.pk}/").content.decode()
    assert "2 of 2 matches done" in html
    assert len(re.findall(r'href="/matches/\d+/"', html)) == 2
    # The standings say what they count: rated games in all vs this tournament's matches; places from 1.
    assert "<th>Place</th>" in html and "Rated games" in html and "Matches here" in html
    assert "Places start at 1" in html


def test_match_page_shows_seats_outcome_and_moves(played):
    match = played.matches.first()
    html = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "Outcome" in html and f"Moves <span class=\"muted\">({match.num_moves})" in html
    log = Client().get(f"/matches/{match.pk}/log.json").json()
    assert log["outcome"] == match_log(match)["outcome"]


def test_stderr_of_a_faulty_bot_is_shown_to_its_owner_only(played):
    seat = MatchSeat.objects.filter(match__tournament=played).first()
    seat.faults, seat.fault_log, seat.stderr_tail = 1, [{"move": 3, "kind": "crash", "detail": "exit 1"}], "SECRET-TRACE"
    seat.save()
    log = match_log(seat.match)
    log["faults"] = [{"seat": seat.seat, "move": 3, "kind": "crash", "detail": "exit 1", "stderr_tail": "SECRET-TRACE"}]
    log["stderr"] = {str(seat.seat): "SECRET-TRACE and more"}
    pipeline.save_match_log(seat.match_id, log)
    url = f"/matches/{seat.match_id}/"
    assert "SECRET-TRACE" not in Client().get(url).content.decode()
    stranger = Client()
    stranger.force_login(Player.objects.create_user("eve", password="x-eve-12345"))
    assert "SECRET-TRACE" not in stranger.get(url).content.decode()
    owner = Client()
    owner.force_login(seat.bot_version.bot.owner)
    html = owner.get(url).content.decode()
    assert "SECRET-TRACE" in html and "crash" in html
    # The public logs carry the fault (its kind) but neither its detail nor stderr: both may quote the bot.
    for log_url in (f"/api/matches/{seat.match_id}/log/", f"/matches/{seat.match_id}/log.json"):
        body = Client().get(log_url).content.decode()
        assert "crash" in body and "exit 1" not in body and "SECRET" not in body


def test_register_then_upload_page(db):
    client = Client()
    response = client.post("/accounts/register/", {"username": "zoe", "email": "z@example.org",
                                                   "password1": "a-long-pass-123", "password2": "a-long-pass-123"})
    assert response.status_code == 302
    assert client.get("/bots/upload/").status_code == 200
    assert Client().get("/bots/upload/").status_code == 302  # login first
