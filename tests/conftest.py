"""Shared fixtures. Engine tests need no database; platform tests use pytest-django's."""
from __future__ import annotations

import pytest

from arena_testing import browser_problem, tools_required


@pytest.fixture
def builtin_versions(db):
    """The built-in bot versions of Port Royal, by name."""
    from bots.services import register_builtin_bots

    return {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}


@pytest.fixture
def played(builtin_versions):
    """A rated Port Royal tournament, "Summer Cup", of the built-in random and heuristic bots, its 2 matches played."""
    from tournaments import services
    from tournaments.running import pipeline

    tournament = services.create_tournament(name="Summer Cup", game="port_royal", seats=2, games_per_pairing=2,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]],
                                            rated=True)
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
    return tournament


# In CI (and wherever services are required) a missing sandbox fails the sandbox tests instead of skipping them.
REQUIRED = tools_required()


def pytest_collection_modifyitems(config, items):
    """Tests marked ``sandbox`` (``browser``) skip, saying why, where bubblewrap (Chromium) cannot run,
    unless required. Tests marked ``postgresql`` are left out of a run on another database: they run in
    tests/integration/test_postgresql_path.py, which runs their modules on a real PostgreSQL."""
    from django.conf import settings

    from engines.sandbox import sandbox_problem

    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        other = [item for item in items if item.get_closest_marker("postgresql")]
        if other:
            config.hook.pytest_deselected(items=other)
            items[:] = [item for item in items if not item.get_closest_marker("postgresql")]

    for marker, find_problem, what in (("sandbox", sandbox_problem, "sandbox"), ("browser", browser_problem, "browser")):
        marked = [item for item in items if item.get_closest_marker(marker)]
        if not marked or REQUIRED:
            continue  # when required, _require_sandbox / _require_browser fail each of them loudly
        problem = find_problem()
        if problem is not None:
            for item in marked:
                item.add_marker(pytest.mark.skip(reason=f"{what} unavailable: {problem}"))


@pytest.fixture(autouse=True)
def _require_sandbox(request):
    if request.node.get_closest_marker("sandbox") and REQUIRED:
        from engines.sandbox import sandbox_problem

        problem = sandbox_problem()
        if problem is not None:
            pytest.fail(f"the sandbox is required here (CI / ARENA_REQUIRE_SERVICES=1) but: {problem}")


@pytest.fixture(autouse=True)
def _require_browser(request):
    if request.node.get_closest_marker("browser") and REQUIRED:
        problem = browser_problem()
        if problem is not None:
            pytest.fail(f"the browser is required here (CI / ARENA_REQUIRE_SERVICES=1) but: {problem}")


@pytest.fixture(autouse=True)
def _no_lease_heartbeat_inside_test_transactions(request):
    """A test's rows live in its uncommitted transaction, which the lease heartbeat's own thread (its own
    connection) cannot see (and SQLite would make it wait for the write lock). Such tests keep the lease
    the claim gave; heartbeats are tested with committed rows (transactional_db) and real workers."""
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or (marker and marker.kwargs.get("transaction"))
    if "db" in request.fixturenames and not transactional:
        from django.conf import settings

        mp = pytest.MonkeyPatch()
        mp.setitem(settings.ARENA, "HEARTBEAT_SECONDS", 3600.0)
        yield
        mp.undo()
    else:
        yield


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: tests reuse one database name, and cached pages (rated
    statistics are kept for minutes by design) must not carry over from another test's data."""
    from django.core.cache import cache

    cache.clear()
