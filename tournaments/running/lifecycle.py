"""Celery signal receivers: the worker's heartbeat and graceful stop, and the reconciler in `celery beat`."""
from __future__ import annotations

import logging
import threading

from celery import signals
from django.conf import settings
from django.db import close_old_connections

from tournaments.running.health import WorkerHeartbeat
from tournaments.running.leases import close_connection, request_stop
from tournaments.running.pipeline import reconcile_matches

log = logging.getLogger(__name__)

_heartbeat = None


@signals.worker_ready.connect
def _worker_ready(sender=None, **_):
    global _heartbeat
    try:
        _heartbeat = WorkerHeartbeat(getattr(sender, "hostname", "") or "worker")
        _heartbeat.start()
    except Exception:  # the database is away at start: the worker still serves; no heartbeat row
        log.exception("worker heartbeat not started")
        _heartbeat = None


@signals.task_prerun.connect
@signals.task_postrun.connect
def _connections_as_for_a_request(**_):
    """Around each task, as around each request: close database connections that are broken or older than
    CONN_MAX_AGE, keep the others (settings.CELERY_DB_REUSE_MAX turns off Celery's close-every-time)."""
    close_old_connections()


@signals.worker_shutting_down.connect
def _worker_shutting_down(**_):
    """SIGTERM (warm shutdown): the running match finishes within the grace period or is handed back."""
    request_stop()
    if _heartbeat is not None:
        _heartbeat.stopping = True


@signals.worker_shutdown.connect
def _worker_shutdown(**_):
    if _heartbeat is not None:
        _heartbeat.stop()


def _forever(stop: threading.Event, every: str, turn, what: str, at_start: bool = False) -> None:
    """Run ``turn()`` every ``settings.ARENA[every]`` seconds (and once at once if ``at_start``) until ``stop``
    is set. A failed turn (the database or the broker is away) is logged; the next turn tries again."""
    first = at_start
    while first or not stop.wait(settings.ARENA[every]):
        first = False
        try:
            turn()
        except Exception as exc:  # noqa: BLE001 - whatever failed, the next turn tries again
            log.warning("%s: %s: %s", what, type(exc).__name__, exc)
            close_connection()


def reconcile_forever(stop: threading.Event) -> None:
    """Run the match reconciler every RECONCILE_SECONDS until ``stop`` is set."""
    _forever(stop, "RECONCILE_SECONDS", reconcile_matches, "reconciler")


def schedule_forever(stop: threading.Event) -> None:
    """Every SCHEDULER_SECONDS: top up the platform's ladders and start the scheduled tournaments that are
    due (both idempotent: the database says what is done). In the beat process, not a task on the match
    queue, so a backlog of matches never delays a start."""
    from tournaments.competition.schedule import run_scheduler

    _forever(stop, "SCHEDULER_SECONDS", run_scheduler, "scheduler")


def statistics_forever(stop: threading.Event) -> None:
    """Every STATS_SECONDS (at once on start): recount every game's rated statistics into the cache, so
    the statistics pages never count a million matches while someone waits. A thread of its own: a
    long count never delays the scheduler or the reconciler."""
    from engines.games import available_games
    from tournaments.results.statistics import refresh_statistics

    _forever(stop, "STATS_SECONDS", lambda: refresh_statistics(available_games()), "statistics", at_start=True)


@signals.beat_init.connect
@signals.beat_embedded_init.connect
def _beat_init(**_):
    threading.Thread(target=reconcile_forever, args=(threading.Event(),), name="match-reconciler",
                     daemon=True).start()
    threading.Thread(target=schedule_forever, args=(threading.Event(),), name="scheduler", daemon=True).start()
    threading.Thread(target=statistics_forever, args=(threading.Event(),), name="statistics", daemon=True).start()
