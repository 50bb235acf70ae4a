"""Open results: the exports of rated matches and ratings parse back to what the database holds."""
import csv
import io
import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

import tournaments.results.export
from ratings.models import BracketRating, Rating, RatingChange
from test_statistics import make_versions, played
from tournaments.models import Match, MatchSeat


@pytest.fixture
def results(db):
    a, b, c = make_versions(["a", "b", "c"])
    rated = [played([a, b], [0, 1], [5, 3.5], 20), played([c, a, b], [1, 0, 1], [4, 9, 4], 44),
             played([b, c], [1, 0], [2, 6], 30)]
    Match.objects.filter(pk=rated[1].pk).update(options={"expedition_cards": False})
    played([a, c], [0, 1], [1, 0], 10, rated=False)  # friendly: never exported
    return rated


def expected_matches():
    """The rated matches as the database has them: {id: (sequence, ruleset, options, moves, seats)}."""
    out = {}
    for m in Match.objects.filter(rated=True):
        seats = [(s.seat, s.bot_version_id, s.rank + 1, s.score) for s in MatchSeat.objects.filter(match=m)
                 .order_by("seat")]
        sequence = RatingChange.objects.filter(match=m).values_list("sequence", flat=True).first()
        out[m.pk] = (sequence, m.ruleset, m.options, m.num_moves, seats)
    return out


def parsed_jsonl(text):
    out = {}
    for line in text.splitlines():
        r = json.loads(line)
        assert r["game"] == "port_royal"
        out[r["match"]] = (r["sequence"], r["ruleset"], r["options"], r["moves"],
                           [(s["seat"], s["bot_version"], s["place"], s["score"]) for s in r["seats"]])
    return out


def parsed_csv(text):
    out = {}
    for row in csv.DictReader(io.StringIO(text)):
        seats = out.setdefault(int(row["match"]), (int(row["sequence"]), row["ruleset"], json.loads(row["options"]),
                                                   int(row["moves"]), []))[4]
        seats.append((int(row["seat"]), int(row["bot_version"]), int(row["place"]), float(row["score"])))
        assert int(row["players"]) in (2, 3) and row["bot"]
    return out


def body(response) -> str:
    assert response.status_code == 200 and response.streaming
    return b"".join(response.streaming_content).decode()


def test_the_api_streams_every_rated_match_as_json_lines_and_csv(results, monkeypatch):
    monkeypatch.setattr(tournaments.results.export, "CHUNK", 2)  # keyset pages of two: three matches take two pages
    client = APIClient()
    expected = expected_matches()
    assert len(expected) == 3 and sorted(s for s, *_ in expected.values()) == [1, 2, 3]
    response = client.get("/api/export/port_royal/matches.jsonl")
    assert response["Content-Type"].startswith("application/x-ndjson")
    lines = body(response)
    assert parsed_jsonl(lines) == expected and len(lines.splitlines()) == 3
    response = client.get("/api/export/port_royal/matches.csv?ruleset=standard", HTTP_ACCEPT="text/csv")
    assert response["Content-Type"].startswith("text/csv")
    assert parsed_csv(body(response)) == expected
    assert body(client.get("/api/export/catan/matches.jsonl")) == ""


def test_the_ratings_export_round_trips(results):
    client = APIClient()
    expected = {(r.bot_version_id, "all"): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    expected |= {(r.bot_version_id, r.bracket): (r.mu, r.sigma, r.games) for r in BracketRating.objects.all()}
    lines = [json.loads(line) for line in body(client.get("/api/export/port_royal/ratings.jsonl")).splitlines()]
    assert {(r["bot_version"], r["players"]): (r["mu"], r["sigma"], r["games"]) for r in lines} == expected
    rows = list(csv.DictReader(io.StringIO(body(client.get("/api/export/port_royal/ratings.csv")))))
    assert {(int(r["bot_version"]), r["players"]): (float(r["mu"]), float(r["sigma"]), int(r["games"]))
            for r in rows} == expected  # floats survive the text exactly
    assert {"2", "3-4", "all"} == {r["players"] for r in rows}


def test_a_kept_ratings_export_follows_the_next_rated_match(results):
    client = APIClient()
    before = body(client.get("/api/export/port_royal/ratings.jsonl"))
    assert body(client.get("/api/export/port_royal/ratings.jsonl")) == before  # served again from the cache
    a, b = (Rating.objects.get(pk=pk).bot_version for pk in Rating.objects.order_by("pk").values_list("pk", flat=True)[:2])
    played([b, a], [0, 1], [7, 1], 12)
    after = [json.loads(line) for line in body(client.get("/api/export/port_royal/ratings.jsonl")).splitlines()]
    assert {(r["bot_version"], r["players"]): r["games"] for r in after} == (
        {(r.bot_version_id, "all"): r.games for r in Rating.objects.all()}
        | {(r.bot_version_id, r.bracket): r.games for r in BracketRating.objects.all()})


def test_bad_requests_answer_in_the_api_error_shape(results):
    client = APIClient()
    missing = client.get("/api/export/chess/matches.jsonl")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    bad = client.get("/api/export/port_royal/matches.csv?ruleset=huge", HTTP_ACCEPT="text/csv")
    assert bad.status_code == 400 and bad.json()["fields"]["ruleset"]


def test_the_command_exports_to_a_file_and_to_stdout(results, tmp_path):
    expected = expected_matches()
    target = tmp_path / "matches.csv"
    call_command("export_results", "--game", "port_royal", "--format", "csv", "--output", str(target))
    assert parsed_csv(target.read_text()) == expected
    out = io.StringIO()
    call_command("export_results", "--game", "port_royal", "--format", "jsonl", stdout=out)
    assert parsed_jsonl(out.getvalue()) == expected
    out = io.StringIO()
    call_command("export_results", "--what", "ratings", "--format", "jsonl", stdout=out)
    assert len(out.getvalue().splitlines()) == Rating.objects.count() + BracketRating.objects.count()


def test_recomputed_ratings_export_by_model(results):
    from ratings.models import ModelRating
    from tournaments.results.recompute import recompute

    recompute("port_royal", "elo")
    expected = {(r.bot_version_id, r.bracket): (r.mu, r.games) for r in ModelRating.objects.filter(model="elo")}
    assert len(expected) == 3 * 3  # a, b and c: overall, at two players, at three
    client = APIClient()
    rows = [json.loads(line) for line in
            body(client.get("/api/export/port_royal/ratings.jsonl?model=elo")).splitlines()]
    assert {(r["bot_version"], r["players"]): (r["mu"], r["games"]) for r in rows} == expected
    assert all(r["sigma"] == 0 for r in rows)
    assert body(client.get("/api/export/port_royal/ratings.csv?model=openskill")).strip() == ",".join(
        tournaments.results.export.RATING_COLUMNS)  # not recomputed yet: the header only
    bad = client.get("/api/export/port_royal/ratings.jsonl?model=glicko")
    assert bad.status_code == 400 and "model" in bad.json()["fields"]
    out = io.StringIO()
    call_command("export_results", "--what", "ratings", "--model", "elo", "--format", "csv", stdout=out)
    assert len(list(csv.DictReader(io.StringIO(out.getvalue())))) == len(expected)
