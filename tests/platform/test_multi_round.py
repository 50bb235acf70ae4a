"""Swiss, knockout and ladder tournaments run round after round until they end."""
import pytest

from bots.models import Bot, BotVersion
from players.services import system_player
from tournaments import services
from tournaments.running import pipeline
from tournaments.models import Match, Tournament


@pytest.fixture
def field(builtin_versions):
    """Six Port Royal entries: the built-in bots under six names (three random, three heuristic)."""
    owner = system_player()
    versions = []
    for i in range(6):
        kind = "heuristic" if i % 2 else "random"
        bot = Bot.objects.create(owner=owner, game="port_royal", name=f"{kind}-{i}")
        versions.append(BotVersion.objects.create(bot=bot, number=1, kind="builtin", builtin_name=kind,
                                                  status="valid"))
    return versions


def play_out(tournament: Tournament, limit: int = 200) -> None:
    for _ in range(limit):
        queued = list(tournament.matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True))
        if not queued:
            break
        for pk in queued:
            assert pipeline.run_match(pk) == "finished"
    tournament.refresh_from_db()


def test_swiss_plays_its_rounds_and_pairs_by_standing(field):
    t = services.create_tournament(name="s", game="port_royal", seats=2, bot_versions=field, format="swiss",
                                   rounds=3, seed=4)
    assert t.matches.count() == 3 and t.plan["rounds"][0]["byes"] == []
    play_out(t)
    assert t.status == Tournament.Status.FINISHED
    assert [m.round for m in t.matches.order_by("id")] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    pairs = [frozenset(g) for r in t.plan["rounds"] for g in r["groups"]]
    assert len(pairs) == len(set(pairs)) == 9  # no rematch in three rounds
    points = services.entry_points(t)
    assert sum(points.values()) == 9  # one seat beaten per 2-seat match (no ties in these)
    heuristic_ids = {v.pk for v in field if v.builtin_name == "heuristic"}
    top3 = sorted(points, key=lambda v: -points[v])[:3]
    assert set(top3) == heuristic_ids


def test_knockout_ends_with_one_champion(field):
    t = services.create_tournament(name="k", game="port_royal", seats=2, bot_versions=field, format="knockout",
                                   games_per_pairing=2, seed=7)
    play_out(t)
    assert t.status == Tournament.Status.FINISHED
    rounds = t.plan["rounds"]
    assert [len(r["groups"]) for r in rounds] == [3, 1, 1]
    assert [len(r["byes"]) for r in rounds] == [0, 1, 0]
    champion = t.plan["champion"]
    assert champion in {v.pk for v in field if v.builtin_name == "heuristic"}
    # The champion played (and was never knocked out) in every round it was not on a bye.
    for r in rounds:
        assert champion in r["byes"] or any(champion in g for g in r["groups"])


def test_a_ladder_keeps_matches_going_until_its_budget(field, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_PARALLEL": 2}
    t = services.create_tournament(name="l", game="port_royal", seats=3, bot_versions=field, format="ladder",
                                   max_matches=7, seed=1)
    assert t.matches.count() == 2  # the matchmaker keeps two going
    first_two = [set(m.seats.values_list("bot_version_id", flat=True)) for m in t.matches.all()]
    assert not first_two[0] & first_two[1]  # a bot plays one ladder match at a time
    play_out(t)
    assert t.status == Tournament.Status.FINISHED and t.matches.count() == 7
    games = [t.matches.filter(seats__bot_version=v).count() for v in field]
    assert max(games) - min(games) <= 1  # bots with few games are picked first


def test_stopping_a_ladder_drops_its_queued_matches(field):
    t = services.create_tournament(name="l", game="port_royal", seats=2, bot_versions=field, format="ladder")
    services.stop_tournament(t)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and not t.matches.filter(status="queued").exists()


def test_unknown_format_is_refused(field):
    with pytest.raises(services.TournamentError, match="unknown tournament format"):
        services.create_tournament(name="x", game="port_royal", seats=2, bot_versions=field, format="league")


def test_the_reconciler_advances_a_tournament_left_idle(field):
    t = services.create_tournament(name="s", game="port_royal", seats=2, bot_versions=field, format="swiss",
                                   rounds=2, seed=4)
    for match in t.matches.all():
        pipeline.run_match(match.pk)
    # As if the worker that stored the last match of round 1 died before it created round 2.
    Match.objects.filter(tournament=t, round=2).delete()
    t.refresh_from_db()
    t.plan["rounds"] = t.plan["rounds"][:1]
    t.save()
    pipeline.reconcile_matches()
    assert t.matches.filter(round=2).count() == 3
