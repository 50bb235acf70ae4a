"""The doorbell: ringing it (a message naming a match or a version) and reading what waits in the queue.

The lowest layer of the match pipeline (it imports only the models): the services, the pipeline, the
leases and the validation ring through here, by task name, so none of them imports the tasks module
(tasks.py imports them, never the reverse).

What the broker's queue holds: the match ids whose doorbell is still waiting to be answered.

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

from django.db.models.functions import Now

from tournaments.models import Match

RUN_MATCH = "tournaments.tasks.run_match"
VALIDATE_VERSION = "tournaments.tasks.validate_version"
# kombu's Redis transport keeps one list per priority step; priority 0 is the bare queue name.
REDIS_PRIORITY_SEPARATOR = "\x06\x16"
REDIS_PRIORITY_STEPS = (0, 3, 6, 9)


def _match_id(raw: bytes | str) -> int | None:
    """The match id of one kombu message (protocol 2), or None for other tasks and unreadable ones."""
    try:
        message = json.loads(raw)
        if message.get("headers", {}).get("task") != RUN_MATCH:
            return None
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return int(args[0])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


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
    from arena.celery import app

    url = app.conf.broker_url or ""
    queue = app.conf.task_default_queue
    if url.startswith(("redis://", "rediss://", "unix://")):
        messages = _redis_lists(url, queue)
    elif url.startswith("filesystem"):
        messages = _filesystem_messages(app.conf.broker_transport_options["data_folder_in"], queue)
    else:
        return None
    return {i for i in map(_match_id, messages) if i is not None}


def _send(task: str, arg: int) -> None:
    """Send one task message by name (eager mode, as some tests and tools set it: run it in place)."""
    from arena.celery import app

    if app.conf.task_always_eager:
        app.tasks[task].apply(args=[arg])
    else:
        app.send_task(task, args=[arg])


def _send_many(task: str, args: Sequence[int]) -> None:
    """Send one task message per argument, batched where the broker can (Redis: one pipeline per
    thousand, a third of the CPU of sending them one by one); elsewhere one by one.

    A batch that fails as a whole (the broker away mid-flush) is sent again one by one with Celery's
    publish retries, as a single message would be: a message sent twice is a harmless duplicate."""
    from arena.celery import app

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


def ring_matches(match_ids: Sequence[int]) -> None:
    """Ring the doorbell for each match (the database row is the truth; duplicates are harmless).

    ``enqueued_at`` is set first, with the database's clock: the reconciler compares it with its own
    "now" from the same clock."""
    ids = list(match_ids)
    for start in range(0, len(ids), 500):  # one statement per chunk (SQLite bounds its parameters)
        Match.objects.filter(pk__in=ids[start:start + 500], status=Match.Status.QUEUED).update(enqueued_at=Now())
    _send_many(RUN_MATCH, ids)


def ring_validation(version_id: int) -> None:
    """Ring the doorbell for a new version's validation matches."""
    _send(VALIDATE_VERSION, version_id)
