"""Leases on running matches: a short lease, renewed by a heartbeat while the match plays.

A worker that claims a match holds it for ``MATCH_LEASE_SECONDS`` (20 s); a thread renews the lease
every ``HEARTBEAT_SECONDS`` (3 s) with a conditional update on (match, lease token). So a dead worker's
match is free again within one lease, while a live match of any length is never taken from its worker.
If the renewal finds the lease gone (another worker took the match over, or it was handed back) the
match stops at its next move and stores nothing. Lease times use the database's clock, so the hosts'
clocks need not agree. deploy/SCALING.md has the bounds.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Callable, TypeVar

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.models.functions import Now

from tournaments.doorbell import ring_matches
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
    """Renews a match's lease from a thread while the match plays (a context manager).

    ``check`` (given to play_match as its per-decision callback) raises LeaseLost once the lease is
    gone; after a SIGTERM and STOP_GRACE_SECONDS the keeper hands the match back and ``check`` stops it.
    """

    def __init__(self, match_id: int, token: str):
        self.match_id = match_id
        self.token = token
        self.lost = threading.Event()
        self.handed_back = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{match_id}", daemon=True)

    def __enter__(self) -> "LeaseKeeper":
        global _current_match
        _current_match = self.match_id
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        global _current_match
        self._done.set()
        self._thread.join()
        _current_match = None

    def check(self, *_args) -> None:
        if self.lost.is_set():
            raise LeaseLost(f"match {self.match_id}: " + ("handed back" if self.handed_back else "lease lost"))

    def _grace_over(self) -> bool:
        return (_stop_requested_at is not None
                and time.monotonic() - _stop_requested_at > settings.ARENA["STOP_GRACE_SECONDS"])

    def _run(self) -> None:
        interval = settings.ARENA["HEARTBEAT_SECONDS"]
        wait = interval
        try:
            while not self._done.wait(min(wait, 0.5) if _stop_requested_at is not None else wait):
                try:
                    if self._grace_over():
                        self.handed_back = hand_back(self.match_id, self.token)
                        self.lost.set()
                        return
                    if not renew(self.match_id, self.token):
                        log.warning("match %s: lease lost, the match stops here", self.match_id)
                        self.lost.set()
                        return
                    wait = interval
                except CONNECTION_ERRORS as exc:  # the database is away: try again soon
                    log.warning("match %s: lease not renewed (%s); retrying", self.match_id, exc)
                    close_connection()
                    wait = RETRY_SECONDS
        finally:
            close_connection()


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
