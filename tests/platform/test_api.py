"""The REST API: reads for everyone, writes with a token, clear errors for bad requests."""
import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena_testing import token_client
from players.models import Player
from tournaments import services
from tournaments.running import pipeline
from tournaments.models import MatchSeat, Tournament


@pytest.fixture
def alice(db):
    return Player.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def client_with_token(alice):
    return token_client(alice)


def test_games_are_listed_with_their_player_counts(db):
    data = APIClient().get("/api/games/").json()
    port_royal = next(g for g in data["results"] if g["id"] == "port_royal")
    assert (port_royal["min_players"], port_royal["max_players"]) == (2, 5)
    assert "end_condition" in port_royal["options"]


def test_creating_a_tournament_needs_a_token(builtin_versions):
    body = {"name": "t", "game": "port_royal", "bots": ["random", "heuristic"], "seats": 2}
    response = APIClient().post("/api/tournaments/", body, format="json")
    assert response.status_code == 401
    assert not Tournament.objects.exists()


def test_a_token_holder_creates_a_tournament_and_reads_it_back(client_with_token, builtin_versions, alice):
    body = {"name": "Friday", "game": "port_royal", "bots": ["random", str(builtin_versions["heuristic"].pk)],
            "seats": 2, "games_per_pairing": 3, "seed": 9}
    response = client_with_token.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["created_by"] == "alice" and len(created["entries"]) == 2
    detail = APIClient().get(f"/api/tournaments/{created['id']}/").json()
    assert detail["progress"]["total"] == 3 and detail["progress"]["done"] == 0
    matches = APIClient().get(f"/api/matches/?tournament={created['id']}").json()
    assert matches["count"] == 3 and all(len(m["seats"]) == 2 for m in matches["results"])


@pytest.mark.parametrize("body,fragment", [
    ({"name": "t", "game": "chess", "bots": ["random"], "seats": 2}, "game"),
    ({"name": "t", "game": "port_royal", "bots": ["random", "nobody/nothing"], "seats": 2}, "no valid version"),
    ({"name": "t", "game": "port_royal", "bots": ["random", "heuristic"], "seats": 7}, "played by 2-5 players"),
    ({"name": "t", "game": "port_royal", "bots": ["random", "heuristic"], "seats": 3}, "needs at least 3 bots"),
    ({"name": "t", "game": "port_royal", "bots": ["random", "heuristic"], "seats": 2, "options": {"x": 1}},
     "unknown option"),
    ({"game": "port_royal", "bots": ["random", "heuristic"], "seats": 2}, "name"),
    ({"name": "t", "game": "port_royal", "bots": "random", "seats": 2}, "bots"),
])
def test_bad_tournament_requests_get_a_clear_error_and_store_nothing(client_with_token, builtin_versions, body,
                                                                     fragment):
    response = client_with_token.post("/api/tournaments/", body, format="json")
    assert response.status_code == 400
    assert fragment in str(response.json())
    assert not Tournament.objects.exists()


def test_malformed_json_is_a_400(client_with_token):
    response = client_with_token.post("/api/tournaments/", "{not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "parse_error"


def test_unknown_things_are_404(db):
    client = APIClient()
    assert client.get("/api/leaderboards/chess/").status_code == 404
    assert client.get("/api/matches/999/").status_code == 404
    assert client.get("/api/nothing/").json()["error"] == "not_found"


def test_leaderboard_and_match_log_after_matches(builtin_versions):
    tournament = services.create_tournament(name="t", game="port_royal", seats=2, games_per_pairing=2, rated=True,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
    board = APIClient().get("/api/leaderboards/port_royal/?history=1").json()
    assert [r["place"] for r in board["results"]] == [1, 2]
    assert all(r["games"] == 2 and len(r["history"]) == 2 for r in board["results"])
    second_page = APIClient().get("/api/leaderboards/port_royal/?limit=1&offset=1").json()
    assert second_page["count"] == 2 and [r["place"] for r in second_page["results"]] == [2]
    keys = [r["conservative"] for r in board["results"]]
    assert keys == sorted(keys, reverse=True)
    match = tournament.matches.first()
    log = APIClient().get(f"/api/matches/{match.pk}/log/").json()
    assert log["game"] == "port_royal" and log["outcome"]["ranks"] and log["moves"]
    from engines.match import MatchLog, replay

    replay(MatchLog.from_dict(log))  # the served log replays to its outcome


def test_places_for_people_are_1_based(builtin_versions):
    """Seats, leaderboards, rating histories and standings say ``place``: 1 = first (the engine's rank is 0-based)."""
    tournament = services.create_tournament(name="t", game="port_royal", seats=2, games_per_pairing=2, rated=True,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
    client = APIClient()
    match = tournament.matches.first()
    seats = client.get(f"/api/matches/{match.pk}/").json()["seats"]
    assert sorted(s["place"] for s in seats) in ([1, 2], [1, 1])
    assert {s["seat"]: s["place"] for s in seats} == {s.seat: s.rank + 1 for s in match.seats.all()}
    assert all("rank" not in s for s in seats)
    history = client.get("/api/leaderboards/port_royal/?history=1").json()["results"][0]["history"]
    assert all(h["place"] in (1, 2) for h in history)
    standings = client.get(f"/api/tournaments/{tournament.pk}/").json()["standings"]
    for row in standings:
        places = [s.rank + 1 for s in MatchSeat.objects.filter(match__tournament=tournament,
                                                                 bot_version_id=row["bot_version"])]
        assert row["matches"] == 2 and row["games"] == 2
        assert row["average_place"] == sum(places) / len(places)
        assert row["wins"] == places.count(1)


def test_obtaining_a_token_with_a_password(alice):
    response = APIClient().post("/api/token/", {"username": "alice", "password": "pw-alice-123"}, format="json")
    assert response.status_code == 200 and response.json()["token"] == Token.objects.get(user=alice).key
    assert APIClient().post("/api/token/", {"username": "alice", "password": "wrong"}).status_code == 400


def test_a_match_reads_as_drfs_own_field_by_field_representation(builtin_versions, settings, alice):
    """The API reads matches and seats as values (tournaments.selectors.with_seats) and MatchSerializer and
    SeatSerializer write them out: the result must be exactly DRF's field-by-field walk over the model
    objects (same keys in the same order, same types), for the owner and for anyone else, finished or queued."""
    from django.contrib.auth.models import AnonymousUser
    from rest_framework import serializers as drf
    from rest_framework.test import APIRequestFactory

    from arena_testing import faulty_bot_tournament
    from tournaments.models import Match
    from tournaments.selectors import MATCH_FIELDS, with_seats
    from web.api.serializers import MatchSerializer, SeatSerializer

    class DrfSeat(SeatSerializer):
        to_representation = drf.ModelSerializer.to_representation

    class DrfMatch(MatchSerializer):
        seats = DrfSeat(many=True, read_only=True)
        to_representation = drf.ModelSerializer.to_representation

    settings.ARENA = {**settings.ARENA, "TRUSTED_BOTS": True}
    version, _ = faulty_bot_tournament(alice, builtin_versions, seed=5, games=1)
    services.create_tournament(name="queued", game="port_royal", seats=2, seed=3,
                               bot_versions=[version, builtin_versions["random"]])
    matches = list(Match.objects.order_by("id").prefetch_related("seats__bot_version__bot__owner"))
    assert {m.status for m in matches} >= {"finished", "queued"}
    assert any(seat.fault_log for m in matches for seat in m.seats.all())
    for user in (alice, AnonymousUser()):
        request = APIRequestFactory().get("/api/matches/")
        request.user = user
        rows = with_seats(Match.objects.order_by("id").values(*MATCH_FIELDS), viewer=user)
        assert [row["id"] for row in rows] == [m.pk for m in matches]
        for match, row in zip(matches, rows):
            context = {"request": request}
            drf_walk = DrfMatch(match, context=context).data
            drf_walk["seats"] = sorted(drf_walk["seats"], key=lambda seat: seat["seat"])
            assert repr(MatchSerializer(row, context=context).data) == repr(drf_walk)


