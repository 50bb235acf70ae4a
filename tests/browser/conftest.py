"""Playwright driving Debian's Chromium (never a downloaded browser); skipped with the reason where
either is missing, failed instead in CI (the ``browser`` marker, tests/conftest.py)."""
from __future__ import annotations

import os

import pytest

from arena_testing import CHROMIUM, browser_problem, tools_required

# Playwright's sync API runs an event loop in this thread; the Django ORM calls the tests make next to
# it are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def chromium():
    problem = browser_problem()
    if problem is not None:
        # Session fixtures come before the autouse check of tests/conftest.py: decide here as well.
        if tools_required():
            pytest.fail(f"the browser is required here (CI / ARENA_REQUIRE_SERVICES=1) but: {problem}")
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


class Page:
    """A browser tab that records console errors and uncaught exceptions."""

    def __init__(self, browser, **context_options):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, **context_options)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_function("() => window.arenaViewer && window.arenaViewer.renders > 0")
        self.page.evaluate("window.arenaViewer.ready")

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def counts(self, selectors) -> dict[str, int]:
        """How many elements of the drawn board match each selector."""
        count = "(sels) => Object.fromEntries(sels.map((s) => [s, document.querySelectorAll('.av-board ' + s).length]))"
        return self.js(count, list(selectors))


@pytest.fixture
def tab(chromium):
    tabs = []

    def make(**context_options) -> Page:
        tabs.append(Page(chromium, **context_options))
        return tabs[-1]

    yield make
    for t in tabs:
        t.context.close()
