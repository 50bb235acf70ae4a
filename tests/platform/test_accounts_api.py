"""Accounts: failed logins are throttled (429 + Retry-After) on the page and the API alike; registration in the
API; a player rotates and revokes their token (API and /me/)."""
import pytest
from django.conf import settings
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from players.models import Player

PASSWORD = "a-long-enough-passphrase-42"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    """Logins hash passwords; a fast hasher keeps these many logins quick (what is tested is the counting)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice(db, fast_hashing):
    return Player.objects.create_user("alice", password=PASSWORD)


def api_login(password, username="alice", address="127.0.0.1"):
    return APIClient(REMOTE_ADDR=address).post("/api/token/", {"username": username, "password": password},
                                               format="json")


def page_login(password, username="alice"):
    return Client().post("/accounts/login/", {"username": username, "password": password})


def test_the_api_locks_a_username_out_after_the_failure_limit(alice):
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        assert api_login("wrong").status_code == 400
    last = api_login("wrong")
    assert last.status_code == 429, last.content
    locked = api_login(PASSWORD)  # even the right password waits out the cool-off
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    body = locked.json()
    assert body["error"] == "throttled" and "try again in" in body["detail"]
    assert not Token.objects.filter(user=alice).exists()
    # The lock is per (username, address): alice from elsewhere, and others from here, still get in.
    assert api_login(PASSWORD, address="10.1.2.3").status_code == 200


def test_a_success_before_the_limit_resets_the_count(alice):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        api_login("wrong")
    assert api_login(PASSWORD).status_code == 200
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert api_login("wrong").status_code == 400


def test_the_login_page_is_throttled_too_and_shares_the_count(alice):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert page_login("wrong").status_code == 200  # the form again, with its error
    assert page_login("wrong").status_code == 429
    page = page_login(PASSWORD)
    assert page.status_code == 429 and page["Retry-After"]
    assert b"too many failed logins" in page.content
    assert api_login(PASSWORD).status_code == 429  # the API sees the same count


def test_register_gives_a_working_token(db):
    response = APIClient().post("/api/register/", {"username": "bob", "password": PASSWORD, "email": "b@x.org"},
                                format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "bob" and Token.objects.get(user__username="bob").key == body["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert client.post("/api/token/rotate/").status_code == 200
    assert api_login(PASSWORD, username="bob").status_code == 200


@pytest.mark.parametrize("body,field", [
    ({"username": "bob", "password": "123"}, "password"),            # too short, numeric
    ({"username": "bob", "password": "password123"}, "password"),    # too common
    ({"username": "bobby-tables", "password": "bobby-tables1"}, "password"),  # like the username
    ({"username": "arena", "password": PASSWORD}, "username"),       # taken (the system player)
    ({"username": "bo b!", "password": PASSWORD}, "username"),
    ({"password": PASSWORD}, "username"),
    ({"username": "bob"}, "password"),
    ({"username": "bob", "password": PASSWORD, "email": "nope"}, "email"),
])
def test_register_refuses_with_reasons(db, body, field):
    from players.services import system_player

    system_player()
    response = APIClient().post("/api/register/", body, format="json")
    assert response.status_code == 400, response.content
    data = response.json()
    assert data["error"] == "invalid" and field in data["fields"] and isinstance(data["detail"], str)
    assert not Player.objects.filter(username=body.get("username", "")).exclude(username="arena").exists()


# A name that reads like another player's, or like the platform's, would let anyone pass for them on every page.
LOOKALIKES = ["Arena", "ARENA", "\u0430rena",  # the system player's, in capitals or with a Cyrillic "а"
              "Alice", "al\u0456ce",           # alice's, in another case or with a Ukrainian "і"
              "admin", "Staff", "r\u00f6ot"]   # reserved, and a non-ASCII letter


@pytest.mark.parametrize("username", LOOKALIKES)
def test_nobody_registers_a_name_that_reads_as_another(alice, username):
    from players.services import system_player

    system_player()
    players = Player.objects.count()
    response = APIClient().post("/api/register/", {"username": username, "password": PASSWORD}, format="json")
    assert response.status_code == 400 and "username" in response.json()["fields"], response.content
    page = Client().post("/accounts/register/", {"username": username, "email": "", "password1": PASSWORD,
                                                 "password2": PASSWORD})
    assert page.status_code == 200 and b"errorlist" in page.content  # the form again, with the reason
    assert Player.objects.count() == players


def test_a_new_name_in_ascii_registers(alice):
    for client, name in ((APIClient(), "alice2"), (Client(), "Bob.Smith")):
        if isinstance(client, APIClient):
            response = client.post("/api/register/", {"username": name, "password": PASSWORD}, format="json")
            assert response.status_code == 201, response.content
        else:
            response = client.post("/accounts/register/", {"username": name, "email": "", "password1": PASSWORD,
                                                           "password2": PASSWORD})
            assert response.status_code == 302, response.content
    assert set(Player.objects.values_list("username", flat=True)) == {"alice", "alice2", "Bob.Smith"}


def test_the_database_refuses_names_that_differ_in_case_only(alice):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create_user("ALICE", password=PASSWORD)


def token_api(player):
    token, _ = Token.objects.get_or_create(user=player)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client, token.key


def test_rotating_the_token_retires_the_old_one(alice):
    client, old = token_api(alice)
    response = client.post("/api/token/rotate/")
    assert response.status_code == 200
    new = response.json()["token"]
    assert new != old and Token.objects.get(user=alice).key == new
    assert client.post("/api/token/rotate/").status_code == 401  # the old token is dead
    client.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert client.get("/api/bots/").status_code == 200


def test_revoking_the_token(alice):
    client, _ = token_api(alice)
    assert client.delete("/api/token/").status_code == 204
    assert not Token.objects.filter(user=alice).exists()
    assert client.get("/api/games/").json()["error"] == "authentication_failed"
    assert APIClient().delete("/api/token/").status_code == 401
    assert APIClient().post("/api/token/rotate/").status_code == 401


def test_the_me_page_rotates_and_revokes_with_csrf(alice):
    _, old = token_api(alice)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    page = browser.get("/me/")
    assert old in page.content.decode()
    assert browser.post("/me/token/rotate/").status_code == 403  # no CSRF token: refused
    assert Token.objects.get(user=alice).key == old
    csrf = page.cookies["csrftoken"].value
    assert browser.post("/me/token/rotate/", {"csrfmiddlewaretoken": csrf}).status_code == 302
    rotated = Token.objects.get(user=alice).key
    assert rotated != old and rotated in browser.get("/me/").content.decode()
    assert browser.post("/me/token/revoke/", {"csrfmiddlewaretoken": csrf}).status_code == 302
    after = browser.get("/me/").content.decode()
    assert "no API token" in after and not Token.objects.filter(user=alice).exists()  # a visit creates none
    assert browser.get("/me/token/rotate/").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_the_migration_names_case_twins_instead_of_failing_on_the_constraint():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = ("players", "0001_initial"), ("players", "0002_username_ascii_any_case")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    try:
        old = executor.loader.project_state(before).apps.get_model("players", "Player")
        old.objects.create(username="twin")
        old.objects.create(username="TWIN")
        with pytest.raises(RuntimeError, match="letter case only.*: twin"):
            MigrationExecutor(connection).migrate([after])
        old.objects.filter(username="TWIN").delete()
    finally:
        MigrationExecutor(connection).migrate([after])
    assert Player.objects.filter(username="twin").exists()


def test_one_address_registers_only_so_many_accounts_an_hour(db, settings):
    """Every bound on work (queued matches, pending versions) is per player: accounts by the hundred would add
    up. Valid registrations from one address are counted, on the page and in the API together; typos are not."""
    settings.ARENA = {**settings.ARENA, "REGISTRATIONS_PER_HOUR": 2}
    mallory = APIClient(REMOTE_ADDR="203.0.113.7")
    for name in ("sock1", "sock2"):
        assert mallory.post("/api/register/", {"username": name, "password": PASSWORD}, format="json").status_code == 201
    assert mallory.post("/api/register/", {"username": "sock3", "password": "short"}, format="json").status_code == 400
    refused = mallory.post("/api/register/", {"username": "sock3", "password": PASSWORD}, format="json")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled"
    assert int(refused["Retry-After"]) > 0 and "new accounts" in refused.json()["detail"]
    page = Client(REMOTE_ADDR="203.0.113.7").post("/accounts/register/", {"username": "sock4", "password1": PASSWORD,
                                                                           "password2": PASSWORD})
    assert page.status_code == 429 and "too many new accounts" in page.content.decode()
    assert not Player.objects.filter(username__in=["sock3", "sock4"]).exists()
    elsewhere = APIClient(REMOTE_ADDR="198.51.100.1")  # another address is not held back
    assert elsewhere.post("/api/register/", {"username": "fresh", "password": PASSWORD}, format="json").status_code == 201
