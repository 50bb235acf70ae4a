"""The embedded broker (infra/broker.py): kombu's filesystem transport taking from a kept listing, on a real
folder, through kombu's own queues."""
import fcntl
import multiprocessing
import os
import threading
import time

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Producer, Queue
from kombu.transport.virtual import BrokerState

from infra.broker import Transport


@pytest.fixture(autouse=True)
def own_exchanges(monkeypatch):
    """kombu keeps the filesystem transport's declared exchanges in one state per process: each test's
    folder starts without them, so each test gets its own state (else a queue declared by an earlier
    test is not bound again in this one's folder, and its messages go nowhere)."""
    monkeypatch.setattr(Transport, "global_state", BrokerState())


def connection(folder) -> Connection:
    for sub in ("queue", "processed", "control"):
        (folder / sub).mkdir(exist_ok=True)
    return Connection("filesystem://", transport=Transport, transport_options={
        "data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"), "control_folder": str(folder / "control"),
        "store_processed": False})


def take_all(queue) -> list:
    taken = []
    while True:
        try:
            message = queue.get(block=False)
        except queue.Empty:
            return taken
        taken.append(message.payload)
        message.ack()


def test_messages_come_oldest_first_each_once_between_two_takers(tmp_path):
    with connection(tmp_path) as put_conn, connection(tmp_path) as a_conn, connection(tmp_path) as b_conn:
        put = put_conn.SimpleQueue("matches")
        for i in range(30):
            put.put({"match": i})
            time.sleep(0.002)  # names begin with the millisecond they were written
        a, b = a_conn.SimpleQueue("matches"), b_conn.SimpleQueue("matches")
        got = []
        for _ in range(10):  # both have listed all thirty; each skips what the other took
            for name, queue in (("a", a), ("b", b)):
                message = queue.get(block=False)
                message.ack()  # an unacknowledged message goes back to the queue when its channel closes
                got.append((name, message.payload["match"]))
        for i in range(30, 35):  # written after both listings: taken after the listed ones
            put.put({"match": i})
            time.sleep(0.002)
        rest = [m["match"] for m in take_all(a)] + [m["match"] for m in take_all(b)]
    order = [i for _, i in got] + rest
    assert sorted(order) == list(range(35))  # every message once
    assert [i for _, i in got] == list(range(20)) and rest == list(range(20, 35))
    assert not os.listdir(tmp_path / "queue") and not os.listdir(tmp_path / "processed")


def test_other_queues_messages_stay(tmp_path):
    with connection(tmp_path) as conn:
        conn.SimpleQueue("validations").put({"version": 7})
        conn.SimpleQueue("matches").put({"match": 1})
        assert take_all(conn.SimpleQueue("matches")) == [{"match": 1}]
        assert [name.partition(".")[2] for name in os.listdir(tmp_path / "queue")] == ["validations.msg"]
        assert take_all(conn.SimpleQueue("validations")) == [{"version": 7}]


def test_an_empty_queue_lists_a_long_folder_again_only_after_a_wait(tmp_path, monkeypatch):
    """A worker polls its remote-control queue between matches: behind a backlog of matches that queue must
    not list the whole folder at every poll; a queue that used up its listing lists again at once."""
    from infra.broker import Channel

    monkeypatch.setattr(Channel, "SHORT_LISTING", 3)  # so that five waiting matches make a long listing
    monkeypatch.setattr(Channel, "EMPTY_QUEUE_WAIT_FACTOR", 1)  # the wait is half the polling interval, even if
    # a loaded machine takes milliseconds to list six names
    listings = []
    real_listdir = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path: listings.append(path) or real_listdir(path))
    with connection(tmp_path) as conn:
        conn.transport.polling_interval = 0.4
        matches, control = conn.SimpleQueue("matches"), conn.SimpleQueue("control")
        for i in range(5):
            matches.put({"match": i})
            time.sleep(0.002)  # names begin with the millisecond they were written
        first = matches.get(block=False)
        first.ack()
        listed = len(listings)
        for _ in range(50):  # between matches, as a worker's event loop does
            with pytest.raises(control.Empty):
                control.get(block=False)
        assert len(listings) == listed  # the matches' listing served the control queue too
        control.put({"command": "ping"})
        time.sleep(0.25)  # more than half the polling interval
        monkeypatch.setattr(Channel, "EMPTY_QUEUE_WAIT_FACTOR", 10 ** 6)  # as if the listing had been slow
        with pytest.raises(control.Empty):
            control.get(block=False)
        monkeypatch.setattr(Channel, "EMPTY_QUEUE_WAIT_FACTOR", 1)
        assert control.get(block=False).payload == {"command": "ping"}
        assert len(listings) == listed + 1
        assert [m["match"] for m in take_all(matches)] == [1, 2, 3, 4]
        matches.put({"match": 5})  # the matches' queue had names in the latest listing: it lists again at once
        assert [m["match"] for m in take_all(matches)] == [5]
    assert first.payload == {"match": 0}


def test_a_short_folder_is_listed_at_every_poll(tmp_path):
    """Few messages waiting: a message is seen at the next poll, whichever queue listed last."""
    with connection(tmp_path) as conn:
        matches, control = conn.SimpleQueue("matches"), conn.SimpleQueue("control")
        with pytest.raises(control.Empty):
            control.get(block=False)
        control.put({"command": "ping"})
        matches.put({"match": 1})
        assert control.get(block=False).payload == {"command": "ping"}
        assert matches.get(block=False).payload == {"match": 1}


def one_message(queue, folder) -> tuple[str, bytes]:
    """Put one message; its file's name and bytes as kombu wrote them."""
    queue.put({"match": 1})
    (name,) = os.listdir(folder)
    return name, (folder / name).read_bytes()


def test_a_message_taken_mid_write_is_read_whole(tmp_path):
    """kombu writes under an exclusive lock: the taker waits for it instead of reading half a message."""
    with connection(tmp_path) as conn:
        queue = conn.SimpleQueue("matches")
        name, whole = one_message(queue, tmp_path / "queue")
        (tmp_path / "queue" / name).unlink()
        writer = open(tmp_path / "queue" / name, "wb", buffering=0)  # noqa: SIM115 - released below
        fcntl.flock(writer, fcntl.LOCK_EX)
        writer.write(whole[:20])
        taken = []
        reader = threading.Thread(target=lambda: taken.append(queue.get(timeout=5).payload))
        reader.start()
        time.sleep(0.3)
        assert not taken and reader.is_alive()  # waiting on the writer's lock
        writer.write(whole[20:])
        fcntl.flock(writer, fcntl.LOCK_UN)
        writer.close()
        reader.join(5)
    assert taken == [{"match": 1}]


def test_an_empty_message_file_is_put_back_for_its_writer(tmp_path):
    """Renamed between its creation and its writer's lock: found empty, it goes back to the queue."""
    with connection(tmp_path) as conn:
        queue = conn.SimpleQueue("matches")
        name, whole = one_message(queue, tmp_path / "queue")
        (tmp_path / "queue" / name).write_bytes(b"")
        with pytest.raises(queue.Empty):
            queue.get(block=False)
        assert os.listdir(tmp_path / "queue") == [name]  # back, not lost
        (tmp_path / "queue" / name).write_bytes(whole)
        assert queue.get(block=False).payload == {"match": 1}


BROADCAST = Exchange("celery.pidbox", type="fanout")  # where Celery's remote control broadcasts


def remote_control_queue(conn, worker: str) -> Queue:
    """A worker's remote-control queue, declared and bound to the broadcast exchange as Celery does."""
    queue = Queue(f"{worker}.celery.pidbox", BROADCAST)(conn.default_channel)
    queue.declare()
    return queue


def heard(queue: Queue) -> list:
    """What a remote-control queue holds, taken."""
    taken = []
    while (message := queue.get(no_ack=True)) is not None:
        taken.append(message.payload)
    return taken


def broadcast(conn, body: dict) -> None:
    Producer(conn.default_channel).publish(body, exchange=BROADCAST, routing_key="")


def start_worker_binding(folder, worker: str, barrier) -> None:
    Transport.global_state = BrokerState()  # a worker process starts with no bindings known
    with connection(folder) as conn:
        conn.default_channel  # noqa: B018 - connected before the barrier, so the binds meet
        barrier.wait()
        remote_control_queue(conn, worker)


def test_workers_starting_together_all_hear_a_broadcast(tmp_path):
    """kombu's own binding truncates a missing table's file before locking it and writes a shorter table
    without truncating: of eight workers starting at once, most rounds lost a binding (that worker never heard
    a ping or a shutdown) or left a table that failed every later worker's start."""
    forked = multiprocessing.get_context("fork")
    for round_ in range(6):
        folder = tmp_path / str(round_)
        folder.mkdir()
        workers = [f"worker-{i}" for i in range(8)]
        barrier = forked.Barrier(len(workers))
        children = [forked.Process(target=start_worker_binding, args=(folder, w, barrier)) for w in workers]
        for child in children:
            child.start()
        for child in children:
            child.join(30)
        assert [child.exitcode for child in children] == [0] * len(workers)
        with connection(folder) as conn:
            broadcast(conn, {"method": "ping", "round": round_})
            rounds = {w: [m["round"] for m in heard(remote_control_queue(conn, w))] for w in workers}
        assert rounds == {w: [round_] for w in workers}


def test_a_damaged_exchange_table_keeps_its_bindings(tmp_path):
    """A table left damaged by kombu's own binding (a shorter table written over a longer one) keeps the
    bindings at its start, and the next binding writes it whole again."""
    with connection(tmp_path) as conn:
        remote_control_queue(conn, "worker-1")
        table = tmp_path / "control" / "celery.pidbox.exchange"
        table.write_bytes(table.read_bytes() + b'"], ["", "", "gone"]]')
        remote_control_queue(conn, "worker-2")
        broadcast(conn, {"method": "ping"})
        assert heard(remote_control_queue(conn, "worker-1")) == [{"method": "ping"}]
        assert heard(remote_control_queue(conn, "worker-2")) == [{"method": "ping"}]
        assert sorted(q for _, _, q in conn.default_channel.get_table("celery.pidbox")) == [
            "worker-1.celery.pidbox", "worker-2.celery.pidbox"]


def test_a_deleted_queue_leaves_the_exchange_table(tmp_path):
    with connection(tmp_path) as conn:
        remote_control_queue(conn, "worker-1")
        remote_control_queue(conn, "worker-2").delete()
        assert [q for _, _, q in conn.default_channel.get_table("celery.pidbox")] == ["worker-1.celery.pidbox"]
        broadcast(conn, {"method": "shutdown"})
        assert heard(remote_control_queue(conn, "worker-1")) == [{"method": "shutdown"}]


def test_the_embedded_settings_use_it():
    if not settings.CELERY_BROKER_URL.startswith("filesystem"):
        pytest.skip("this run's broker is not the embedded one")
    from arena.celery import app

    with app.connection_for_write() as conn:
        assert isinstance(conn.transport, Transport)
