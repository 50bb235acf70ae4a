"""A tournament on two real worker processes: the embedded default (SQLite + filesystem broker) and
production (PostgreSQL + Redis). Matches delivered twice and a dead worker's match are still stored and
rated exactly once."""
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena_testing import need_services

SCENARIO = Path(__file__).with_name("scenario.py")
GAMES = 10  # matches of random vs heuristic


def run_scenario(env_overrides: dict, tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update({"ARENA_DATA_DIR": str(tmp_path), "ARENA_QUEUE": f"arena-it-{uuid.uuid4().hex[:8]}"}, **env_overrides)
    proc = subprocess.run([sys.executable, str(SCENARIO), "2", str(GAMES)], env=env, capture_output=True,
                          text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check(found: dict) -> None:
    assert found["matches"] == GAMES
    assert found["statuses"] == ["finished"]
    assert found["rated"] == GAMES and found["rating_changes"] == 2 * GAMES
    assert found["games_rated"] == [GAMES, GAMES]
    assert found["recovered_attempts"] == 2  # the dead worker's claim, then the reconciled run
    assert found["chains_ok"]
    assert len(found["workers"]) >= 1 and "dead-worker" not in found["workers"]


def test_embedded_sqlite_and_filesystem_broker(tmp_path):
    found = run_scenario({}, tmp_path)
    assert (found["database"], found["broker"]) == ("sqlite", "filesystem")
    check(found)


@pytest.mark.services
def test_production_postgresql_and_redis(tmp_path):
    need_services(("PostgreSQL", "127.0.0.1", 5432), ("Redis", "127.0.0.1", 6379))
    import psycopg

    name = f"arena_it_{uuid.uuid4().hex[:10]}"
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        found = run_scenario({"DATABASE_URL": admin_url.rsplit("/", 1)[0] + f"/{name}",
                              "CELERY_BROKER_URL": os.environ.get("ARENA_TEST_REDIS", "redis://127.0.0.1:6379/15")},
                             tmp_path)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert (found["database"], found["broker"]) == ("postgresql", "redis")
    check(found)
    assert len(found["workers"]) == 2  # both worker processes served matches
