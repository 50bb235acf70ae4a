"""infra.bulk.run_statements: several statements in one round trip (PostgreSQL: one query string of prepared
statements), and the commit of an outermost block sent with its last statements. The tests marked
``postgresql`` run on PostgreSQL in tests/integration/test_postgresql_path.py."""
import threading

import pytest
from django.db import IntegrityError, connection, connections, transaction

from infra.bulk import CREATE_ROWS_PER_STATEMENT, create_rows, insert_rows, run_statements
from ratings.models import GameLock
from tournaments.models import Match

def lock_row(game: str):
    return insert_rows(GameLock, [{"game": game, "sequence": 0}])


def committed(game: str) -> bool:
    """Whether another connection (another thread's) sees the game's lock row: whether it is committed."""
    seen = []

    def look():
        try:
            seen.append(GameLock.objects.filter(game=game).exists())
        finally:
            connections.close_all()

    thread = threading.Thread(target=look)
    thread.start()
    thread.join()
    return seen[0]


@pytest.mark.django_db(transaction=True)
def test_the_last_statements_of_the_outermost_block_commit_it():
    with transaction.atomic():
        run_statements([lock_row("a")], flush=False)
        run_statements([("UPDATE ratings_gamelock SET sequence = sequence + 1 WHERE game = %s", ["a"])], commit=True)
        if connection.vendor == "postgresql":  # committed in that round trip, before the block closes
            assert committed("a")
    assert GameLock.objects.get(game="a").sequence == 1
    assert connection.get_autocommit()
    with transaction.atomic():  # the connection goes on as usual
        GameLock.objects.filter(game="a").update(sequence=5)
        transaction.set_rollback(True)
    assert GameLock.objects.get(game="a").sequence == 1


@pytest.mark.django_db(transaction=True)
def test_inside_a_savepoint_nothing_commits_early():
    with transaction.atomic():
        with transaction.atomic():
            run_statements([lock_row("b")], commit=True)
            if connection.vendor == "postgresql":
                assert not committed("b")
        transaction.set_rollback(True)
    assert not GameLock.objects.filter(game="b").exists()


@pytest.mark.django_db(transaction=True)
def test_a_failing_statement_commits_nothing_of_its_block():
    GameLock.objects.create(game="c")
    with pytest.raises(IntegrityError), transaction.atomic():
        run_statements([lock_row("d")])
        run_statements([lock_row("e"), lock_row("c")], commit=True)  # "c" exists
    with pytest.raises(IntegrityError), transaction.atomic():
        run_statements([lock_row("f"), lock_row("c")], flush=False)  # the block's first statements fail
    assert not GameLock.objects.filter(game__in=["d", "e", "f"]).exists()
    assert connection.get_autocommit()
    assert run_statements([("SELECT count(*) FROM ratings_gamelock", [])])[0].rows == [(1,)]


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_statements_outside_a_transaction_form_one():
    GameLock.objects.create(game="c")
    with pytest.raises(IntegrityError):
        run_statements([lock_row("g"), lock_row("c")])
    assert not GameLock.objects.filter(game="g").exists()


@pytest.mark.postgresql
@pytest.mark.django_db
def test_each_statement_is_prepared_once_per_connection():
    sql = "SELECT %s::int + 1, 'bulk-prepared', '100%%'"
    assert [run_statements([(sql, [n])])[0].rows for n in (1, 2)] == [[(2, "bulk-prepared", "100%")], [(3, "bulk-prepared", "100%")]]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%bulk-prepared%"])
        assert cursor.fetchone() == (1,)


@pytest.mark.django_db
def test_create_rows_writes_what_bulk_create_writes_and_returns_the_ids_in_order():
    options = {"max_turns": 30}
    count = 2 * CREATE_ROWS_PER_STATEMENT + 3  # three statements
    ids = create_rows(Match, [{"game": "port_royal", "seed": seed, "options": options} for seed in range(count)])
    made, = Match.objects.bulk_create([Match(game="port_royal", seed=0, options=options)])
    rows = list(Match.objects.filter(pk__in=ids).order_by("pk").values())
    assert [row["id"] for row in rows] == ids == sorted(ids) and len(set(ids)) == count
    assert [row["seed"] for row in rows] == list(range(count))
    expected = Match.objects.filter(pk=made.pk).values().get()
    unlike = {"id", "seed", "created_at"}
    for row in rows:
        assert {k: v for k, v in row.items() if k not in unlike} == {k: v for k, v in expected.items() if k not in unlike}
        assert abs(row["created_at"] - expected["created_at"]).total_seconds() < 60
    assert create_rows(Match, []) == []
