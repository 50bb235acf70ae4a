"""The match pipeline's cost and its stored logs: a fixed number of statements to claim, store, rate and
advance a match whatever the history, and old logs moved into their own compact table."""
from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from engines.logcodec import COMPACT, WHOLE, decode
from engines.match import MatchLog as EngineLog
from engines.bots import BotFault, RandomBot
from engines.match import MatchLimits, play_match, replay
from engines.players import make_bot
from players.services import system_player
from ratings.models import Rating, RatingChange
from tournaments import services
from tournaments.running import pipeline
from tournaments.models import Match, MatchLog
from tournaments.selectors import match_log

# The claim and the match with its seats 2; the store transaction: (savepoint), conditional store, log, seats,
# the game's lock and turn 2, ratings and bracket ratings read 2, then changes, ratings update, bracket
# ratings update, (release); the advance check 1.
STATEMENTS_PER_RATED_MATCH = 15
# PostgreSQL sends them in round trips: the claim with the read, (savepoint), the store with the lock and the
# ratings' read, the rating writes, (release), the advance check.
ROUND_TRIPS_PER_RATED_MATCH = 6


def statements(queries) -> list[str]:
    """The statements of captured queries (PostgreSQL sends several in one query string), less PostgreSQL's
    ``SET LOCAL synchronous_commit`` (a setting of the transaction they are sent in)."""
    return [sql for q in queries.captured_queries for sql in q["sql"].split("; ") if not sql.startswith("SET LOCAL")]


def four_versions():
    owner = system_player()
    return [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game="port_royal", name=f"p{i}"), number=1,
                                      kind="builtin", builtin_name=("random", "heuristic")[i % 2], status="valid")
            for i in range(4)]


@pytest.mark.django_db
def test_a_rated_four_seat_match_costs_a_fixed_number_of_queries_whatever_the_history():
    tournament = services.create_tournament(name="q", game="port_royal", seats=4, games_per_pairing=8, seed=3,
                                            bot_versions=four_versions(), rated=True)
    ids = list(tournament.matches.order_by("id").values_list("pk", flat=True))
    counts, trips = [], []
    for match_id in ids:
        with CaptureQueriesContext(connection) as queries:
            assert pipeline.run_match(match_id) == "finished"
        counts.append(len(statements(queries)))
        trips.append(len(queries))
        if match_id != ids[0]:  # one statement locks the game's ratings and takes the turn
            assert sum(sql.startswith('UPDATE "ratings_gamelock"') for sql in statements(queries)) == 1
    # The game's first rated match creates its lock row and the four ratings; then every match costs
    # the same, but the last, which finishes the tournament.
    assert counts[0] > STATEMENTS_PER_RATED_MATCH
    assert counts[1:-1] == [STATEMENTS_PER_RATED_MATCH] * (len(ids) - 2), counts
    if connection.vendor == "postgresql":
        assert trips[1:-1] == [ROUND_TRIPS_PER_RATED_MATCH] * (len(ids) - 2), trips
    assert RatingChange.objects.count() == 4 * len(ids)
    assert set(Rating.objects.values_list("games", flat=True)) == {len(ids)}
    tournament.refresh_from_db()
    assert tournament.status == tournament.Status.FINISHED  # the last match advanced it


@pytest.mark.django_db
def test_the_stored_log_is_compact_and_decodes_to_the_played_log(builtin_versions):
    tournament = services.create_tournament(name="s", game="port_royal", seats=2, games_per_pairing=4, seed=5,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
        log = match_log(match)
        replay(EngineLog.from_dict(log))  # the outcome it recorded
        stored = MatchLog.objects.get(match=match).data
        assert len(stored) < len(json.dumps(log)) / 10
        seats = list(match.seats.order_by("seat"))
        again = play_match("port_royal", [make_bot(s.bot_version.builtin_name, "port_royal", seed=match.seed * 10 + s.seat)
                                          for s in seats], match.seed, seat_names=[s.bot_version.label for s in seats])
        assert [m[:2] for m in log["moves"]] == json.loads(json.dumps([m[:2] for m in again.moves]))
        assert log["outcome"] == json.loads(json.dumps(again.outcome))


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_old_logs_into_their_table_and_back(builtin_versions):
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("tournaments")
    ours = next(key for key in executor.loader.disk_migrations if key[0] == "tournaments" and key[1].endswith("_match_log"))
    before = executor.loader.get_migration(*ours).dependencies  # the state with logs in the match rows
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldMatch = old.get_model("tournaments", "Match")
    played = play_match("top_race", [make_bot("random", "top_race", seed=s) for s in range(3)], 4, seat_names=list("abc"))
    replayable = json.loads(json.dumps(played.to_dict()))
    broken = dict(replayable, moves=replayable["moves"][:5])  # one the engine cannot finish: kept whole
    ids = [OldMatch.objects.create(game="top_race", seed=4, status="finished", log=log).pk
           for log in (replayable, broken)]
    OldMatch.objects.create(game="top_race", seed=5)  # no log yet
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
        stored = {m.match_id: bytes(m.data) for m in MatchLog.objects.all()}
        assert sorted(stored) == ids
        assert decode(stored[ids[0]]) == replayable and decode(stored[ids[1]]) == broken
        assert [stored[i][0] & 0x0F for i in ids] == [COMPACT, WHOLE]  # the compact form where it replays
        assert match_log(Match.objects.get(pk=ids[0])) == replayable
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        assert old.get_model("tournaments", "Match").objects.get(pk=ids[0]).log == replayable
    finally:
        MigrationExecutor(connection).migrate(latest)


class GarbageEveryThird(RandomBot):
    """Answers garbage at every third decision (a fault each time) and writes on stderr."""

    calls = 0

    def act(self, observation, legal_actions, time_left_ms=None):
        self.calls += 1
        if self.calls % 3 == 0:
            raise BotFault("garbage", f"printed x{self.calls}", stderr_tail="Traceback (most recent call last)")
        return super().act(observation, legal_actions, time_left_ms)


@pytest.mark.django_db
def test_faults_forfeits_and_stderr_reach_the_seats(builtin_versions):
    tournament = services.create_tournament(name="f", game="port_royal", seats=2, games_per_pairing=1, seed=8,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    match = tournament.matches.get()
    token = pipeline.claim_match(match.pk, "w")
    played = play_match("port_royal", [GarbageEveryThird(1), make_bot("heuristic", "port_royal", 2)], match.seed,
                        match.options, limits=MatchLimits(max_faults=3))
    assert pipeline.store_result(match, token, played.to_dict()) == "finished"
    faulty, other = match.seats.order_by("seat")
    assert (faulty.faults, faulty.forfeited, faulty.rank) == (3, True, 1)
    assert [f["kind"] for f in faulty.fault_log] == ["garbage"] * 3 and "Traceback" in faulty.stderr_tail
    assert (other.faults, other.forfeited, other.fault_log, other.stderr_tail, other.rank) == (0, False, [], "", 0)
    assert match_log(match)["faults"] == json.loads(json.dumps(played.faults))


@pytest.mark.django_db
def test_a_decoded_log_is_kept_until_the_stored_bytes_change(builtin_versions, monkeypatch):
    from tournaments import selectors

    tournament = services.create_tournament(name="c", game="port_royal", seats=2, games_per_pairing=1, seed=6,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    match = tournament.matches.get()
    pipeline.run_match(match.pk)
    replays = []
    monkeypatch.setattr(selectors, "decode", lambda data: replays.append(1) or decode(data))
    first = match_log(Match.objects.get(pk=match.pk))
    assert match_log(Match.objects.get(pk=match.pk)) == first and len(replays) == 1
    changed = dict(first, stderr={"0": "new"})
    pipeline.save_match_log(match.pk, changed)
    assert match_log(Match.objects.get(pk=match.pk)) == changed and len(replays) == 2
