"""infra.bulk.writers_in_turn on the embedded SQLite: the match pipeline's writers take turns on an OS lock,
and checkpoint the database's write-ahead log after their turn, not in it. (Elsewhere the turn takes nothing:
tests/platform/test_bulk.py covers what the pipeline's batches do on both databases.)"""
import fcntl

import pytest
from django.db import connection

from infra.bulk import (CHECKPOINT_EVERY_TURNS, WAL_CHECKPOINT_BOUND_PAGES, insert_rows, run_statements,
                        writers_in_turn)
from ratings.models import GameLock


@pytest.mark.django_db(transaction=True)
def test_pipeline_writers_checkpoint_the_log_after_their_turn_not_in_it():
    """SQLite: a writer's commits leave the log's checkpoints to it (the bound of SQLite's own is raised), and
    it checkpoints every CHECKPOINT_EVERY_TURNS turns with the turn free for the other workers."""
    if connection.vendor != "sqlite":
        pytest.skip("the write turn is SQLite's (elsewhere writers_in_turn takes nothing)")
    with writers_in_turn():
        pass
    raw = connection.connection
    assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WAL_CHECKPOINT_BOUND_PAGES
    other = open(f"{connection.settings_dict['NAME']}-writers.lock", "a+b")  # another open file: another holder
    checkpoints = []

    def traced(sql: str) -> None:
        if "wal_checkpoint" in sql:
            try:  # the turn is free if another holder can take it at once
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(other, fcntl.LOCK_UN)
                checkpoints.append("turn free")
            except BlockingIOError:
                checkpoints.append("turn held")

    raw.set_trace_callback(traced)
    try:
        for n in range(2 * CHECKPOINT_EVERY_TURNS):
            with writers_in_turn():
                run_statements([insert_rows(GameLock, [{"game": f"game{n}", "sequence": 0}])])
    finally:
        raw.set_trace_callback(None)
        other.close()
    assert checkpoints == ["turn free", "turn free"]
    assert GameLock.objects.count() == 2 * CHECKPOINT_EVERY_TURNS
