"""Leases on running matches: a short lease, renewed by a heartbeat while the match plays.

A worker that claims a match holds it for ``MATCH_LEASE_SECONDS`` (20 s); a thread renews the lease
every ``HEARTBEAT_SECONDS`` (3 s) with a conditional update on (match, lease token). So a dead worker's
match is free again within one lease, while a live match of any length is never taken from its worker.
If the renewal finds the lease gone (another worker took the match over, or it was handed back) the
match stops at its next move and stores nothing. Lease times use the database's clock, so the hosts'
clocks need not agree. docs/architecture.md ("Leases and recovery") has the bounds.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from functools import cache
from typing import Callable, TypeVar

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.models.functions import Now
from django.db.models.sql import Query

from tournaments.running.doorbell import ring_matches
from tournaments.models import Match

log = logging.getLogger(__name__)
T = TypeVar("T")

# Errors of an unreachable or restarting database: retried, never a reason to fail a match.
CONNECTION_ERRORS = (OperationalError, InterfaceError)
RETRY_SECONDS = 1.0

_stop_requested_at: float | None = None  # monotonic time of the worker's SIGTERM, if any
_current_match: int | None = None  # the match whose lease this worker process holds now


def current_match() -> int | None:
    """The match this worker process runs now (None: idle); its heartbeat row reports it."""
    return _current_match


class LeaseLost(Exception):
    """The match is no longer this worker's (taken over or handed back): stop, store nothing."""


def lease_until() -> Now:
    """The database expression for "a lease from now"."""
    return Now() + timedelta(seconds=settings.ARENA["MATCH_LEASE_SECONDS"])


@cache
def _lease_sql(seconds: int) -> tuple[str, list, str, list]:
    """The SQL of "now" and of "a lease from now" on the database's clock (compiled from ``Now()`` and
    ``lease_until()`` once per process and lease length, for the match pipeline's fixed statements)."""
    query = Query(Match)
    compiler = query.get_compiler(connection=connection)
    now_sql, now_params = compiler.compile(Now().resolve_expression(query))
    until_sql, until_params = compiler.compile((Now() + timedelta(seconds=seconds)).resolve_expression(query))
    return now_sql, list(now_params), until_sql, list(until_params)


def lease_sql() -> tuple[str, list, str, list]:
    """(SQL, parameters) of the database's "now", then of "a lease from now" (``lease_until`` as SQL)."""
    return _lease_sql(settings.ARENA["MATCH_LEASE_SECONDS"])


def request_stop() -> None:
    """The worker was asked to stop (SIGTERM): the running match has STOP_GRACE_SECONDS left."""
    global _stop_requested_at
    if _stop_requested_at is None:
        _stop_requested_at = time.monotonic()


def stop_requested() -> bool:
    return _stop_requested_at is not None


def renew(match_id: int, token: str) -> bool:
    """Extend the lease if this token still holds the running match; False if it does not."""
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token)
                .update(lease_until=lease_until()))


def hand_back(match_id: int, token: str) -> bool:
    """Give a running match back to the queue (a worker stopping) and ring its doorbell again."""
    returned = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token).update(
        status=Match.Status.QUEUED, lease_token="", lease_until=None, enqueued_at=None)
    if returned:
        log.warning("match %s handed back: the worker is stopping", match_id)
        try:
            ring_matches([match_id])
        except Exception:  # the broker is away: enqueued_at stays empty, the reconciler rings it
            log.exception("could not re-enqueue match %s", match_id)
    return bool(returned)


def close_connection() -> None:
    try:
        connection.close()
    except DatabaseError:
        pass


class LeaseKeeper:
    """Renews a match's lease while the match plays (a context manager).

    The renewals come from one thread per worker process (started with its first match, kept for the
    next ones: starting and joining a thread per match cost more than a whole short match's writes).
    ``check`` (given to play_match as its per-decision callback) raises LeaseLost once the lease is
    gone; after a SIGTERM and STOP_GRACE_SECONDS the keeper hands the match back and ``check`` stops it.
    """

    def __init__(self, match_id: int, token: str):
        self.match_id = match_id
        self.token = token
        self.lost = threading.Event()
        self.handed_back = False
        self.due = self.last = 0.0  # monotonic times of the next and the last renewal

    def __enter__(self) -> "LeaseKeeper":
        global _current_match, _keeper
        self.last = time.monotonic()
        self.due = self.last + settings.ARENA["HEARTBEAT_SECONDS"]
        _current_match, _keeper = self.match_id, self
        _start_renewer()
        return self

    def __exit__(self, *exc) -> None:
        global _current_match, _keeper
        with _renewing:  # a renewal under way ends first: after this, nothing is written for this match
            _current_match, _keeper = None, None

    def check(self, *_args) -> None:
        if self.lost.is_set():
            raise LeaseLost(f"match {self.match_id}: " + ("handed back" if self.handed_back else "lease lost"))

    def _grace_over(self) -> bool:
        return (_stop_requested_at is not None
                and time.monotonic() - _stop_requested_at > settings.ARENA["STOP_GRACE_SECONDS"])

    def beat(self) -> None:
        """One turn of the renewer for this match: hand it back (grace over), or renew the lease."""
        interval = settings.ARENA["HEARTBEAT_SECONDS"]
        self.last = time.monotonic()
        try:
            if self._grace_over():
                self.handed_back = hand_back(self.match_id, self.token)
                self.lost.set()
                return
            if not renew(self.match_id, self.token):
                log.warning("match %s: lease lost, the match stops here", self.match_id)
                self.lost.set()
                return
            self.due = time.monotonic() + interval
        except CONNECTION_ERRORS as exc:  # the database is away: try again soon
            log.warning("match %s: lease not renewed (%s); retrying", self.match_id, exc)
            close_connection()
            self.due = time.monotonic() + RETRY_SECONDS


_keeper: LeaseKeeper | None = None  # the keeper of the match this process plays now
_renewing = threading.Lock()  # held while the renewer writes for a keeper
_renewer: threading.Thread | None = None


def _start_renewer() -> None:
    global _renewer
    if _renewer is None or not _renewer.is_alive():  # the first match (or a forked child)
        _renewer = threading.Thread(target=_renew_forever, name="lease-renewer", daemon=True)
        _renewer.start()


def _renew_forever() -> None:
    """The renewer thread: renews the current match's lease every HEARTBEAT_SECONDS (every 0.5 s once the
    worker is stopping, to hand the match back on time); closes its connection while idle."""
    connected = False
    while True:
        keeper = _keeper
        interval = settings.ARENA["HEARTBEAT_SECONDS"]
        if keeper is None or keeper.lost.is_set():
            if connected:
                close_connection()
                connected = False
            time.sleep(min(interval, 0.5))
            continue
        wait = keeper.due - time.monotonic()
        if _stop_requested_at is not None:
            wait = min(wait, keeper.last + 0.5 - time.monotonic())
        if wait > 0:
            time.sleep(min(wait, 0.5))
            continue
        with _renewing:
            if _keeper is keeper:
                connected = True
                try:
                    keeper.beat()
                except Exception:  # not the database being away (beat retries that): keep the thread alive
                    log.exception("match %s: lease renewal failed; retrying", keeper.match_id)
                    keeper.due = time.monotonic() + RETRY_SECONDS


def retry_while_leased(keeper: LeaseKeeper, action: Callable[[], T], lost: T) -> T:
    """Run ``action`` (a database write), retrying on connection errors for as long as the lease is
    ours; ``lost`` once it is not (another worker's result counts then)."""
    while True:
        try:
            return action()
        except CONNECTION_ERRORS as exc:
            log.warning("match %s: database unreachable while storing (%s); retrying", keeper.match_id, exc)
            close_connection()
            if keeper.lost.wait(RETRY_SECONDS):
                return lost
