"""The Content-Security-Policy in a real browser (Chromium, live server): the match viewer still renders and
steps under it, no page the site serves trips it (match, home, leaderboard, bot page, API docs, admin login),
and a script injected into the page without the request's nonce does not run."""
from __future__ import annotations

import pytest

from bots.services import register_builtin_bots
from players.models import Player
from tournaments import services
from tournaments.running import pipeline
from viewer_testing import stored_match

pytestmark = pytest.mark.browser

# Runs in every page before its own scripts (injected by the browser, outside the page's policy): records the
# violations the page reports.
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.cspViolations.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`));
"""


# A function, not a bare expression: Playwright evaluates a bare expression's text again at every poll, which
# the policy (no 'unsafe-eval') refuses; a function's text is evaluated once, while the browser still allows it.
VIEWER_DRAWN = "() => window.arenaViewer && window.arenaViewer.renders > 0"


def watched(tab):
    """A tab that records CSP violations: window.cspViolations, and the console's "Refused to ..." lines."""
    t = tab()
    t.context.add_init_script(RECORD_VIOLATIONS)
    t.console = []
    t.page.on("console", lambda m: t.console.append(m.text))
    return t


def violations(t) -> list[str]:
    """What the open page (and the console so far) reported against the policy."""
    reported = t.js("window.cspViolations")
    refused = [line for line in t.console if "Content Security Policy" in line]
    return reported + refused


@pytest.fixture
def site(transactional_db):
    """A finished match of an uploaded bot (the viewer's page) and a rated tournament (a leaderboard)."""
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    match = stored_match("port_royal", alice, seed=3)
    builtins = {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}
    tournament = services.create_tournament(name="Rated Cup", game="port_royal", seats=2, games_per_pairing=1,
                                            bot_versions=[builtins["random"], builtins["heuristic"]], rated=True)
    for m in tournament.matches.all():
        pipeline.run_match(m.pk)
    return {"match": match, "bot": match.seats.get(seat=0).bot_version.bot_id}


def test_the_viewer_renders_and_steps_under_the_policy(tab, live_server, site):
    t = watched(tab)
    response = t.page.goto(f"{live_server.url}/matches/{site['match'].pk}/?move=2")
    script_src = [d.split()[1:] for d in response.headers["content-security-policy"].split(";")
                  if d.split()[0] == "script-src"]
    assert len(script_src) == 1 and script_src[0][0] == "'self'" and script_src[0][1].startswith("'nonce-")
    assert len(script_src[0]) == 2  # nothing else: no 'unsafe-inline', no 'unsafe-eval'
    t.page.wait_for_function(VIEWER_DRAWN)
    assert t.js("arenaViewer.position()") == 2
    assert t.page.locator(".av-board svg").count() == 1  # drawn
    t.page.keyboard.press("ArrowRight")
    t.page.click(".av-bar [data-act=next]")
    assert t.js("arenaViewer.position()") == 4
    assert "move 4 /" in t.page.inner_text(".av-pos")
    t.page.click(".av-bar [data-act=last]")
    assert "Result" in t.page.inner_text(".av-current")
    assert t.js("arenaViewer.setView(0)") is True  # a seat view: fetched from frames.json under connect-src
    assert t.js("arenaViewer.view()") == "0"
    assert violations(t) == [] and t.errors == []


def test_no_page_trips_the_policy(tab, live_server, site):
    t = watched(tab)
    pages = {"/": "h1", "/games/port_royal/": "table", f"/bots/{site['bot']}/": "h2",
             f"/matches/{site['match'].pk}/": ".av-board svg",
             "/api/docs/": ".swagger-ui .opblock",  # Swagger UI drawn: its inline script ran
             "/admin/login/": "#login-form"}
    for path, drawn in pages.items():
        t.page.goto(f"{live_server.url}{path}")
        t.page.wait_for_selector(drawn)
        t.page.wait_for_load_state("load")
        assert violations(t) == [], path
        if path != "/admin/login/":  # the admin names no icon: the browser's own /favicon.ico is a 404
            assert t.errors == [], path


def test_an_injected_script_without_the_nonce_does_not_run(tab, live_server, site):
    t = watched(tab)
    t.page.goto(f"{live_server.url}/matches/{site['match'].pk}/")
    t.page.wait_for_function(VIEWER_DRAWN)
    ran = t.js("""() => {
        const script = document.createElement("script");
        script.textContent = "window.injected = 'script'";
        document.body.appendChild(script);
        const holder = document.createElement("div");
        holder.innerHTML = '<img src="data:," onerror="window.injected = \\'handler\\'">';
        document.body.appendChild(holder);
        return new Promise((done) => setTimeout(() => done(window.injected || null), 300));
    }""")
    assert ran is None
    # reports come asynchronously (the handler's once the image has failed): wait for both
    t.page.wait_for_function("""() => (window.cspViolations || []).some((v) => v.startsWith("script-src-attr"))
        && window.cspViolations.some((v) => v.startsWith("script-src-elem"))""")
    blocked = t.js("window.cspViolations")
    assert any(v.startswith("script-src-elem blocked inline") for v in blocked), blocked
    assert any(v.startswith("script-src-attr blocked inline") for v in blocked), blocked
