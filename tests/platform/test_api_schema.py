"""The API's contract: a valid OpenAPI 3 schema at /api/schema/, docs at /api/docs/ served from our own static
files, and schemathesis calling every operation (anonymously and with a token) on a seeded database: no 5xx,
and every response matches the schema (status codes, content types, bodies)."""
import os
import re

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from drf_spectacular.validation import validate_schema
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from players.models import Player

# Examples per operation: small by default so the whole test stays near a minute on 2 cores, derandomized so a
# run is reproducible; ARENA_SCHEMATHESIS_EXAMPLES=80 (about 2 minutes) hunts deeper.
MAX_EXAMPLES = int(os.environ.get("ARENA_SCHEMATHESIS_EXAMPLES", 12))
TOKEN = "0123456789abcdef0123456789abcdef01234567"

# Every check but one: a schema cannot say that a referenced bot exists or a username is free, so a
# schema-valid request may rightly be refused (400) and "positive data acceptance" does not apply.
UNCHECKABLE = [schemathesis.checks.positive_data_acceptance]

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@pytest.fixture
def in_process_requests(db):
    """Requests into the WSGI app inside the test's transaction: like Django's test client, keep Django from
    closing the database connection when a request finishes."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def seeded(in_process_requests):
    """Built-in bots, a finished tournament with its matches and ratings, a player with a known token."""
    from bots.services import register_builtin_bots
    from tournaments import services
    from tournaments.running import pipeline

    versions = {v.builtin_name: v for v in register_builtin_bots(["port_royal", "top_race"])
                if v.bot.game == "port_royal"}
    tournament = services.create_tournament(name="seeded", game="port_royal", seats=2, games_per_pairing=2,
                                            bot_versions=[versions["random"], versions["heuristic"]], seed=3)
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
    Player.objects.create_user("alice", password="a-long-enough-passphrase-42")
    return tournament


def restore_token() -> dict[str, str]:
    """alice's token as the test knows it (an operation may have rotated or revoked it)."""
    alice = Player.objects.get(username="alice")
    Token.objects.filter(user=alice).exclude(key=TOKEN).delete()
    Token.objects.get_or_create(key=TOKEN, user=alice)
    return {"Authorization": f"Token {TOKEN}"}


def test_the_schema_is_valid_openapi_3_and_covers_every_endpoint(db):
    document = APIClient().get("/api/schema/?format=json").json()
    validate_schema(document)  # against the OpenAPI 3 JSON Schema
    assert document["openapi"].startswith("3.")
    paths = set(document["paths"])
    assert {"/api/games/", "/api/bots/", "/api/tournaments/", "/api/matches/", "/api/matches/{id}/log/",
            "/api/leaderboards/{game}/", "/api/token/", "/api/token/rotate/", "/api/register/"} <= paths
    assert "Error" in document["components"]["schemas"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status in ("400", "401", "404", "429"):
                assert status in operation["responses"], (method, path, status)
            error = operation["responses"]["404"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}
            ok = next(code for code in operation["responses"] if code.startswith("2"))
            if method == "get" and "{" not in path:  # lists are paginated
                listed = operation["responses"][ok]["content"]["application/json"]["schema"]["$ref"]
                page = document["components"]["schemas"][listed.rsplit("/", 1)[1]]
                assert {"count", "next", "previous", "results"} <= set(page["properties"]), path
    upload = document["paths"]["/api/bots/"]["post"]["requestBody"]["content"]
    assert list(upload) == ["multipart/form-data"]
    create = document["paths"]["/api/tournaments/"]["post"]["requestBody"]["content"]["application/json"]
    body = document["components"]["schemas"][create["schema"]["$ref"].rsplit("/", 1)[1]]
    assert body["properties"]["options"]["type"] == "object"


def test_the_docs_page_is_served_from_local_static_files(db):
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/api/schema/" in html
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert urls and not [u for u in urls if re.match(r"(https?:)?//", u)], urls
    assert not re.search(r"https?://", html)  # nor in the inline script
    assert '"validatorUrl": null' in html  # Swagger UI would ask an online validator for its badge
    static = [u for u in urls if u.startswith("/static/")]
    assert any("swagger-ui" in u for u in static)
    for url in static:
        assert finders.find(url.removeprefix("/static/")), url  # shipped in a package: no CDN needed


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_every_operation_answers_within_its_contract(case, seeded):
    # The in-process WSGI client does not undo Content-Encoding (an HTTP client would): ask for plain bodies.
    plain = {"Accept-Encoding": "identity"}
    case.call_and_validate(headers=plain, excluded_checks=UNCHECKABLE)
    case.call_and_validate(headers={**plain, **restore_token()}, excluded_checks=UNCHECKABLE)


@pytest.mark.parametrize("debug", [False, True])
def test_options_on_the_docs_page_answers_the_allowed_methods(db, settings, debug):
    settings.DEBUG = debug
    client = APIClient(raise_request_exception=False)
    response = client.options("/api/docs/")
    assert response.status_code == 200, response.content[:300]
    assert set(response["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"} and not response.content
