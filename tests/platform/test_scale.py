"""Reads that stay cheap at scale: pages of leaderboards and lists, keyset links, capped histories, no log
in lists, query counts that do not grow with the rows; and the scale data set and benchmark commands."""
from __future__ import annotations

import io
import json
import os

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from players.models import Player
from players.services import system_player
from ratings.models import BracketRating, GameLock, Rating, RatingChange
from ratings.selectors import HISTORY_POINTS, histories, leaderboard, rating_history
from ratings.services import rate_match
from tournaments.models import Entry, Match, MatchLog, MatchSeat, Tournament
from tournaments.running.pipeline import save_match_log
from tournaments.selectors import match_log

LOG = {"format": 1, "game": "port_royal", "moves": [[0, 0, 1]] * 50, "outcome": {"ranks": [0, 1]}}
# The smoke test's data set (bounded: a few seconds on SQLite).
SEED_VERSIONS = int(os.environ.get("ARENA_SCALE_TEST_VERSIONS", 50))
SEED_MATCHES = int(os.environ.get("ARENA_SCALE_TEST_MATCHES", 500))


def versions(n: int, owner=None, game="port_royal") -> list[BotVersion]:
    owner = owner or Player.objects.create(username="carol")
    return [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game=game, name=f"bot{i}"), number=1,
                                      kind="upload", status="valid") for i in range(n)]


def rated_board(n: int) -> list[BotVersion]:
    """``n`` versions with distinct ratings (version i has mu 30 - i) and one rated game each."""
    vs = versions(n)
    for i, v in enumerate(vs):
        Rating.objects.create(bot_version=v, game="port_royal", ruleset="standard", mu=30 - i, sigma=1, games=1)
    return vs


def match_with_seats(vs, tournament=None, log=LOG) -> Match:
    match = Match.objects.create(game="port_royal", seed=1, status=Match.Status.FINISHED, tournament=tournament,
                                 num_moves=50)
    if log is not None:
        save_match_log(match.pk, log)
    for seat, v in enumerate(vs):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=v, rank=seat, score=0)
    return match


def log_read(queries) -> list[str]:
    """The SQL statements that read the match log table."""
    table = connection.ops.quote_name(MatchLog._meta.db_table)
    return [q["sql"] for q in queries if table in q["sql"]]


@pytest.mark.django_db
def test_leaderboard_pages_cover_the_board_once_in_order():
    vs = rated_board(7)
    client = APIClient()
    seen, url = [], "/api/leaderboards/port_royal/?limit=3"
    while url:
        page = client.get(url).json()
        assert page["count"] == 7 and page["game"] == "port_royal"
        seen += page["results"]
        url = page["next"]
    assert [r["bot_version"] for r in seen] == [v.pk for v in vs]
    assert [r["place"] for r in seen] == list(range(1, 8))
    assert client.get("/api/leaderboards/port_royal/?limit=3&offset=3").json()["previous"] is not None


@pytest.mark.django_db
def test_leaderboard_search_finds_a_bot_with_its_place_on_the_whole_board():
    vs = rated_board(12)
    Bot.objects.filter(pk=vs[9].bot_id).update(name="needle")
    page = APIClient().get("/api/leaderboards/port_royal/?search=NEEDLE").json()
    assert page["count"] == 1
    assert [(r["bot_version"], r["place"], r["label"]) for r in page["results"]] == [(vs[9].pk, 10, "carol/needle v1")]
    html = Client().get("/games/port_royal/?q=needle").content.decode()
    assert "carol/needle v1" in html and "carol/bot0 v1" not in html
    assert APIClient().get("/api/leaderboards/port_royal/?search=" + "x" * 65).status_code == 400
    # A NUL (PostgreSQL refuses it in a query): a 400 in the API, dropped from the page's lenient search box.
    assert APIClient().get("/api/leaderboards/port_royal/?search=nee%00dle").json()["fields"] == {
        "search": ["Null characters are not allowed."]}
    assert "carol/needle v1" in Client().get("/games/port_royal/?q=nee%00dle").content.decode()


@pytest.mark.django_db
def test_leaderboard_page_shows_a_hundred_rows_a_page_with_a_pager():
    rated_board(105)
    first = Client().get("/games/port_royal/").content.decode()
    assert "carol/bot99 v1" in first and "carol/bot100 v1" not in first and "page 1 of 2" in first
    second = Client().get("/games/port_royal/?page=2").content.decode()
    assert "carol/bot100 v1" in second and "<td>105</td>" in second and "carol/bot0 v1<" not in second


@pytest.mark.django_db
def test_a_cached_board_changes_with_the_next_rated_match():
    vs = rated_board(3)
    client = APIClient()
    assert [r["games"] for r in client.get("/api/leaderboards/port_royal/").json()["results"]] == [1, 1, 1]
    with transaction.atomic():
        rate_match(match_with_seats([vs[2], vs[0]]), "standard")
    results = client.get("/api/leaderboards/port_royal/").json()["results"]
    assert sorted(r["games"] for r in results) == [1, 2, 2]
    assert [r["bot_version"] for r in results] == [r.bot_version_id for r in leaderboard("port_royal")
                                                   .select_related(None).only("bot_version_id")]


@pytest.mark.django_db
def test_matches_page_by_key_next_and_previous():
    vs = versions(2)
    ids = sorted((match_with_seats(vs).pk for _ in range(12)), reverse=True)
    client = APIClient()
    pages, url = [], "/api/matches/?limit=5"
    while url:
        page = client.get(url).json()
        assert page["count"] == 12
        pages.append(page)
        url = page["next"]
    assert [[m["id"] for m in p["results"]] for p in pages] == [ids[:5], ids[5:10], ids[10:]]
    assert "before=" in pages[0]["next"] and pages[0]["previous"] is None
    back = client.get(pages[2]["previous"]).json()
    assert [m["id"] for m in back["results"]] == ids[5:10] and "after=" in pages[2]["previous"]
    assert client.get(back["previous"]).json()["results"] == pages[0]["results"]
    assert client.get("/api/matches/?before=x").status_code == 400


@pytest.mark.django_db
def test_histories_are_capped_and_keep_their_first_and_last_points():
    vs = versions(2)
    long, short = [Rating.objects.create(bot_version=v, game="port_royal", mu=25, sigma=8, games=0) for v in vs]
    matches = [Match.objects.create(game="port_royal", seed=1) for _ in range(250)]
    RatingChange.objects.bulk_create(
        [RatingChange(rating=long, match=m, sequence=i + 1, rank=0, mu_before=i, sigma_before=1, mu_after=i + 1,
                      sigma_after=1) for i, m in enumerate(matches)]
        + [RatingChange(rating=short, match=m, sequence=i + 1, rank=1, mu_before=0, sigma_before=1, mu_after=i,
                        sigma_after=1) for i, m in enumerate(matches[:5])])
    capped = rating_history(long)
    assert 3 <= len(capped) <= HISTORY_POINTS
    assert capped[0]["sequence"] == 1 and capped[-1]["sequence"] == 250 and capped[-1]["mu"] == 250
    steps = {b["sequence"] - a["sequence"] for a, b in zip(capped, capped[1:-1])}
    assert len(steps) == 1  # evenly spaced (the last point closes the series)
    assert len(rating_history(long, max_points=None)) == 250
    assert [h["sequence"] for h in rating_history(long, last=3)] == [248, 249, 250]
    small = histories([(vs[0].pk, long.pk), (vs[1].pk, short.pk)], max_points=10)
    assert len(small[vs[0].pk]) <= 10 and small[vs[0].pk][-1]["sequence"] == 250
    assert [h["sequence"] for h in small[vs[1].pk]] == [1, 2, 3, 4, 5] and small[vs[1].pk][0]["place"] == 2
    long.games = 250
    long.save()
    row = APIClient().get("/api/leaderboards/port_royal/?history=1").json()["results"][0]
    assert row["bot_version"] == vs[0].pk and len(row["history"]) == len(capped)


@pytest.mark.django_db
def test_lists_never_read_the_match_log_and_their_queries_do_not_grow_with_rows(builtin_versions):
    vs = [builtin_versions["random"], builtin_versions["heuristic"]]
    tournament = Tournament.objects.create(name="T", game="port_royal", seats_per_match=2, rated=True,
                                           ruleset="standard")
    for v in vs:
        Entry.objects.create(tournament=tournament, bot_version=v)
    bot = vs[0].bot_id
    urls = ["/api/matches/", f"/api/matches/?tournament={tournament.pk}", "/api/tournaments/",
            f"/api/tournaments/{tournament.pk}/", f"/tournaments/{tournament.pk}/", "/tournaments/", f"/bots/{bot}/",
            "/games/port_royal/", "/api/leaderboards/port_royal/?history=1", "/", "/api/bots/"]

    def counts() -> dict[str, int]:
        cache.clear()  # compare cold reads (a cached board costs fewer queries still)
        out = {}
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                assert Client().get(url).status_code == 200, url
            assert log_read(queries.captured_queries) == [], url
            out[url] = len(queries)
        return out

    def play(n: int) -> None:
        for _ in range(n):
            with transaction.atomic():
                rate_match(match_with_seats(vs, tournament), "standard")

    play(2)
    few = counts()
    play(10)
    Tournament.objects.bulk_create([Tournament(name=f"x{i}", game="port_royal", seats_per_match=2) for i in range(6)])
    assert counts() == few


@pytest.mark.django_db
def test_match_detail_and_log_still_serve_the_log(builtin_versions):
    match = match_with_seats([builtin_versions["random"], builtin_versions["heuristic"]])
    client = APIClient()
    assert client.get(f"/api/matches/{match.pk}/").json()["num_moves"] == 50
    assert len(client.get(f"/api/matches/{match.pk}/log/").json()["moves"]) == 50


@pytest.mark.django_db(transaction=True)
def test_seedscale_makes_a_consistent_data_set_and_benchsite_times_every_endpoint():
    out = io.StringIO()
    call_command("seedscale", versions=SEED_VERSIONS, matches=SEED_MATCHES, tournaments=10, pool=4, batch=200,
                 stdout=out, verbosity=0)
    report = json.loads(out.getvalue())
    assert report["matches"] == SEED_MATCHES and report["versions"] == SEED_VERSIONS
    assert BotVersion.objects.filter(kind="upload").count() == SEED_VERSIONS
    assert Match.objects.filter(status="finished", rated=True, stored_log__isnull=False).count() == SEED_MATCHES
    assert MatchSeat.objects.count() == RatingChange.objects.count() == 4 * SEED_MATCHES
    assert GameLock.objects.get(game="port_royal").sequence == SEED_MATCHES
    # Every chain is whole: each change starts where the previous ended; the rating is its last change.
    for rating in Rating.objects.all():
        changes = list(rating.changes.order_by("sequence").values_list("mu_before", "mu_after", "sigma_after"))
        assert rating.games == len(changes) > 0
        assert all(a[1] == b[0] for a, b in zip(changes, changes[1:]))
        assert (rating.mu, rating.sigma) == pytest.approx(changes[-1][1:])
    # Four seats a match: each version rated only here has the same rating in the 3-4 player bracket.
    assert {(b.bot_version_id, b.mu, b.games) for b in BracketRating.objects.filter(bracket="3-4")} == {
        (r.bot_version_id, r.mu, r.games) for r in Rating.objects.all()}
    # A seeded match's log is a real one: it replays to the seats' stored ranks.
    from engines.match import MatchLog, replay

    match = Match.objects.order_by("?").first()
    _, outcome = replay(MatchLog.from_dict(match_log(match)))
    assert list(outcome.ranks) == list(match.seats.order_by("seat").values_list("rank", flat=True))
    # New rows get fresh ids after the explicit ones.
    assert Player.objects.create(username="after-seed").pk > Player.objects.exclude(username="after-seed").count() - 1

    out = io.StringIO()
    call_command("benchsite", requests=2, stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    names = {line["endpoint"] for line in lines}
    assert {"home", "api leaderboard history", "bot page built-in random", "api matches", "match page",
            "tournament page", "api match log"} <= names
    for line in lines:
        assert line["status"] == 200 and line["bytes"] > 0 and line["requests"] == 2, line
        assert 0 < line["p50_ms"] <= line["p95_ms"] <= line["max_ms"]


@pytest.mark.django_db
def test_a_cache_that_is_away_only_makes_the_board_slower():
    vs = rated_board(3)
    away = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": "redis://127.0.0.1:1/0"}}  # nothing listens on port 1: refused at once
    with override_settings(CACHES=away):
        page = APIClient().get("/api/leaderboards/port_royal/").json()
        assert [r["bot_version"] for r in page["results"]] == [v.pk for v in vs]
        assert Client().get("/games/port_royal/").status_code == 200


def test_the_wsgi_application_freezes_its_start_up_objects_and_serves():
    """Loading the site's WSGI application (gunicorn, runserver, benchsite) loads every view and moves what
    start-up loaded out of the cyclic collector's sight, so full collections stay short; the site still
    answers."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = ("import gc, sys, io; sys.path[:0] = ['platform', '.']\n"
              "assert gc.get_freeze_count() == 0\n"
              "import arena.wsgi, web.views\n"
              "frozen = gc.get_freeze_count()\n"
              "seen = []\n"
              "body = arena.wsgi.application({'REQUEST_METHOD': 'GET', 'PATH_INFO': '/api/games/', 'SERVER_NAME': "
              "'localhost', 'SERVER_PORT': '80', 'wsgi.input': io.BytesIO(), 'wsgi.url_scheme': 'http'}, "
              "lambda status, headers: seen.append(status))\n"
              "import json; print(json.dumps([frozen, seen[0], b'port_royal' in b''.join(body)]))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DJANGO_ALLOWED_HOSTS": "localhost"})
    assert out.returncode == 0, out.stderr[-2000:]
    frozen, status, served = json.loads(out.stdout)
    assert frozen > 10_000 and status == "200 OK" and served, out.stdout


@pytest.mark.django_db
def test_the_match_pipelines_tables_have_no_index_another_one_already_serves():
    """Every index of a match, a seat and a rating change is written as the pipeline stores them: an index
    whose columns begin another index's (a foreign key's own beside a composite, PostgreSQL's ``_like``
    twin of a text column's) is write cost for nothing."""
    tables = [Match._meta.db_table, MatchSeat._meta.db_table, RatingChange._meta.db_table]
    with connection.cursor() as cursor:
        for name in tables:
            constraints = connection.introspection.get_constraints(cursor, name)
            indexes = {key: tuple(c["columns"]) for key, c in constraints.items()
                       if (c["index"] or c["unique"]) and not c["primary_key"]}
            assert len(indexes) >= 2, name  # introspection found this table's indexes
            for key, columns in indexes.items():
                served_by = [other for other, theirs in indexes.items()
                             if other != key and theirs[:len(columns)] == columns]
                assert not served_by, f"{name}: {key} {columns} is served by {served_by}"
