"""`benchplatform --scaling`: one worker and two in turn on real worker processes (the embedded SQLite and
filesystem broker), every match stored and rated, the ratios of their matches/s printed (whole runs and
the workers' steady state), and the machine's own ratio beside them (engine-only processes)."""
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_scaling_runs_one_and_two_workers_in_turn_and_prints_their_ratio(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "PYTEST_XDIST_WORKER")}
    env.update(ARENA_DATA_DIR=str(tmp_path), ARENA_QUEUE=f"bench-{uuid.uuid4().hex[:8]}", DJANGO_SECRET_KEY="test",
               ARENA_CACHE_URL="locmem://")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    proc = subprocess.run([*manage, "benchplatform", "--scaling", "1", "--matches", "6", "--workers", "2",
                           "--machine-seconds", "0.5"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [json.loads(line) for line in proc.stdout.strip().splitlines()]
    runs, (machine,), summary = lines[:-2], lines[-2:-1], lines[-1]
    assert [run["workers"] for run in runs] == [1, 2]
    for run in runs:
        assert run["matches"] == 6 and run["moves"] > 0 and run["progress_polls"] >= 1
        assert (run["database"], run["broker"]) == ("sqlite3", "filesystem")
        # the last doorbell is rung before the steady window opens, so its match at least ends inside it
        assert 1 <= run["steady_matches"] <= 6 and 0 < run["enqueue_seconds"] < run["seconds"]
        assert run["steady_matches_per_s"] > 0
        # The workers' wall time split: their CPU, waiting for a core, and the rest (read from Linux's schedstat).
        assert run["cpu_ms_per_match"] > 0 and run["runqueue_ms_per_match"] >= 0
        split = run["cpu_ms_per_match"] + run["runqueue_ms_per_match"] + run["blocked_ms_per_match"]
        assert abs(split - run["wall_ms_per_match_per_worker"]) <= 0.02
    assert summary["scaling"] == "2 workers / 1"
    assert summary["ratios"] == [round(runs[1]["matches_per_s"] / runs[0]["matches_per_s"], 2)]
    assert summary["median_ratio"] == summary["ratios"][0]
    assert summary["steady_ratios"] == [round(runs[1]["steady_matches_per_s"] / runs[0]["steady_matches_per_s"], 2)]
    assert summary["steady_median_ratio"] == summary["steady_ratios"][0]
    # The machine's ratio: two engine-only processes at once against one, each having played games.
    assert machine["machine"] == "2 engine processes / 1" and machine["game"] == "port_royal"
    assert machine["games_per_s_one"] > 0 and machine["games_per_s_2"] > 0
    assert abs(machine["ratio"] - machine["games_per_s_2"] / machine["games_per_s_one"]) < 0.02  # printed rounded
    assert summary["machine_ratios"] == [machine["ratio"]] and summary["machine_median_ratio"] == machine["ratio"]
    # Every match of both runs was stored and rated (two rated round robins of 6 plus the warm-ups of 4 and 8).
    check = subprocess.run([*manage, "shell", "-c", "from tournaments.models import Match; from ratings.models import "
                            "RatingChange; print(Match.objects.filter(status='finished').count(), "
                            "RatingChange.objects.count())"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
    finished, changes = map(int, check.stdout.split()[-2:])
    assert finished == 6 + 6 + 4 + 8
    assert changes == 2 * finished


@pytest.mark.sandbox
def test_uploaded_starters_play_in_the_sandbox_and_are_reused(tmp_path):
    """`benchplatform --uploaded`: the entrants are uploads of the game's starter, validated as any upload is;
    their matches run the programs in the sandbox, are stored and rated; a second run reuses the versions."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "PYTEST_XDIST_WORKER")}
    env.update(ARENA_DATA_DIR=str(tmp_path), DJANGO_SECRET_KEY="test", ARENA_CACHE_URL="locmem://")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    for _ in range(2):
        proc = subprocess.run([*manage, "benchplatform", "--uploaded", "--in-process", "--matches", "2"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        line = json.loads(proc.stdout.strip().splitlines()[-1])
        assert line["matches"] == 2 and line["moves"] > 0 and line["workers"] == 0
        # the engine's share, played again from the logged choices, is a small part of a sandboxed match
        assert 0 < line["engine_ms_per_match"] < line["wall_ms_per_match_per_worker"]
    check = subprocess.run([*manage, "shell", "-c", """
from bots.models import BotVersion
from ratings.models import RatingChange
from tournaments.models import Match
versions = BotVersion.objects.filter(bot__owner__username="bench-uploader")
print(sorted((v.bot.name, v.number, v.kind, v.status) for v in versions))
tournament = Match.objects.filter(purpose="tournament")
print(tournament.filter(status="finished").count(), RatingChange.objects.count())
print(sorted({s.bot_version.bot.owner.username for m in tournament for s in m.seats.all()}))
"""], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr[-4000:]
    versions, counts, owners = check.stdout.strip().splitlines()[-3:]
    assert versions == "[('starter-1', 1, 'upload', 'valid'), ('starter-2', 1, 'upload', 'valid')]"
    assert counts == "4 8" and owners == "['bench-uploader']"
