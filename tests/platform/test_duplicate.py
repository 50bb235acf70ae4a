"""Duplicate tournaments: each pairing's games are series of seat rotations on one seed; standings per series."""
import pytest
from rest_framework.test import APIClient

from arena_testing import token_client
from bots.models import Bot, BotVersion
from players.models import Player
from players.services import system_player
from tournaments import services
from tournaments.competition import formats
from tournaments.running import pipeline
from tournaments.models import Match, Tournament
from tournaments.selectors import tournament_series, tournament_standings


@pytest.fixture
def trio(builtin_versions):
    """Three Port Royal entries: random, heuristic, and a second random under another name."""
    bot = Bot.objects.create(owner=system_player(), game="port_royal", name="random-2")
    other = BotVersion.objects.create(bot=bot, number=1, kind="builtin", builtin_name="random", status="valid")
    return [builtin_versions["random"], builtin_versions["heuristic"], other]


def test_a_duplicate_round_robin_plays_every_rotation_of_each_group_per_series():
    games = formats.duplicate_round_robin(4, 3, 2)
    assert len(games) == 4 * 2 * 3  # C(4, 3) groups, 2 series each, 3 rotations per series
    assert [number for _, number in games] == [n for n in range(8) for _ in range(3)]
    assert games[:6] == [((0, 1, 2), 0), ((1, 2, 0), 0), ((2, 0, 1), 0), ((0, 1, 2), 1), ((1, 2, 0), 1), ((2, 0, 1), 1)]
    with pytest.raises(ValueError):
        formats.duplicate_round_robin(2, 3, 1)


def test_the_matches_of_a_series_share_one_seed_and_rotate_the_seats(trio):
    tournament = services.create_tournament(name="dup", game="port_royal", bot_versions=trio, seats=2,
                                            games_per_pairing=4, seed=5, duplicate=True)
    assert tournament.duplicate and tournament.planned_matches == 3 * 4
    matches = list(tournament.matches.order_by("id"))
    assert [m.series for m in matches] == [n for n in range(6) for _ in range(2)]
    for number in range(6):
        a, b = [m for m in matches if m.series == number]
        assert a.seed == b.seed == 5 * 1_000_003 + number
        order_a = list(a.seats.order_by("seat").values_list("bot_version_id", flat=True))
        order_b = list(b.seats.order_by("seat").values_list("bot_version_id", flat=True))
        assert order_b == order_a[::-1]
    assert len({m.seed for m in matches}) == 6


@pytest.mark.parametrize("kwargs,fragment", [
    ({"games_per_pairing": 3}, "multiple of 2"),
    ({"games_per_pairing": 2, "format": "swiss"}, "round robin only"),
])
def test_duplicate_tournaments_of_the_wrong_shape_are_refused(trio, kwargs, fragment):
    with pytest.raises(services.TournamentError, match=fragment):
        services.create_tournament(name="dup", game="port_royal", bot_versions=trio, seats=2, duplicate=True,
                                   **kwargs)
    assert not Tournament.objects.exists()


def finish(match: Match, places: list[int]) -> None:
    """Store a result by hand (places 1-based, by seat) so the series arithmetic can be checked by hand."""
    for seat, place in zip(match.seats.order_by("seat"), places):
        seat.rank = place - 1
        seat.save(update_fields=["rank"])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)


def test_series_results_and_standings_by_hand(trio):
    a, b, c = trio
    tournament = services.create_tournament(name="dup", game="port_royal", bot_versions=trio, seats=2,
                                            games_per_pairing=2, duplicate=True)
    matches = list(tournament.matches.order_by("id"))
    # Matches are seated (a, b) (b, a) | (a, c) (c, a) | (b, c) (c, b); places by seat:
    # series 0: a [1, 2], b [2, 1]: a tie, both win. Series 1: a [1, 1] sum 2 wins, c [2, 2] sum 4.
    finish(matches[0], [1, 2])
    finish(matches[1], [1, 2])
    finish(matches[2], [1, 2])
    finish(matches[3], [2, 1])
    finish(matches[4], [2, 1])  # (b, c): b second, c first
    # matches[5] unplayed: series 2 is not complete and is not counted.
    series = tournament_series(tournament)
    assert [s["series"] for s in series] == [0, 1]
    first = {r["bot_version"]: r for r in series[0]["bots"]}
    assert first[a.pk]["places"] == [1, 2] and first[b.pk]["places"] == [2, 1]
    assert first[a.pk]["won"] and first[b.pk]["won"] and first[a.pk]["place_sum"] == 3
    second = {r["bot_version"]: r for r in series[1]["bots"]}
    assert (second[a.pk]["place_sum"], second[a.pk]["average_place"], second[a.pk]["won"]) == (2, 1.0, True)
    assert (second[c.pk]["place_sum"], second[c.pk]["average_place"], second[c.pk]["won"]) == (4, 2.0, False)
    standings = {r["bot_version"].pk: r for r in tournament_standings(tournament)}
    assert (standings[a.pk]["series"], standings[a.pk]["series_won"]) == (2, 2)
    assert (standings[b.pk]["series"], standings[b.pk]["series_won"]) == (1, 1)
    assert (standings[c.pk]["series"], standings[c.pk]["series_won"]) == (1, 0)
    # Completing series 2 with (c, b): c second, b first: b [2, 1], c [1, 2], a tie, both win.
    finish(matches[5], [2, 1])
    standings = {r["bot_version"].pk: r for r in tournament_standings(tournament)}
    assert (standings[b.pk]["series"], standings[b.pk]["series_won"]) == (2, 2)
    assert (standings[c.pk]["series"], standings[c.pk]["series_won"]) == (2, 1)


def test_a_played_duplicate_tournament_through_the_api_and_the_page(trio, client):
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    api = token_client(alice)
    body = {"name": "dup", "game": "port_royal", "bots": ["random", "heuristic", "random-2"], "seats": 3,
            "games_per_pairing": 6, "duplicate": True, "seed": 2}
    response = api.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["duplicate"] is True
    tournament = Tournament.objects.get(pk=response.json()["id"])
    for match in tournament.matches.all():
        assert pipeline.run_match(match.pk) == "finished"
    detail = APIClient().get(f"/api/tournaments/{tournament.pk}/").json()
    assert [s["series"] for s in detail["series"]] == [0, 1]
    for series in detail["series"]:
        # Three rotations of a 3-seat table: each bot held each seat once, places 1..3 each match.
        assert sorted(p for row in series["bots"] for p in row["places"]) == [1, 1, 1, 2, 2, 2, 3, 3, 3]
        assert all(row["place_sum"] == sum(row["places"]) and len(row["places"]) == 3 for row in series["bots"])
        assert any(row["won"] for row in series["bots"])
    rows = {row["label"]: row for row in detail["standings"]}
    assert all(row["series"] == 2 for row in rows.values())
    won = {row["bot_version"]: 0 for row in detail["standings"]}
    for series in detail["series"]:
        for row in series["bots"]:
            won[row["bot_version"]] += row["won"]
    assert {row["bot_version"]: row["series_won"] for row in detail["standings"]} == won
    listed = APIClient().get(f"/api/matches/?tournament={tournament.pk}").json()["results"]
    assert sorted(m["series"] for m in listed) == [0, 0, 0, 1, 1, 1]
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Duplicate series" in page and "Series won" in page
    bad = api.post("/api/tournaments/", {**body, "games_per_pairing": 4}, format="json")
    assert bad.status_code == 400 and "multiple of 3" in bad.json()["detail"]


def test_runtournament_makes_a_duplicate_round_robin(builtin_versions):
    import io

    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="multiple of 2"):
        call_command("runtournament", game="port_royal", bots=["random", "heuristic"], seats=2, games=3,
                     duplicate=True, workers=0, stdout=io.StringIO())
    with pytest.raises(CommandError, match="timed out"):  # no workers here: it stops waiting at once
        call_command("runtournament", game="port_royal", bots=["random", "heuristic"], seats=2, games=4,
                     duplicate=True, workers=0, timeout=0.001, stdout=io.StringIO())
    tournament = Tournament.objects.get()
    assert tournament.duplicate and [m.series for m in tournament.matches.order_by("id")] == [0, 0, 1, 1]
