"""The match viewer on the site: frames of a stored match, and who may open which seat's view."""
import gzip
import json

import pytest
from django.test import Client

from arena_testing import token_client
from engines.games import GAME_IDS
from engines.match import MatchLog
from engines.view.frames import decode_frames, replay_observations
from engines.view.games import seat_views_public
from players.models import Player
from tournaments.models import Match
from tournaments.running.pipeline import save_match_log
from tournaments.selectors import match_log
from viewer_testing import stored_match


@pytest.fixture
def alice(db):
    return Player.objects.create_user("alice", password="pw-alice-123")


def logged_in(player) -> Client:
    client = Client()
    client.force_login(player)
    return client


@pytest.mark.parametrize("game", GAME_IDS)
def test_seat_views_open_to_their_owner_and_to_others_only_where_public(game, alice):
    match = stored_match(game, alice)
    url = f"/matches/{match.pk}/frames.json"
    eve = logged_in(Player.objects.create_user("eve", password="pw-eve-12345"))
    staff = logged_in(Player.objects.create_user("boss", password="pw-boss-12345", is_staff=True))
    assert logged_in(alice).get(url, {"seat": 0}).status_code == 200  # her own bot's seat
    assert staff.get(url, {"seat": 1}).status_code == 200
    for client in (Client(), eve, logged_in(alice)):
        response = client.get(url, {"seat": 1})
        if seat_views_public(game):
            assert response.status_code == 200
        else:
            assert response.status_code == 403
            assert response.json()["error"] == "forbidden" and "private" in response.json()["detail"]
    # The page offers exactly the views its visitor may open.
    config = logged_in(alice).get(f"/matches/{match.pk}/").context["viewer"]["config"]
    assert config["allowedSeats"] == ([0, 1, 2] if seat_views_public(game) else [0])


def test_frames_are_the_replayed_observations_gzipped_and_cached(alice, django_assert_max_num_queries):
    match = stored_match("port_royal", alice)
    url = f"/matches/{match.pk}/frames.json"
    response = Client().get(url, HTTP_ACCEPT_ENCODING="gzip, br")
    assert response["Content-Encoding"] == "gzip"
    data = json.loads(gzip.decompress(response.content))
    observations, _events = replay_observations(MatchLog.from_dict(match_log(match)), [None, 0])
    assert decode_frames(data["views"]["spectator"]) == observations[None]
    assert [m["s"] for m in data["moves"]] == [seat for seat, _a, _ms in match_log(match)["moves"]]
    assert data["seats"] == ["alice/starter v1", "heuristic v1", "random v1"]
    plain = logged_in(alice).get(url, {"seat": 0})
    assert "Content-Encoding" not in plain and decode_frames(plain.json()["frames"]) == observations[0]
    with django_assert_max_num_queries(2):  # the match row (and the session): no replay, no seat query
        assert Client().get(url).json() == data


def test_stderr_never_reaches_the_viewer(alice):
    match = stored_match("top_race", alice)
    log = match_log(match)
    log["faults"] = [{"seat": 0, "move": 2, "kind": "crash", "detail": "exit 1", "stderr_tail": "SECRET-TRACE"}]
    log["stderr"] = {"0": "SECRET-TRACE and more"}
    save_match_log(match.pk, log)
    for client in (Client(), logged_in(alice)):
        body = client.get(f"/matches/{match.pk}/frames.json").content.decode()
        assert "SECRET" not in body and '"kind":"crash"' in body
    assert "SECRET" not in logged_in(alice).get(f"/matches/{match.pk}/frames.json", {"seat": 0}).content.decode()


def test_bad_requests_get_clear_errors(alice):
    match = stored_match("alhambra", alice)
    client = logged_in(alice)
    assert client.get(f"/matches/{match.pk}/frames.json", {"seat": "x"}).json()["error"] == "invalid"
    response = client.get(f"/matches/{match.pk}/frames.json", {"seat": 7})
    assert response.status_code == 400 and "no seat 7" in response.json()["detail"]
    queued = Match.objects.create(game="alhambra", seed=1)
    assert client.get(f"/matches/{queued.pk}/frames.json").status_code == 404
    assert "arena-viewer" not in client.get(f"/matches/{queued.pk}/").content.decode()


def test_the_api_serves_the_same_frames_with_its_error_shape(alice):
    match = stored_match("el_capitan", alice)
    api = token_client(alice)
    assert api.get(f"/api/matches/{match.pk}/frames/").json()["game"] == "el_capitan"
    assert "frames" in api.get(f"/api/matches/{match.pk}/frames/?seat=0").json()
    eve = token_client(Player.objects.create_user("eve", password="pw-eve-12345"))
    response = eve.get(f"/api/matches/{match.pk}/frames/?seat=0")
    if seat_views_public("el_capitan"):
        assert response.status_code == 200
    else:
        assert response.status_code == 403 and response.json()["error"] == "permission_denied"
    bad = eve.get(f"/api/matches/{match.pk}/frames/?seat=abc")
    assert bad.status_code == 400 and set(bad.json()) == {"error", "detail", "fields"} and "seat" in bad.json()["fields"]
    assert api.get("/api/matches/999999/frames/").status_code == 404


def test_the_viewer_frames_are_sent_unpacked_to_a_client_that_refuses_gzip(db):
    """``Accept-Encoding: gzip;q=0`` refuses gzip (RFC 9110): the frames must come as plain JSON then."""
    match = stored_match("port_royal", Player.objects.create_user("alice", password="pw-alice-12345"))
    url = f"/matches/{match.pk}/frames.json"
    for header, gzipped in (("gzip;q=0", False), ("identity, gzip;q=0", False), ("br;q=1, gzip; q=0.000", False),
                            ("gzip;q=0.5", True), ("GZIP", True), ("*", True), ("*;q=0", False), ("", False)):
        response = Client().get(url, HTTP_ACCEPT_ENCODING=header)
        assert response.status_code == 200
        assert (response.get("Content-Encoding") == "gzip") is gzipped, header
        if not gzipped:
            assert response.json()["game"] == "port_royal"
