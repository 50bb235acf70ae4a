"""The REST API as a hostile player uses it: input that gave a 500 (on PostgreSQL) or was silently misread,
text shown to everyone that could disguise itself, and bodies too large to read."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from arena_testing import token_client
from players.models import Player
from test_api_errors import assert_error_shape
from tournaments.competition import schedule
from tournaments.models import RecurringSchedule, ScheduledTournament, Tournament

SHAPE = {"game": "port_royal", "seats": 2}


@pytest.fixture
def api(db):
    client = token_client(Player.objects.create_user("mallory"))
    client.raise_request_exception = False  # a 500 is an answer to check, not an exception in the test
    return client


def test_a_recurring_schedules_occurrences_are_named_within_their_column(api):
    # Each occurrence is named "<name> YYYY-MM-DD": a 120-character name made a 131-character one, which
    # PostgreSQL refused (value too long: a 500, and the schedule never announced).
    longest = ScheduledTournament._meta.get_field("name").max_length
    body = {**SHAPE, "every": "day", "time": "10:00"}
    refused = api.post("/api/recurring-schedules/", {**body, "name": "r" * longest}, format="json")
    assert "name" in assert_error_shape(refused, 400, "invalid")["fields"]
    assert not RecurringSchedule.objects.exists()
    fits = longest - len(" 2000-01-01")
    assert api.post("/api/recurring-schedules/", {**body, "name": "r" * fits}, format="json").status_code == 201
    names = list(ScheduledTournament.objects.values_list("name", flat=True))
    assert names and all(len(name) <= longest for name in names), names
    # a longer one made before this bound (or in the admin) is cut, its date kept
    RecurringSchedule.objects.update(name="o" * longest)
    ScheduledTournament.objects.all().delete()
    schedule.schedule_occurrences()
    name = ScheduledTournament.objects.get().name
    assert len(name) == longest and name.startswith("o" * fits + " 20"), name


@pytest.mark.parametrize("given,utc", [("10:00", "10:00:00Z"), ("10:00Z", "10:00:00Z"), ("10:00:00+05:00", "05:00:00Z"),
                                       ("01:30-02:00", "03:30:00Z"), ("23:00-03:00", "02:00:00Z")])
def test_a_recurring_time_with_an_offset_is_that_moment_in_utc(api, given, utc):
    # DRF's TimeField dropped the offset: "10:00+05:00" started at 10:00 UTC, five hours late.
    response = api.post("/api/recurring-schedules/", {**SHAPE, "name": "cup", "every": "day", "time": given},
                        format="json")
    assert response.status_code == 201, response.content
    assert response.json()["time"] == utc


@pytest.mark.parametrize("bad", ["25:00", "10:00+25:00", "x", ""])
def test_a_bad_recurring_time_is_still_400(api, bad):
    response = api.post("/api/recurring-schedules/", {**SHAPE, "name": "cup", "every": "day", "time": bad},
                        format="json")
    assert "time" in assert_error_shape(response, 400, "invalid")["fields"]


DISGUISES = ["\u202eevil", "cup\u2066x", "two\nlines", "bell\x07", "esc\x1b[31mred", "c1\x85x"]


@pytest.mark.parametrize("name", DISGUISES)
def test_names_shown_to_everyone_refuse_control_characters(api, builtin_versions, name):
    # A tournament's or schedule's name is shown on every list, as a bot's description is (which refuses these).
    posts = [("/api/tournaments/", {**SHAPE, "bots": ["random", "heuristic"]}),
             ("/api/schedules/", {**SHAPE, "starts_at": "2999-01-01T00:00:00Z"}),
             ("/api/recurring-schedules/", {**SHAPE, "every": "day", "time": "10:00"})]
    for url, body in posts:
        response = api.post(url, {**body, "name": name}, format="json")
        body = assert_error_shape(response, 400, "invalid")
        assert "control character" in body["fields"]["name"][0], (url, body)
    assert not Tournament.objects.exists() and not ScheduledTournament.objects.exists()
    assert not RecurringSchedule.objects.exists()


def test_plain_unicode_names_are_still_welcome(api, builtin_versions):
    name = "Coupe d'été — 港 🏆"
    response = api.post("/api/tournaments/", {**SHAPE, "bots": ["random", "heuristic"], "name": name}, format="json")
    assert response.status_code == 201 and response.json()["name"] == name


def test_an_empty_ruleset_on_a_leaderboard_is_refused_not_read_as_standard(db):
    # Every other given parameter must be valid (docs/api.md: an empty ?game= is a 400, not "no filter").
    response = APIClient().get("/api/leaderboards/port_royal/?ruleset=")
    assert "rated ruleset ''" in assert_error_shape(response, 404, "not_found")["detail"]
    assert APIClient().get("/api/leaderboards/port_royal/").json()["ruleset"] == "standard"


@pytest.fixture
def small_bodies(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    settings.ARENA = {**settings.ARENA, "UPLOAD_MAX_BYTES": 1000}


def a_file(size: int, name: str = "junk.py") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"#" * size)


def test_a_body_over_the_sites_bound_is_413_before_it_is_read(db, api, small_bodies):
    # Django bounds a form's fields, not its files: anyone could stream gigabytes to a temporary file through
    # /api/register/ or /api/token/ (a 60 MB part was read whole and the player registered). The bound: the
    # fields' limit plus one bot package (here 1,000 + 1,000).
    anonymous = APIClient(raise_request_exception=False)
    for url in ("/api/register/", "/api/token/"):
        form = {"username": "zed", "password": "a-long-pass-phrase-7", "junk": a_file(5000)}
        assert "the limit is 2,000" in assert_error_shape(anonymous.post(url, form), 413, "too_large")["detail"]
    assert not Player.objects.filter(username="zed").exists()
    fields_only = anonymous.post("/api/register/", {"username": "zed", "password": "a-long-pass-phrase-7"})
    assert fields_only.status_code == 201, fields_only.content  # a multipart form still works
    form = {"game": "port_royal", "name": "huge"}
    refused = api.post("/api/bots/", {**form, "file": a_file(50_000)})
    assert "50," in assert_error_shape(refused, 413, "too_large")["detail"]
    # A package a little over the upload limit still gets the upload's own answer, which names that limit.
    near = api.post("/api/bots/", {**form, "file": a_file(1500)})
    assert "the limit is 1,000" in assert_error_shape(near, 400, "invalid")["detail"]


def test_no_page_or_endpoint_reads_a_body_over_the_sites_bound(db, small_bodies):
    # The CSRF check reads the form of any POST with a CSRF cookie (the login page gives one to anyone): its
    # files went to disk whatever their size, before the view or the API's parsers could refuse them.
    from django.test import Client

    browser = Client(enforce_csrf_checks=True, raise_request_exception=False)
    browser.get("/accounts/login/")  # the CSRF cookie
    token = browser.cookies["csrftoken"].value
    form = {"username": "x", "password": "y", "csrfmiddlewaretoken": token}
    for url in ("/accounts/login/", "/accounts/register/", "/bots/upload/"):
        response = browser.post(url, {**form, "junk": a_file(5000)})
        assert response.status_code == 413, (url, response.status_code)
    api_refusal = browser.post("/api/bots/", {**form, "file": a_file(5000)})
    assert "the limit is 2,000" in assert_error_shape(api_refusal, 413, "too_large")["detail"]
    assert browser.post("/accounts/login/", form).status_code == 200  # a plain form: the page again
