"""The platform's rated ladder: one bot per author at a table, nobody starves, ratings only from rated play.

ARENA_LADDER_TEST_MATCHES sets the size of the long run (default 240 ladder matches, about 20 s)."""
from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from bots.models import Bot, BotVersion
from players.models import Player
from players.services import system_player
from ratings.models import Rating, RatingChange
from tournaments import services
from tournaments.competition import ladder
from tournaments.competition import matchmaker
from tournaments.running import pipeline
from tournaments.models import Ladder, Match, MatchSeat, Tournament

MATCHES = int(os.environ.get("ARENA_LADDER_TEST_MATCHES", 240))


def make_bot(owner, name: str, kind: str, game: str = "port_royal", number: int = 1) -> BotVersion:
    bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=name)
    return BotVersion.objects.create(bot=bot, number=number, kind="builtin", builtin_name=kind, status="valid")


@pytest.fixture
def field(db):
    """12 Port Royal bots of 4 authors: cheap built-in players under the authors' names."""
    authors = [Player.objects.create(username=f"author{i}") for i in range(4)]
    versions = []
    for a, author in enumerate(authors):
        for b in range(3):
            kind = "heuristic" if (a + b) % 3 == 0 else "random"
            versions.append(make_bot(author, f"bot{b}", kind))
    return versions


@pytest.fixture
def fast_ladder(settings):
    settings.ARENA = {**settings.ARENA, "LADDER_MATCHES_PER_MINUTE": 10**6, "LADDER_MAX_CONCURRENT": 3}


def author(version_id: int) -> int:
    return BotVersion.objects.select_related("bot").get(pk=version_id).bot.owner_id


def test_a_long_ladder_is_fair_and_the_only_source_of_ratings(field, fast_ladder):
    """12 bots of 4 authors, MATCHES ladder matches run three at a time, friendly tournaments in between."""
    lad = ladder.start_ladder("port_royal", seed=3)
    tournament = lad.tournament
    keys = [v.pk for v in field]
    weights = {s: w for s, w in ladder.ladder_weights("port_royal").items() if s <= 4}  # 4 authors: at most 4 seats
    bound = matchmaker.bound(len(keys), weights)
    assert bound == matchmaker.patience(12, weights) + 12 < 30

    seen: set[int] = set()
    waiting = Counter()  # per bot: ladder matches created in a row while it was free, without it
    longest = Counter()
    friendly_ids: list[int] = []
    rng = random.Random(5)

    def account(open_before: set[int]) -> set[int]:
        """Check the matches created since the last look, in order: who was free, who sat."""
        new = list(tournament.matches.exclude(pk__in=seen).order_by("id").values_list("pk", flat=True))
        busy = set(MatchSeat.objects.filter(match_id__in=open_before).values_list("bot_version_id", flat=True))
        for pk in new:
            seated = list(MatchSeat.objects.filter(match_id=pk).values_list("bot_version_id", flat=True))
            assert not set(seated) & busy, "a bot sat at two tables at once"
            for key in keys:
                if key in seated:
                    waiting[key] = 0
                elif key not in busy:
                    waiting[key] += 1
                    longest[key] = max(longest[key], waiting[key])
            busy |= set(seated)
            seen.add(pk)
        return set(new)

    open_matches = account(set())
    assert len(open_matches) == 3
    played = 0
    while played < MATCHES:
        # Finish one open match (not always the oldest, as workers would), then see what the ladder made.
        pk = rng.choice(sorted(open_matches))
        assert pipeline.run_match(pk) == "finished"
        played += 1
        open_matches.discard(pk)
        open_matches |= account(open_matches)
        if played % 60 == 30:  # a friendly tournament of one author's bots in between: never rated
            owner = field[(played // 60) % 4].bot.owner
            friendly = services.create_tournament(
                name="friendly", game="port_royal", seats=3, games_per_pairing=1, created_by=owner,
                bot_versions=[v for v in field if v.bot.owner_id == owner.pk])
            for match in friendly.matches.all():
                assert pipeline.run_match(match.pk) == "finished"
                friendly_ids.append(match.pk)

    ladder_matches = list(tournament.matches.filter(status=Match.Status.FINISHED).prefetch_related("seats__bot_version__bot"))
    assert len(ladder_matches) == MATCHES
    sizes = Counter(m.seats.count() for m in ladder_matches)
    # No table with two bots of one author.
    for match in ladder_matches:
        owners = [s.bot_version.bot.owner_id for s in match.seats.all()]
        assert len(owners) == len(set(owners)), f"match {match.pk}: two bots of one author"
    # Every bot within the stated bound, and every bot played.
    print(f"ladder: {MATCHES} matches, longest free wait {max(longest.values())}, bound {bound}, sizes {dict(sizes)}")
    assert max(longest.values()) < bound, (dict(longest), bound)
    assert all(MatchSeat.objects.filter(match__tournament=tournament, bot_version_id=k).exists() for k in keys)
    # Table sizes follow the weights (2:3:4 seats as 1:2:2).
    assert set(sizes) == {2, 3, 4}
    for size, weight in weights.items():
        assert abs(sizes[size] - MATCHES * weight / sum(weights.values())) <= 2, sizes
    # Ratings only from ladder matches: every ladder match rated once, no friendly match rated.
    assert all(m.rated and m.ruleset == "standard" for m in ladder_matches)
    assert not Match.objects.filter(pk__in=friendly_ids, rated=True).exists()
    assert friendly_ids and not RatingChange.objects.filter(match_id__in=friendly_ids).exists()
    assert set(RatingChange.objects.values_list("match__tournament_id", flat=True)) == {tournament.pk}
    for rating in Rating.objects.filter(game="port_royal"):
        seats = MatchSeat.objects.filter(bot_version=rating.bot_version, match__in=ladder_matches).count()
        assert rating.games == seats
        # The leaderboards by player count too: the version's bracket ratings add up to its ladder matches.
        assert sum(rating.bot_version.bracket_ratings.values_list("games", flat=True)) == seats
    # The ratings separate the field: every heuristic bot ends above every random one (given enough matches).
    mu = {kind: [r.mu for r in Rating.objects.filter(bot_version__builtin_name=kind)] for kind in ("heuristic", "random")}
    if MATCHES >= 200:
        assert min(mu["heuristic"]) > max(mu["random"])


def test_only_the_newest_valid_version_of_a_bot_plays(field, fast_ladder, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_MAX_CONCURRENT": 1}
    lad = ladder.start_ladder("port_royal")
    old = field[0]
    for _ in range(8):  # the old version plays until a newer one is valid
        pipeline.run_match(lad.tournament.matches.filter(status=Match.Status.QUEUED).first().pk)
    before = set(lad.tournament.matches.values_list("pk", flat=True))
    assert MatchSeat.objects.filter(match__tournament=lad.tournament, bot_version=old).exists()
    newer = make_bot(old.bot.owner, old.bot.name, "heuristic", number=2)
    pending = BotVersion.objects.create(bot=old.bot, number=3, kind="builtin", builtin_name="random", status="pending")
    field_now = ladder.active_versions("port_royal")
    assert newer in field_now and old not in field_now and pending not in field_now and len(field_now) == 12
    for _ in range(24):
        match = lad.tournament.matches.filter(status=Match.Status.QUEUED).first()
        pipeline.run_match(match.pk)
    seated = set(MatchSeat.objects.filter(match__tournament=lad.tournament).exclude(match_id__in=before)
                 .values_list("bot_version_id", flat=True))
    assert newer.pk in seated and old.pk not in seated and pending.pk not in seated


def test_the_ladder_keeps_its_rate_and_survives_restarts(field, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_MATCHES_PER_MINUTE": 5, "LADDER_MAX_CONCURRENT": 2}
    lad = ladder.start_ladder("port_royal")
    t = lad.tournament
    assert t.matches.count() == 2  # at most two open at once
    # Ticks (the scheduler, a second scheduler, a restart) find nothing more to do.
    for _ in range(3):
        assert ladder.tick() == 0
    assert ladder.start_ladder("port_royal").tournament_id == t.pk  # idempotent: the same ladder goes on
    for match in list(t.matches.all()):
        pipeline.run_match(match.pk)
    for _ in range(5):
        for match in list(t.matches.filter(status=Match.Status.QUEUED)):
            pipeline.run_match(match.pk)
        ladder.tick()
    assert t.matches.count() == 5  # five a minute, however many free slots
    ladder.stop_ladder("port_royal")
    assert not Ladder.objects.get(game="port_royal").active
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert ladder.tick() == 0
    resumed = ladder.start_ladder("port_royal")
    assert resumed.active and resumed.tournament_id != t.pk and resumed.tournament.rated


def test_builtins_are_each_their_own_author(db):
    from bots.services import register_builtin_bots

    versions = register_builtin_bots(["port_royal"])
    assert len({ladder.author_of(v) for v in versions}) == len(versions) >= 2
    assert all(v.bot.owner == system_player() for v in versions)


def test_tables_use_the_rated_ruleset_of_their_size():
    catan = ladder.table_rules("catan")
    assert sorted(catan) == [3, 4, 5, 6] and 2 not in catan  # 2-player Catan is not rated: never on the ladder
    assert {catan[3][0], catan[4][0]} == {"standard"} and {catan[5][0], catan[6][0]} == {"five_six_players"}
    assert sorted(ladder.ladder_weights("port_royal")) == [2, 3, 4, 5]
    assert ladder.table_rules("alhambra")[2][0] == "two_players"


def test_the_matchmaker_seeds_the_overdue_then_the_needy_and_fills_from_the_mu_window():
    c = matchmaker.Candidate
    free = [c(1, "a", 25, 8, 0, 0), c(2, "a", 26, 2, 9, 1), c(3, "b", 40, 2, 9, 1), c(4, "c", 24, 2, 9, 1),
            c(5, "d", 10, 2, 9, 1)]
    rng = random.Random(1)
    table = matchmaker.pick_table(free, 3, patience=5, window=3.0, rng=rng, distinct_authors=True)
    assert [x.key for x in table] == [1, 4, 3]  # the new bot; 2 shares its author; 4 in the window; 3 nearer than 5
    overdue = [*free[:4], c(5, "d", 10, 2, 9, 7)]
    table = matchmaker.pick_table(overdue, 2, patience=5, window=3.0, rng=rng, distinct_authors=True)
    assert table[0].key == 5  # waited longest: seeded first
    assert matchmaker.pick_table(free[:2], 2, patience=5, window=3.0, rng=rng, distinct_authors=True) is None
    assert matchmaker.next_size({2: 1, 4: 3}, {2: 0, 4: 0}, [2, 4]) == 4
    assert matchmaker.next_size({2: 1, 4: 3}, {2: 0, 4: 3}, [2, 4]) == 2
    assert matchmaker.next_size({2: 1, 4: 3}, {2: 0, 4: 0}, [2]) == 2


def test_the_bot_page_shows_the_ladder_queue(field, fast_ladder, client):
    bot = field[4].bot
    assert "ladder-queue" not in client.get(f"/bots/{bot.pk}/").content.decode()
    ladder.start_ladder("port_royal")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    queue = ladder.ladder_queue(bot)
    assert queue["version"] == field[4] and queue["bound"] == matchmaker.bound(12, {2: 1, 3: 2, 4: 2})
    assert "Port Royal ladder" in page and f"waits at most {queue['bound']} while free" in page


def test_the_api_shows_each_ladder_its_tables_and_bound(field, fast_ladder, client):
    assert client.get("/api/ladders/").json()["count"] == 0
    ladder.start_ladder("port_royal")
    data = client.get("/api/ladders/port_royal/").json()
    assert data["running"] and data["bots"] == 12 and data["matches"] == 3
    assert [(t["players"], t["ruleset"], t["reachable"]) for t in data["tables"]] == [
        (2, "standard", True), (3, "standard", True), (4, "standard", True), (5, "standard", False)]
    assert data["bound"] == matchmaker.bound(12, {2: 1, 3: 2, 4: 2})
    missing = client.get("/api/ladders/catan/")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found" and "port_royal" in missing.json()["detail"]


@pytest.mark.parametrize("trial", range(40))
def test_the_bound_holds_for_random_fields_and_busy_patterns(trial):
    """The matchmaker alone, on random fields (authors, skills, rated games, weights, concurrency) with matches
    that end in random order: no bot free for ``bound`` ladder matches in a row without a seat. (Without the
    overdue rule half of these fields starve a bot: one with many games and a mu far from the rest.)"""
    rng = random.Random(trial)
    n_authors = rng.randint(2, 6)
    n = rng.randint(n_authors, 16)
    authors = [str(i % n_authors) for i in range(n)]
    mu = [rng.uniform(0, 50) for _ in range(n)]
    games = [rng.choice([0, 0, 5, 50, 500]) for _ in range(n)]
    weights = {s: float(rng.randint(1, 3)) for s in range(2, n_authors + 1) if rng.random() < 0.7} or {2: 1.0}
    concurrency = rng.randint(1, 4)
    bound = matchmaker.bound(n, weights)
    patience = matchmaker.patience(n, weights)
    last = [-1] * n  # index of the last match each bot sat in
    total, played, open_tables = 0, Counter(), []
    run, longest = [0] * n, 0
    for _ in range(300):
        if open_tables:
            open_tables.pop(rng.randrange(len(open_tables)))
        busy = {k for table in open_tables for k in table}
        free = [matchmaker.Candidate(k, authors[k], mu[k], 8.0 / (1 + games[k]) ** 0.5, games[k],
                                     total - 1 - last[k] if last[k] >= 0 else total)
                for k in range(n) if k not in busy]
        tables = matchmaker.plan_tables(free, weights, played, concurrency - len(open_tables), patience=patience,
                                        window=5.0, rng=rng, distinct_authors=True)
        for table in tables:
            assert len({authors[k] for k in table}) == len(table)
            for k in range(n):
                if k in table:
                    run[k], last[k] = 0, total
                    games[k] += 1
                elif k not in busy:
                    run[k] += 1
                    longest = max(longest, run[k])
            busy |= set(table)
            played[len(table)] += 1
            total += 1
            open_tables.append(table)
    assert total > 100 and longest < bound, (longest, bound, n, weights, concurrency)


def test_configured_weights_keep_only_rated_sizes(settings):
    settings.ARENA = {**settings.ARENA, "LADDER_WEIGHTS": {"port_royal": {"2": 1, "4": 3, "7": 1, "3": 0}}}
    assert ladder.ladder_weights("port_royal") == {2: 1.0, 4: 3.0}
    assert ladder.ladder_weights("catan") == {3: 2.0, 4: 3.0, 5: 1.0, 6: 1.0}  # the defaults


def test_the_schedule_page_describes_the_running_ladders(field, fast_ladder, client):
    ladder.start_ladder("port_royal")
    page = client.get("/schedule/").content.decode()
    assert "Port Royal ladder</a>: 12 bots, 3 matches" in page and "4p (standard) ×2" in page and "5p" not in page
    assert f"in any {matchmaker.bound(12, {2: 1, 3: 2, 4: 2})} ladder matches" in page


def test_the_ladder_command_starts_shows_and_stops(field, fast_ladder):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("ladder", "start", "--game", "port_royal", stdout=out)
    assert "port_royal: running" in out.getvalue() and "12 bots" in out.getvalue()
    assert Ladder.objects.get(game="port_royal").tournament.matches.count() == 3
    out = StringIO()
    call_command("ladder", "stop", "--game", "port_royal", stdout=out)
    assert "port_royal: stopped" in out.getvalue()
