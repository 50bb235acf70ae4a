"""The platform tests of what PostgreSQL does differently, run on a real PostgreSQL.

The suite's own database is the embedded SQLite; the match pipeline's PostgreSQL path (one query string of
prepared statements, the begin and commit sent with the statements, rate_match's two round trips, keyset
pages with estimated counts) is its production path. These modules run again here on a fresh PostgreSQL
database, their ``postgresql``-marked tests included (left out of the SQLite run)."""
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena_testing import need_services

ROOT = Path(__file__).resolve().parents[2]
#: The modules whose tests take another path on PostgreSQL.
MODULES = ["tests/platform/test_bulk.py", "tests/platform/test_ratings.py", "tests/platform/test_pipeline.py",
           "tests/platform/test_doorbells.py", "tests/platform/test_scale.py",
           "tests/platform/test_tournament_fields.py"]


@pytest.mark.services
def test_the_postgresql_path_passes_on_postgresql(tmp_path):
    need_services(("PostgreSQL", "127.0.0.1", 5432))
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
    # pytest-django creates (and drops) "test_<name>" on that server.
    name = f"arena_pg_{uuid.uuid4().hex[:10]}"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "PYTEST_XDIST_WORKER")}
    env.update(DATABASE_URL=admin_url.rsplit("/", 1)[0] + f"/{name}", ARENA_DATA_DIR=str(tmp_path),
               ARENA_CACHE_URL="locmem://")
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                               *MODULES], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    finally:  # pytest-django's own drop fails while a worker thread's session lingers
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "test_{name}" WITH (FORCE)')
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    # Every test ran, the PostgreSQL-only ones included: nothing skipped or left out.
    assert re.search(r"\d+ passed", summary) and not re.search(r"skipped|deselected|xfail", summary), summary
