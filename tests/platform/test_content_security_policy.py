"""The Content-Security-Policy header (django-csp, arena/settings.py): every page carries the strict policy,
inline scripts run only with the request's nonce (match.html), the API docs page alone may run its inline
script, and the admin needs nothing more. The same in a real browser: tests/browser/test_csp_in_browser.py."""
import re

import pytest
from django.test import Client

from players.models import Player

STRICT = {
    "default-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def policy(response) -> dict[str, list[str]]:
    """The response's Content-Security-Policy as {directive: [sources]}."""
    header = response.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in directives, f"{name} twice in {header}"
        directives[name] = sources
    return directives


def nonce_of(directives: dict[str, list[str]]) -> str | None:
    """The nonce script-src allows (None without one)."""
    nonces = [s[len("'nonce-"):-1] for s in directives["script-src"] if s.startswith("'nonce-")]
    assert len(nonces) <= 1, directives["script-src"]
    return nonces[0] if nonces else None


def assert_strict(response) -> dict[str, list[str]]:
    """The site's policy: scripts from the site (and the request's nonce where the page uses it), no more."""
    directives = policy(response)
    for name, sources in STRICT.items():
        assert directives.get(name) == sources, (name, directives)
    script = directives["script-src"]
    assert script[0] == "'self'" and len(script) <= 2, script
    assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script
    assert set(directives) == {*STRICT, "script-src"}, directives
    return directives


def inline_scripts(html: str) -> list[tuple[str, str]]:
    """(attributes, text) of every <script> without a src that a browser would run (not a JSON data block)."""
    found = []
    for attrs, text in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        if "src=" not in attrs and 'type="application/json"' not in attrs:
            found.append((attrs, text))
    return found


def event_handlers(html: str) -> list[str]:
    """Inline event handler attributes (onclick=...) in the markup, scripts' text left out."""
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S)
    return re.findall(r"<[^>]*\son[a-z]+\s*=", markup, re.I)


@pytest.fixture
def staff_client(db):
    client = Client()
    client.force_login(Player.objects.create_user("root", password="pw-root-12345", is_staff=True))
    return client


def test_every_page_carries_the_strict_policy_and_no_inline_script_without_its_nonce(played, staff_client):
    match = played.matches.first()
    bot = match.seats.first().bot_version.bot_id
    pages = ["/", "/games/port_royal/", "/games/port_royal/stats/", "/games/port_royal/compare/", "/tournaments/",
             f"/tournaments/{played.pk}/", "/schedule/", f"/matches/{match.pk}/", f"/bots/{bot}/", "/me/",
             "/bots/upload/", "/staff/health/", "/accounts/login/", "/accounts/register/"]
    for url in pages:
        for client in (Client(), staff_client):
            response = client.get(url)
            nonce = nonce_of(assert_strict(response))
            if client is staff_client or response.status_code not in (302, 404):  # players only, staff only
                assert response.status_code == 200, url
            html = response.content.decode()
            for attrs, _text in inline_scripts(html):
                assert nonce and f'nonce="{nonce}"' in attrs, (url, attrs)
            assert event_handlers(html) == [], url
    # Not only pages: an error, a redirect and a JSON answer carry it too.
    assert_strict(Client().get("/no-such-page/"))
    assert_strict(Client().get("/me/"))
    assert_strict(Client().get(f"/matches/{match.pk}/log.json"))


def test_the_match_page_scripts_carry_a_fresh_nonce_each_request(played):
    url = f"/matches/{played.matches.first().pk}/"
    nonces = []
    for _ in range(2):
        response = Client().get(url)
        nonce = nonce_of(assert_strict(response))
        assert nonce and len(nonce) >= 16
        scripts = inline_scripts(response.content.decode())
        assert len(scripts) == 2  # the viewer and the line that starts it
        assert all(re.search(rf'\bnonce="{re.escape(nonce)}"', attrs) for attrs, _ in scripts)
        assert "ArenaViewer.load" in scripts[1][1]
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


def test_a_page_without_inline_scripts_allows_no_nonce(played):
    assert nonce_of(assert_strict(Client().get("/"))) is None


def test_the_api_docs_page_alone_may_run_its_inline_script(db):
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    directives = policy(response)
    # Swagger UI's start-up script is inline without a nonce (drf-spectacular's template): allowed on this
    # view only, without eval and with the rest of the policy as strict as elsewhere.
    assert directives["script-src"] == ["'self'", "'unsafe-inline'"]
    assert {k: v for k, v in directives.items() if k != "script-src"} == STRICT
    assert inline_scripts(response.content.decode())  # the script the exception is for
    # Every other API answer keeps the strict policy.
    assert_strict(Client().get("/api/schema/"))
    assert_strict(Client().get("/api/games/"))


def test_the_admin_login_needs_nothing_more(db):
    response = Client().get("/admin/login/")
    assert response.status_code == 200
    nonce = nonce_of(assert_strict(response))
    html = response.content.decode()
    assert inline_scripts(html) == [] and nonce is None  # the admin's scripts are static files
    assert event_handlers(html) == []
    assert re.search(r'<script[^>]+src="/static/admin/js/', html)  # served from the site: 'self' allows them
