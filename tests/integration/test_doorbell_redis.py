"""Ringing many doorbells at once on Redis: one pipeline per thousand messages, each match rung once; a
batch that fails as a whole is sent again one message at a time, so no match is left unrung.

Runs in a subprocess with the Redis broker configured (the suite's own broker is the filesystem)."""
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena_testing import need_services

ROOT = Path(__file__).resolve().parents[2]

# Rings 1,500 matches (two batches) on the configured queue and prints how often each id waits there.
# FAIL_FIRST_FLUSH: the first batch's flush fails as a broken Redis pipeline does.
SCRIPT = """
import collections, json, os
import django
django.setup()
from kombu.exceptions import BatchPublishError
from kombu.transport import redis as kombu_redis
from arena.celery import app
from tournaments.running import doorbell

flushes = []
if os.environ.get("FAIL_FIRST_FLUSH"):
    real_flush = kombu_redis.PublishBatch.flush
    def flush(self):
        flushes.append(1)
        if len(flushes) == 1:
            self.discard()
            raise BatchPublishError("Redis publish batch failed; delivery is uncertain")
        return real_flush(self)
    kombu_redis.PublishBatch.flush = flush
ids = list(range(1, 1501))
doorbell._send_many(doorbell.RUN_MATCHES, [[i] for i in ids])
waiting = collections.Counter(i for raw in doorbell._redis_lists(app.conf.broker_url, app.conf.task_default_queue)
                              for i in doorbell._match_ids(raw))
with app.connection_for_write() as conn:
    conn.default_channel.queue_purge(app.conf.task_default_queue)
print(json.dumps({"counts": sorted(set(waiting.values())), "ids": sorted(waiting), "failed_flushes": min(len(flushes), 1)}))
"""


def ring(tmp_path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PYTEST_XDIST_WORKER")}
    env.update(CELERY_BROKER_URL=os.environ.get("ARENA_TEST_REDIS", "redis://127.0.0.1:6379/15"),
               ARENA_QUEUE=f"doorbell-{uuid.uuid4().hex[:8]}", ARENA_DATA_DIR=str(tmp_path),
               DJANGO_SETTINGS_MODULE="arena.settings", DJANGO_SECRET_KEY="test",
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "platform")]), **extra)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.services
def test_many_doorbells_are_rung_once_each_in_batches(tmp_path):
    need_services(("Redis", "127.0.0.1", 6379))
    found = ring(tmp_path)
    assert found["ids"] == list(range(1, 1501))
    assert found["counts"] == [1]


@pytest.mark.services
def test_a_failed_batch_is_rung_again_one_by_one(tmp_path):
    need_services(("Redis", "127.0.0.1", 6379))
    found = ring(tmp_path, FAIL_FIRST_FLUSH="1")
    assert found["failed_flushes"] == 1
    # The first batch failed before anything was sent: all 1,500 went one by one instead, once each.
    assert found["ids"] == list(range(1, 1501))
    assert found["counts"] == [1]
