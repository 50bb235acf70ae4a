"""Shared fixtures. Engine tests need no database; platform tests use pytest-django's."""
from __future__ import annotations

import pytest

from arena_testing import browser_problem, tools_required


@pytest.fixture
def builtin_versions(db):
    """The built-in bot versions of Port Royal, by name."""
    from bots.services import register_builtin_bots

    return {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}


# In CI (and wherever services are required) a missing sandbox fails the sandbox tests instead of skipping them.
REQUIRED = tools_required()


def pytest_collection_modifyitems(config, items):
    """Tests marked ``sandbox`` (``browser``) skip, saying why, where bubblewrap (Chromium) cannot run,
    unless required."""
    from engines.sandbox import sandbox_problem

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
