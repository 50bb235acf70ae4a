"""Worker heartbeats and the health of the match pipeline (for `manage.py arenastatus` and /staff/health/)."""
from __future__ import annotations

import logging
import os
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db.models.functions import Now
from django.utils import timezone

from tournaments.running.doorbell import waiting_match_ids
from tournaments.running.leases import close_connection, current_match
from tournaments.models import Match, WorkerBeat

log = logging.getLogger(__name__)


class WorkerHeartbeat:
    """A thread that writes this worker's row (state, current match, last seen) every HEARTBEAT_SECONDS."""

    def __init__(self, name: str):
        self.name = name[:200]
        self.stopping = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)

    def start(self) -> None:
        WorkerBeat.objects.update_or_create(name=self.name, defaults=self._row(started=True))
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join(5)
        try:
            WorkerBeat.objects.filter(name=self.name).update(state=WorkerBeat.State.STOPPED, match_id=None,
                                                             last_seen=Now())
        except Exception:
            log.exception("could not record that worker %s stopped", self.name)

    def _row(self, started: bool = False) -> dict:
        if self.stopping:
            state = WorkerBeat.State.STOPPING
        else:
            state = WorkerBeat.State.RUNNING if current_match() is not None else WorkerBeat.State.IDLE
        row = {"state": state, "match_id": current_match(), "last_seen": timezone.now(),
               "host": socket.gethostname()[:200], "pid": os.getpid()}
        if started:
            row["started_at"] = timezone.now()
        return row

    def _run(self) -> None:
        while not self._done.wait(settings.ARENA["HEARTBEAT_SECONDS"]):
            try:
                WorkerBeat.objects.update_or_create(name=self.name, defaults=self._row(),
                                                    create_defaults={**self._row(started=True)})
            except Exception as exc:  # the database is away: the next beat tries again
                log.warning("worker heartbeat not written: %s", exc)
                close_connection()
        close_connection()


def snapshot(now=None) -> dict:
    """Queued, running and stalled matches, the leases, and the workers' heartbeats, as plain data.

    Stalled: running with an expired lease (its worker died; the reconciler frees it), or queued, rung
    longer ago than RERING_AFTER_SECONDS and not waiting in the broker's queue (a lost message).
    """
    now = now or timezone.now()
    arena = settings.ARENA
    try:
        waiting = waiting_match_ids()
        broker_error = ""
    except Exception as exc:  # the broker is away: say so, show the rest
        waiting, broker_error = None, f"{type(exc).__name__}: {exc}"
    queued = list(Match.objects.filter(status=Match.Status.QUEUED).values("pk", "enqueued_at", "tournament_id"))
    running = list(Match.objects.filter(status=Match.Status.RUNNING).order_by("lease_until").values(
        "pk", "game", "worker", "lease_until", "started_at", "attempts", "tournament_id"))
    rering = now - timedelta(seconds=arena["RERING_AFTER_SECONDS"])
    stalled_queued = [m["pk"] for m in queued
                      if (m["enqueued_at"] is None or m["enqueued_at"] < rering)
                      and (waiting is None or m["pk"] not in waiting)]
    leases = [{
        "match": m["pk"], "game": m["game"], "worker": m["worker"], "attempts": m["attempts"],
        "running_s": round((now - m["started_at"]).total_seconds(), 1) if m["started_at"] else None,
        "lease_left_s": round((m["lease_until"] - now).total_seconds(), 1) if m["lease_until"] else None,
    } for m in running]
    stale_after = arena["MATCH_LEASE_SECONDS"]
    workers = [{
        "name": w.name, "host": w.host, "pid": w.pid, "state": w.state, "match": w.match_id,
        "last_seen_s": round((now - w.last_seen).total_seconds(), 1),
        "alive": w.state != WorkerBeat.State.STOPPED and (now - w.last_seen).total_seconds() <= stale_after,
    } for w in WorkerBeat.objects.all()]
    return {
        "queued": len(queued),
        "waiting_in_broker": None if waiting is None else len(waiting),
        "broker_error": broker_error,
        "running": len(running),
        "stalled": {"expired_leases": [lease["match"] for lease in leases
                                       if lease["lease_left_s"] is not None and lease["lease_left_s"] < 0],
                    "lost_messages": stalled_queued},
        "leases": leases,
        "workers": workers,
        "workers_alive": sum(w["alive"] for w in workers),
        "settings": {k.lower(): arena[k] for k in ("MATCH_LEASE_SECONDS", "HEARTBEAT_SECONDS", "RECONCILE_SECONDS",
                                                    "RERING_AFTER_SECONDS", "STOP_GRACE_SECONDS")},
    }
