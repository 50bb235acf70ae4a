"""A bot's page and its matches in the API: versions with status, rating history, recent matches with
1-based places (paged, never reading match logs), faults linked to their move (details for the owner
only), head-to-head against the opponents it meets most."""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from arena_testing import FAULTY_BOT, faulty_bot_tournament, token_client
from bots import services as bot_services
from players.models import Player
from tournaments.running import pipeline
from tournaments import services as tournament_services
from tournaments.results.bot_record import BotRecord
from tournaments.models import Match, MatchSeat
from tournaments.running.validation import validate_version



@pytest.fixture
def record(db, settings, builtin_versions):
    """alice's bot ``faulty``: validated, then a rated 3-seat tournament against the built-ins, played."""
    settings.ARENA = {**settings.ARENA, "TRUSTED_BOTS": True}  # run in-process: this is about the pages
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    version, tournament = faulty_bot_tournament(alice, builtin_versions, seed=5, games=3)
    return {"alice": alice, "version": version, "bot": version.bot, "tournament": tournament}


def page(client, bot, **params) -> str:
    response = client.get(f"/bots/{bot.pk}/", params)
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, name: str) -> str:
    return html[html.index(f'<section id="{name}">'):][:html[html.index(f'<section id="{name}">'):].index("</section>")]


def as_user(username: str | None) -> Client:
    client = Client()
    if username:
        client.force_login(Player.objects.get_or_create(username=username)[0])
    return client


def test_the_page_shows_versions_rating_history_places_and_head_to_head(record):
    html = page(Client(), record["bot"])
    assert "v1" in section(html, "versions") and "valid" in section(html, "versions")
    assert "<svg" in section(html, "rating-history") and "v1 (standard)" in section(html, "rating-history")
    matches = section(html, "recent-matches")
    tournament_seats = MatchSeat.objects.filter(bot_version=record["version"], match__tournament=record["tournament"])
    for seat in tournament_seats:
        row = matches[matches.index(f'href="/matches/{seat.match_id}/"'):]
        row = row[:row.index("</tr>")]
        assert re.search(rf">{seat.rank + 1} / 3<", row), row  # 1-based place out of 3 seats
    h2h = section(html, "head-to-head")
    for rival in ("heuristic", "random"):
        row = h2h[h2h.index(f">{rival}</a>"):]
        cells = re.findall(r'<td class="num(?: strong)?">([^<]*)</td>', row[:row.index("</tr>")])
        assert cells[0] == "3", cells  # 3 matches together with each: above + below + tied
        assert int(cells[1]) + int(cells[2]) + int(cells[3]) == 3


def test_faults_link_to_their_move_and_only_the_owner_reads_their_detail(record):
    seats = MatchSeat.objects.filter(bot_version=record["version"], faults__gt=0).order_by("match_id")
    moves = [(s.match_id, f["move"] + 1) for s in seats for f in s.fault_log]
    assert len(moves) == 6 and all(s.fault_log[0]["kind"] == "illegal" for s in seats)
    detail = seats[0].fault_log[0]["detail"]
    assert detail
    for who in (None, "bob", "alice"):
        faults = section(page(as_user(who), record["bot"]), "faults")
        for match_id, move in moves:
            assert f'href="/matches/{match_id}/?move={move}"' in faults
        assert "illegal" in faults
        assert (detail in faults) is (who == "alice"), who


def test_validation_matches_are_listed_for_the_owner_only(record):
    validation = Match.objects.filter(purpose="validation", seats__bot_version=record["version"]).distinct()
    assert validation.count() == 2
    for who, shown in ((None, False), ("bob", False), ("alice", True)):
        matches = section(page(as_user(who), record["bot"]), "recent-matches")
        assert all((f'href="/matches/{m.pk}/"' in matches) is shown for m in validation), who
        assert ("validation" in matches) is shown


def test_the_fault_detail_stays_private_in_the_api_too(record):
    url = f"/api/bots/{record['bot'].pk}/matches/"
    public = APIClient().get(url).json()
    assert public["next"] is None and [r["purpose"] for r in public["results"]] == ["tournament"] * 3
    assert all(r["fault_log"] is None and r["faults"] == 2 for r in public["results"])
    own = token_client(record["alice"]).get(url).json()
    assert len(own["results"]) == 5  # with its two validation matches
    faulty = [r for r in own["results"] if r["faults"]]
    assert len(faulty) == 3 and all(len(r["fault_log"]) == 2 and r["fault_log"][0]["detail"] for r in faulty)
    row = public["results"][0]
    seat = MatchSeat.objects.get(match_id=row["match"], seat=row["seat"])
    assert row["place"] == seat.rank + 1 and row["label"] == "alice/faulty v1"
    assert sorted(o["place"] for o in row["opponents"]) == sorted(
        s.rank + 1 for s in MatchSeat.objects.filter(match_id=row["match"]).exclude(pk=seat.pk))
    assert [r["match"] for r in public["results"]] == sorted((r["match"] for r in public["results"]), reverse=True)


def test_the_api_pages_by_match_id_and_refuses_bad_parameters(record):
    url = f"/api/bots/{record['bot'].pk}/matches/"
    everything = [r["match"] for r in APIClient().get(url).json()["results"]]
    seen, page = [], APIClient().get(url, {"limit": "1"}).json()
    while True:
        seen += [r["match"] for r in page["results"]]
        if page["next"] is None:
            break
        assert "before=" in page["next"] and "limit=1" in page["next"]
        page = APIClient().get(page["next"]).json()
    assert seen == everything and len(seen) == 3
    for bad in ({"limit": "0"}, {"limit": "201"}, {"before": "x"}, {"before": "0"}, {"before": "²"}):
        response = APIClient().get(url, bad)
        assert response.status_code == 400 and response.json()["error"] == "invalid", bad


def test_recent_matches_pages_by_match_id_and_keeps_a_match_whole(record, builtin_versions):
    # A match where the bot holds two seats (two versions of it), so a page boundary could split it.
    v2 = bot_services.upload_version(owner=record["alice"], game="port_royal", name="faulty", filename="f.py",
                                     data=FAULTY_BOT)
    assert validate_version(v2.pk) == "valid"
    v2.refresh_from_db()
    t = tournament_services.create_tournament(name="both", game="port_royal", seats=3, seed=9, rated=True,
                                              bot_versions=[record["version"], v2, builtin_versions["random"]])
    for match in t.matches.all():
        pipeline.run_match(match.pk)
    everyone = list(MatchSeat.objects.filter(bot_version__bot=record["bot"], match__purpose="tournament")
                    .order_by("-match_id", "seat").values_list("pk", flat=True))
    assert len(everyone) > len(set(MatchSeat.objects.filter(pk__in=everyone).values_list("match_id", flat=True)))
    for limit in (1, 2, 3):
        seen, before = [], None
        while True:
            rows, before_next = BotRecord(record["bot"], None).recent_matches(before=before, limit=limit)
            seen += [r.seat["id"] for r in rows]
            if before_next is None:
                break
            assert rows  # a page is never empty while older matches remain
            before = before_next
            assert len(seen) <= len(everyone)
        assert seen == everyone, limit
    # The match holding both versions: each row shows the other version among the other seats.
    both = next(r for r in BotRecord(record["bot"], None).recent_matches()[0] if r.match["tournament_id"] == t.pk)
    assert {o["bot_version"] for o in both.opponents} >= {record["version"].pk, v2.pk} - {both.seat["bot_version"]}


def test_head_to_head_counts_places_from_the_seats(record):
    rows = {h.opponent.name: h for h in BotRecord(record["bot"], None).head_to_head()}
    mine = {s.match_id: s.rank for s in MatchSeat.objects.filter(bot_version=record["version"],
                                                                 match__purpose="tournament")}
    for name, h in rows.items():
        theirs = {s.match_id: s.rank for s in MatchSeat.objects.filter(bot_version__bot=h.opponent, match_id__in=mine)}
        assert h.matches == len(theirs) == 3
        assert h.above == sum(mine[m] < r for m, r in theirs.items())
        assert h.below == sum(mine[m] > r for m, r in theirs.items())
        assert h.above + h.below + h.ties == h.matches
    # The owner's view adds the validation matches against the random bot.
    assert {h.opponent.name: h.matches for h in BotRecord(record["bot"], record["alice"]).head_to_head()}["random"] == 5


def test_the_page_reads_no_match_log_and_a_bounded_number_of_queries(record):
    client = as_user("alice")
    page(client, record["bot"])  # warm up (sessions, content types)
    with CaptureQueriesContext(connection) as queries:
        page(client, record["bot"])
    match_reads = [q["sql"] for q in queries if 'FROM "tournaments_match"' in q["sql"]]
    assert match_reads and not any('"tournaments_match"."log"' in sql for sql in match_reads)
    assert not any('"stderr_tail"' in q["sql"] for q in queries)
    assert len(queries) <= 25, [q["sql"][:120] for q in queries]


def test_a_bad_before_is_a_404_and_an_unknown_bot_too(record):
    for bad in ("x", "²", "9" * 30, "-1"):
        assert as_user(None).get(f"/bots/{record['bot'].pk}/", {"before": bad}).status_code == 404, bad
    assert as_user(None).get("/bots/999999/").status_code == 404


def test_the_page_links_to_older_matches_until_there_are_none(record, monkeypatch):
    from web import views

    monkeypatch.setattr(views, "BOT_PAGE_SEATS", 2)
    expected = list(MatchSeat.objects.filter(bot_version=record["version"], match__purpose="tournament")
                    .order_by("-match_id").values_list("match_id", flat=True))
    seen, params = [], {}
    while True:
        matches = section(page(as_user("bob"), record["bot"], **params), "recent-matches")
        seen += [int(m) for m in re.findall(r'<tr><td><a href="/matches/([0-9]+)/">', matches)]
        older = re.search(r'href="\?before=([0-9]+)">older matches', matches)
        if older is None:
            break
        params = {"before": older.group(1)}
        assert f'href="/bots/{record["bot"].pk}/">newest</a>' in section(page(as_user("bob"), record["bot"], **params), "recent-matches")
    assert seen == expected


def test_faults_and_head_to_head_are_kept_at_most_record_seconds(record, builtin_versions, monkeypatch):
    import time

    from tournaments.results import bot_record as bot_selectors

    monkeypatch.setattr(bot_selectors, "RECORD_SECONDS", 30)  # the matches below take a moment on a busy machine
    visitor = BotRecord(record["bot"], None)
    first = visitor.counted_record()
    met = {h.opponent.name: h.matches for h in first["head_to_head"]}
    assert met == {"heuristic": 3, "random": 3}
    more = tournament_services.create_tournament(
        name="second cup", game="port_royal", seats=2, seed=9, games_per_pairing=2, rated=True,
        bot_versions=[record["version"], builtin_versions["random"]])
    for match in more.matches.all():
        assert pipeline.run_match(match.pk) == "finished"
    assert BotRecord(record["bot"], None).counted_record() == first  # kept: counted a moment ago
    later = time.time() + 31
    with monkeypatch.context() as clock:  # 31 s on, as the cache's expiry reads it
        clock.setattr(time, "time", lambda: later)
        again = BotRecord(record["bot"], None).counted_record()
    assert again["at"] > first["at"]
    assert {h.opponent.name: h.matches for h in again["head_to_head"]} == {"heuristic": 3, "random": 5}
    html = section(page(as_user("bob"), record["bot"]), "head-to-head")
    assert "Faults and head to head counted" in html and "at most every 30 seconds" in html
