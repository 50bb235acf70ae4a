"""The doorbell: ringing it (a message naming matches or a version) and reading what waits in the queue.

The lowest layer of the match pipeline (it imports only the models): the services, the pipeline, the
leases and the validation ring through here, by task name, so none of them imports the tasks module
(tasks.py imports them, never the reverse).

What the broker's queue holds: the match ids whose doorbell is still waiting to be answered. A doorbell
names up to ``ARENA["MATCHES_PER_DOORBELL"]`` matches (10), which one worker plays in turn
(``pipeline.run_matches``): a large batch (a big round robin, the reconciler after a broker loss) costs a
tenth of the messages, each costing about as much CPU to send and to take as a short match's own writes.
A batch rings at least ``ARENA["DOORBELLS_SPREAD"]`` doorbells (64), so a small tournament is still rung
one a match and starts on every idle worker.

The reconciler re-rings a queued match only when its message is not waiting in the queue, so a long
healthy backlog is never flooded with duplicates, while a lost message (an empty broker restart, a
worker killed between receiving and claiming) is noticed within seconds. Redis and the filesystem
broker can be read; for any other broker ``waiting_match_ids`` answers None (unknown).
"""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Sequence

from django.conf import settings
from django.db.models.functions import Now

from tournaments.models import Match

RUN_MATCHES = "tournaments.tasks.run_matches"
#: One match a message: what earlier versions rang; still answered, so a queue they filled drains.
RUN_MATCH = "tournaments.tasks.run_match"
VALIDATE_VERSION = "tournaments.tasks.validate_version"
# kombu's Redis transport keeps one list per priority step; priority 0 is the bare queue name.
REDIS_PRIORITY_SEPARATOR = "\x06\x16"
REDIS_PRIORITY_STEPS = (0, 3, 6, 9)


def _match_ids(raw: bytes | str) -> list[int]:
    """The match ids one kombu message (protocol 2) names; none for other tasks and unreadable ones."""
    try:
        message = json.loads(raw)
        task = message.get("headers", {}).get("task")
        if task not in (RUN_MATCHES, RUN_MATCH):
            return []
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        named = json.loads(body)[0][0]
        return [int(named)] if task == RUN_MATCH else [int(match_id) for match_id in named]
    except (ValueError, KeyError, IndexError, TypeError):
        return []


def _redis_lists(url: str, queue: str) -> list[bytes]:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        names = [queue] + [f"{queue}{REDIS_PRIORITY_SEPARATOR}{step}" for step in REDIS_PRIORITY_STEPS[1:]]
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.lrange(name, 0, -1)
        return [raw for items in pipe.execute() for raw in items]
    finally:
        client.close()


def _filesystem_messages(folder: str, queue: str) -> list[bytes]:
    found = []
    suffix = f".{queue}.msg"
    for name in os.listdir(folder):
        if name.endswith(suffix):
            try:
                found.append(Path(folder, name).read_bytes())
            except FileNotFoundError:  # a worker took it meanwhile
                pass
    return found


def waiting_match_ids() -> set[int] | None:
    """Ids of the matches whose message waits in the broker's queue; None if the broker cannot be read."""
    from celery import current_app as app

    url = app.conf.broker_url or ""
    queue = app.conf.task_default_queue
    if url.startswith(("redis://", "rediss://", "unix://")):
        messages = _redis_lists(url, queue)
    elif url.startswith("filesystem"):
        messages = _filesystem_messages(app.conf.broker_transport_options["data_folder_in"], queue)
    else:
        return None
    return {match_id for raw in messages for match_id in _match_ids(raw)}


def _send(task: str, arg: int | list[int]) -> None:
    """Send one task message by name (eager mode, as some tests and tools set it: run it in place)."""
    from celery import current_app as app

    if app.conf.task_always_eager:
        app.tasks[task].apply(args=[arg])
    else:
        app.send_task(task, args=[arg])


def _send_many(task: str, args: Sequence[int | list[int]]) -> None:
    """Send one task message per argument, batched where the broker can (Redis: one pipeline per
    thousand, a third of the CPU of sending them one by one); elsewhere one by one.

    A batch that fails as a whole (the broker away mid-flush) is sent again one by one with Celery's
    publish retries, as a single message would be: a message sent twice is a harmless duplicate."""
    from celery import current_app as app

    if app.conf.task_always_eager or len(args) < 2:
        for arg in args:
            _send(task, arg)
        return
    from kombu.exceptions import BatchPublishError

    try:
        with app.producer_or_acquire() as producer, producer.batch():
            for arg in args:
                app.send_task(task, args=[arg], producer=producer)
    except BatchPublishError:
        for arg in args:
            _send(task, arg)


def doorbells(match_ids: Sequence[int]) -> list[list[int]]:
    """The matches split into doorbells, in order: one a match below ``ARENA["DOORBELLS_SPREAD"]`` of them,
    else that many or more, of nearly equal size, each naming at most ``ARENA["MATCHES_PER_DOORBELL"]``."""
    ids = list(match_ids)
    spread, most = settings.ARENA["DOORBELLS_SPREAD"], settings.ARENA["MATCHES_PER_DOORBELL"]
    count = min(len(ids), max(spread, -(-len(ids) // most)))
    size, extra = divmod(len(ids), count) if count else (0, 0)
    bells, start = [], 0
    for number in range(count):
        end = start + size + (number < extra)
        bells.append(ids[start:end])
        start = end
    return bells


def ring_matches(match_ids: Sequence[int]) -> None:
    """Ring the doorbells of these matches (the database row is the truth; duplicates are harmless).

    ``enqueued_at`` is set first, with the database's clock: the reconciler compares it with its own
    "now" from the same clock."""
    ids = list(match_ids)
    touch_matches(ids)
    _send_many(RUN_MATCHES, doorbells(ids))


def touch_matches(match_ids: Sequence[int]) -> None:
    """Mark these queued matches as rung now (``enqueued_at``): the reconciler leaves them alone for
    ``RERING_AFTER_SECONDS`` even while their doorbell is in no queue (a worker holds it)."""
    ids = list(match_ids)
    for start in range(0, len(ids), 500):  # one statement per chunk (SQLite bounds its parameters)
        Match.objects.filter(pk__in=ids[start:start + 500], status=Match.Status.QUEUED).update(enqueued_at=Now())


def ring_validation(version_id: int) -> None:
    """Ring the doorbell for a new version's validation matches."""
    _send(VALIDATE_VERSION, version_id)
