"""The newcomer's path, as README's "Your first bot in 5 minutes" tells it, through the API only:
register, upload the Python and the JavaScript starters, see them validated in the sandbox, run a
friendly tournament against a built-in bot, read its standings and the leaderboard, fetch a match log
and replay it with the engine to the same outcome; then the platform's rated ladder ranks both bots."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from engines.match import MatchLog, replay
from tournaments.competition import ladder
from tournaments.models import Match
from tournaments.tasks import run_match_task, validate_version_task

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ROOT / "engines" / "sdk" / "starters"

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("node") is None and shutil.which("nodejs") is None,
                       reason="node is not installed (Debian package 'nodejs')"),
]


def upload(api: APIClient, name: str, starter: Path):
    with starter.open("rb") as f:  # what `curl -F file=@engines/sdk/starters/...` sends
        return api.post("/api/bots/", {"game": "port_royal", "name": name, "file": f}, format="multipart")


def test_register_upload_validate_play_read_replay_and_rank(db, tmp_path, settings):
    api = APIClient()
    # 1. Register: the answer carries the API token.
    registered = api.post("/api/register/", {"username": "newcomer", "password": "a-long-pass-phrase-7"},
                          format="json")
    assert registered.status_code == 201, registered.content
    api.credentials(HTTP_AUTHORIZATION=f"Token {registered.json()['token']}")

    # 2. Upload the two starters, unchanged: new versions, pending until validated.
    versions = {}
    for name, starter in (("pybot", STARTERS / "port_royal.py"), ("jsbot", STARTERS / "port_royal.js")):
        response = upload(api, name, starter)
        assert response.status_code == 201, response.content
        assert response.json()["status"] == "pending" and response.json()["label"] == f"newcomer/{name} v1"
        versions[name] = response.json()

    # 3. Validation: what a worker does with the message the upload sends (matches in the sandbox).
    for name, version in versions.items():
        assert validate_version_task(version["id"]) == "valid"
        bot = api.get(f"/api/bots/{version['bot']}/").json()
        assert [(v["number"], v["status"]) for v in bot["versions"]] == [(1, "valid")]
        assert "without a fault" in bot["versions"][0]["status_detail"]  # its owner reads why

    # 4. A friendly tournament of the two starters and the built-in heuristic bot.
    created = api.post("/api/tournaments/", {"name": "first try", "game": "port_royal", "seats": 3,
                                             "games_per_pairing": 2,
                                             "bots": ["newcomer/pybot", "newcomer/jsbot", "heuristic"]},
                       format="json")
    assert created.status_code == 201, created.content
    tournament = created.json()
    assert tournament["rated_display"] == "friendly (not rated)" and tournament["planned_matches"] == 2
    queued = api.get("/api/matches/", {"tournament": tournament["id"]}).json()["results"]
    assert len(queued) == 2
    for match in queued:  # what the workers do with the matches the tournament enqueued
        assert run_match_task(match["id"]) == "finished"

    # 5. Its standings, and the public leaderboard (rated play only: a friendly tournament leaves it alone).
    detail = api.get(f"/api/tournaments/{tournament['id']}/").json()
    assert detail["status"] == "finished" and detail["progress"]["done"] == 2
    standings = {row["label"]: row for row in detail["standings"]}
    assert set(standings) == {"newcomer/pybot v1", "newcomer/jsbot v1", "heuristic v1"}
    assert all(row["matches"] == 2 and 1 <= row["average_place"] <= 3 for row in standings.values())
    board = api.get("/api/leaderboards/port_royal/")
    assert board.status_code == 200 and board.json()["ruleset"] == "standard"
    assert not any(row["label"].startswith("newcomer/") for row in board.json()["results"])

    # 6. A match log: its seats' places agree with the log, and the engine replays it to the same outcome.
    match = api.get(f"/api/matches/{queued[0]['id']}/").json()
    log = api.get(f"/api/matches/{match['id']}/log/")
    assert log.status_code == 200
    data = log.json()
    assert data["seats"] == [seat["label"] for seat in sorted(match["seats"], key=lambda s: s["seat"])]
    assert [seat["place"] for seat in sorted(match["seats"], key=lambda s: s["seat"])] == \
        [rank + 1 for rank in data["outcome"]["ranks"]]
    _state, outcome = replay(MatchLog.from_dict(data))
    assert outcome.to_dict() == data["outcome"]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(data))
    cli = subprocess.run([sys.executable, "-m", "engines", "replay", str(path)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0 and "replay ok" in cli.stdout, cli.stderr

    # 7. The bot's page lists the match with its place.
    rows = api.get(f"/api/bots/{versions['pybot']['bot']}/matches/").json()
    assert len(rows["results"]) == 4 and rows["next"] is None  # 2 validation + 2 tournament matches
    played = {row["match"]: row["place"] for row in rows["results"] if row["purpose"] == "tournament"}
    assert played == {m["id"]: next(s["place"] for s in api.get(f"/api/matches/{m['id']}/").json()["seats"]
                                    if s["label"] == "newcomer/pybot v1") for m in queued}

    # 8. Ranked: the platform's rated ladder (`make demo` starts one per game; `manage.py ladder start`)
    # seats every author's newest valid version; after their ladder matches both bots are on the board.
    settings.ARENA = {**settings.ARENA, "LADDER_MATCHES_PER_MINUTE": 1000}  # no pause between tables here
    ladder.start_ladder("port_royal", seed=1)
    mine = {"newcomer/pybot v1", "newcomer/jsbot v1"}
    for _ in range(30):
        board = api.get("/api/leaderboards/port_royal/").json()["results"]
        if mine <= {row["label"] for row in board}:
            break
        for match in Match.objects.filter(tournament__ladders__game="port_royal", status=Match.Status.QUEUED):
            assert run_match_task(match.pk) == "finished"  # storing it tops the ladder up again
    ranked = {row["label"]: row for row in board if row["label"] in mine}
    assert set(ranked) == mine and all(row["games"] >= 1 and row["place"] >= 1 for row in ranked.values())
    assert not Match.objects.filter(tournament_id=tournament["id"], rated=True).exists()  # friendly stays friendly
