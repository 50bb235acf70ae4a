"""The embedded broker: kombu's filesystem transport, taking messages from a listing kept between takes.

kombu's own channel lists and sorts the whole queue folder for every message it takes: with a backlog of
thousands of matches that is the most expensive step of a short match (about a millisecond at 2,000
waiting, growing with the backlog). This channel lists the folder once, takes the oldest names from that
listing until it runs out, and only then lists again; a name another worker took meanwhile fails to
rename and is skipped. Messages still come oldest first, as their names begin with the time they were
written; one written after the listing waits until the listing is used up, behind older ones anyway.

One listing serves every queue the worker polls. A Celery worker also polls its remote-control queue,
nearly always empty: relisting the whole folder for it at every poll cost a fifth of a worker's time with
a backlog of matches. A queue that found nothing in the latest listing lists again at once only if that
listing was short; behind a long one it waits a hundred times as long as that listing took (listings for
it cost at most 1% of the worker's time), and at least half the polling interval: control commands,
never matches, wait that much longer. A queue that used up its entries lists again at once.

It also waits for a message's writer: kombu writes a message in place under an exclusive file lock, so
a taker that renames it mid-write takes the lock shared before reading, and puts back a file found
empty (renamed between its creation and its writer's lock). The message files stay kombu's, so the
doorbell reads the queue as before (``tournaments.running.doorbell.waiting_match_ids``).

And it keeps the exchange tables whole. kombu binds a queue to a fanout exchange (a worker's remote-control
queue to ``celery.pidbox``) by truncating the table's file before it locks it when the file was missing,
and by writing a table without truncating: two workers starting together lost one's binding (that worker
never heard a ping, a shutdown or a revoke) or left a table that no longer parsed, and every later worker
then failed to start. Here a table is read, changed and written whole under one exclusive lock, and a
table damaged that way before keeps the bindings it still holds.

Settings use it for ``filesystem://`` through ``CELERY_BROKER_TRANSPORT``.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
from collections import deque
from typing import Any, Callable

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.transport.virtual import Empty
from kombu.utils.encoding import bytes_to_str
from kombu.utils.json import loads

Binding = filesystem.exchange_queue_t  # (routing key, pattern, queue): one row of an exchange's table


class Channel(filesystem.Channel):
    """kombu's filesystem channel, taking from a kept listing."""

    #: a listing of at most this many names is cheap to repeat at every poll
    SHORT_LISTING = 256
    #: behind a long listing, a queue it found empty waits this many times as long as the listing took
    EMPTY_QUEUE_WAIT_FACTOR = 100

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._listings: dict[str, deque[str]] = {}
        self._found: set[str] = set()  # queues that had names in the latest listing
        self._listed_at, self._listed_names, self._listing_seconds = 0.0, 0, 0.0
        os.makedirs(self.processed_folder, exist_ok=True)  # a missing one would look like a message taken

    def _list(self) -> None:
        """List the folder once, oldest first, into every queue's listing (kombu's names:
        ``<ms>_<uuid>.<queue>.msg``)."""
        started = time.monotonic()
        names = sorted(os.listdir(self.data_folder_in))
        listings: dict[str, deque[str]] = {}
        for entry in names:
            queue, _, suffix = entry.partition(".")[2].rpartition(".")
            if suffix == "msg":
                listings.setdefault(queue, deque()).append(entry)
        self._listings, self._found = listings, set(listings)
        self._listed_at, self._listed_names = time.monotonic(), len(names)
        self._listing_seconds = self._listed_at - started

    def _may_list(self, queue: str) -> bool:
        """Whether ``queue``, its listing used up, lists the folder again now."""
        return (queue in self._found or self._listed_names <= self.SHORT_LISTING
                or time.monotonic() - self._listed_at >= max((self.connection.polling_interval or 1.0) / 2,
                                                             self.EMPTY_QUEUE_WAIT_FACTOR * self._listing_seconds))

    def _get(self, queue: str) -> Any:
        """The oldest message waiting in ``queue``; ``Empty`` if there is none."""
        listing = self._listings.get(queue)
        if not listing and self._may_list(queue):
            self._list()
            listing = self._listings.get(queue)
        while listing:
            entry = listing.popleft()
            waiting = os.path.join(self.data_folder_in, entry)
            # kombu's own folder for taken messages, on the queue's filesystem (a rename, never a copy)
            taken = os.path.join(self.processed_folder, entry)
            try:
                os.rename(waiting, taken)
            except FileNotFoundError:  # another worker took it
                continue
            try:
                with open(taken, "rb") as fh:
                    fcntl.flock(fh, fcntl.LOCK_SH)  # its writer holds LOCK_EX until it is whole
                    payload = fh.read()
                if not payload:  # taken between its creation and its writer's lock: put it back for later
                    os.rename(taken, waiting)
                    continue
                if not self.store_processed:
                    os.remove(taken)
            except OSError as exc:
                raise ChannelError(f"Cannot read file {taken!r} from queue.") from exc
            return loads(bytes_to_str(payload))
        raise Empty()

    def get_table(self, exchange: str) -> list[Binding]:
        """The queues bound to ``exchange``, read under a shared lock."""
        path = self._exchange_file(exchange)
        try:
            with open(path, "rb") as fh:
                fcntl.flock(fh, fcntl.LOCK_SH)
                return _bindings(fh.read())
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open {path}") from exc

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        binding = Binding(routing_key or "", pattern or "", queue or "")
        self._change_table(exchange, lambda table: table if binding in table else [binding, *table])

    def _delete(self, queue: str, exchange: str, routing_key: str, pattern: str, *args: Any, **kwargs: Any) -> None:
        # kombu's virtual channel forgets the queue; its table is changed here, not by kombu's filesystem channel
        super(filesystem.Channel, self)._delete(queue, exchange, routing_key, pattern, *args, **kwargs)
        binding = Binding(routing_key or "", pattern or "", queue or "")
        if self._exchange_file(exchange).exists():
            self._change_table(exchange, lambda table: [b for b in table if b != binding])

    def _change_table(self, exchange: str, change: Callable[[list[Binding]], list[Binding]]) -> None:
        """Read, change and write ``exchange``'s table whole under one exclusive lock (never truncated
        before the lock is held)."""
        path = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise ChannelError(f"Cannot open {path}") from exc
        with os.fdopen(fd, "r+b", buffering=0) as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            table = change(_bindings(fh.read()))
            fh.seek(0)
            fh.write(json.dumps(table).encode())
            fh.truncate()


def _bindings(text: bytes) -> list[Binding]:
    """An exchange table's bindings: none for an empty file (created, not yet written); of a table left
    damaged by kombu's own binding (a shorter table written over a longer one), the whole one at its start."""
    try:
        table, _ = json.JSONDecoder().raw_decode(text.decode("utf-8", "replace"))
        return [Binding(*row) for row in table]
    except (ValueError, TypeError):
        return []


class Transport(filesystem.Transport):
    """kombu's filesystem transport with the channel above."""

    Channel = Channel
