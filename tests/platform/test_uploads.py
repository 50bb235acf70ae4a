"""Uploading bots: every upload a new immutable version, refused cleanly when bad, validated in the sandbox."""
import io
import os
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from bots import services
from tournaments.running.validation import validate_version
from bots.models import Bot, BotVersion
from engines.sandbox import PackageError, ProgramBot, check_package
from arena_testing import ON_THE_CLOCK, token_client, zip_of
from players.models import Player

STARTER = (Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters" / "port_royal.py").read_bytes()


@pytest.fixture(autouse=True)
def own_media(settings, tmp_path):
    """Each test's uploads in a folder of its own: tests running at once in other processes store theirs too."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def bob(db):
    return Player.objects.create_user("bob", password="pw-bob-12345")


@pytest.fixture
def api(bob):
    return token_client(bob)


def media_files() -> set[Path]:
    root = Path(settings.MEDIA_ROOT)
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def upload(api, name, data, filename, game="port_royal", **fields):
    return api.post("/api/bots/", {"game": game, "name": name, "file": _named(data, filename), **fields},
                    format="multipart")


def _named(data: bytes, filename: str):
    f = io.BytesIO(data)
    f.name = filename
    return f


def test_each_upload_is_a_new_pending_version(api, bob):
    first = upload(api, "captain", STARTER, "captain.py")
    second = upload(api, "captain", zip_of({"main.py": STARTER}), "captain.zip")
    assert first.status_code == 201 and second.status_code == 201, (first.content, second.content)
    assert (first.json()["number"], second.json()["number"]) == (1, 2)
    versions = list(BotVersion.objects.filter(bot__owner=bob).order_by("number"))
    assert [v.status for v in versions] == ["pending", "pending"]
    assert versions[0].package.read() == STARTER  # stored as uploaded, once
    # Each version has its validation matches waiting.
    assert all(v.seats.filter(match__purpose="validation").count() == settings.ARENA["VALIDATION_MATCHES"]
               for v in versions)


@pytest.mark.parametrize("data,filename,fragment", [
    (b"PK\x03\x04 not really a zip", "bot.zip", "not a zip file"),
    (zip_of({"helper.py": b"x = 1\n"}), "bot.zip", "main.py"),
    (b"def act(:\n", "bot.py", "syntax error"),
    (b"print('hi')\n", "bot.exe", ".py file or a .zip"),
    (b"", "bot.py", "empty"),
    (zip_of({"bot.json": b'{"command": ["ruby", "bot.rb"]}', "bot.rb": b"puts 1"}), "bot.zip",
     "'ruby' is not provided by the workers"),
    (zip_of({"bot.json": b'{"command": ["node", "../../etc/passwd.js"]}', "main.js": b""}), "bot.zip",
     "not a file inside the package"),
    (zip_of({"bot.json": b'{"command": ["./bot"]}', "bot": b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00\xb7\x00"}),
     "bot.zip", "another processor"),
    # A hostile user's probe: each was accepted (or a 500), then failed or cost seconds at every match.
    (zip_of({"main.py": STARTER, **{f"m{i}.py": b"a\n" * 524288 for i in range(19)}}), "bot.zip", "zip bomb"),
    (zip_of({"main.py": STARTER, "a": b"x", "a/b": b"y"}), "bot.zip", "both a file and a folder"),
    (zip_of({"main.py": STARTER, "x" * 300: b"y"}), "bot.zip", "too long"),
    (zip_of({"main.py": STARTER, "bot.json": b"[" * 100_000 + b"]" * 100_000}, zipfile.ZIP_STORED), "bot.zip",
     "nested too deeply"),
    (zip_of({"main.py": STARTER, "bot.json": b'{"command": ["python3", "main.py", "a\\u0000b"]}'}), "bot.zip",
     "nul character"),
], ids=lambda value: value if isinstance(value, str) else "upload")  # bytes would make long ids
def test_bad_uploads_are_refused_with_a_reason_and_leave_nothing(api, data, filename, fragment):
    before = media_files()
    response = upload(api, "broken", data, filename)
    assert response.status_code == 400
    assert fragment in response.json()["detail"].lower()
    assert not Bot.objects.filter(name="broken").exists() and not BotVersion.objects.exists()
    assert media_files() == before


def test_too_big_uploads_are_refused(api, settings):
    settings.ARENA = {**settings.ARENA, "UPLOAD_MAX_BYTES": 1000}
    response = upload(api, "huge", b"#" * 2000 + b"\n", "huge.py")
    assert response.status_code == 400 and "too big" in response.json()["detail"]
    assert not BotVersion.objects.exists()


def test_a_player_may_have_only_so_many_versions_waiting_for_validation(api, bob, settings):
    """Each pending version plays validation matches on the workers: past the bound an upload is refused with
    why, and stores nothing; staff are not bound."""
    settings.ARENA = {**settings.ARENA, "MAX_PENDING_VERSIONS_PER_USER": 2}
    for name in ("one", "two"):
        services.upload_version(owner=bob, game="port_royal", name=name, filename="b.py", data=STARTER)
    before = media_files()
    response = upload(api, "three", STARTER, "b.py")
    assert response.status_code == 400 and "2 versions waiting for validation" in response.json()["detail"]
    assert not Bot.objects.filter(name="three").exists() and media_files() == before
    BotVersion.objects.filter(bot__name="one").update(status=BotVersion.Status.VALID)  # one judged: room again
    assert upload(api, "three", STARTER, "b.py").status_code == 201
    staff = Player.objects.create_user("staffer", password="pw-staff-12345", is_staff=True)
    for name in ("s1", "s2", "s3"):
        services.upload_version(owner=staff, game="port_royal", name=name, filename="b.py", data=STARTER)


def test_unknown_game_and_bad_names_are_refused(api):
    assert upload(api, "ok-name", STARTER, "b.py", game="chess").status_code == 400
    response = upload(api, "Bad Name!", STARTER, "b.py")
    assert response.status_code == 400 and "name" in str(response.json())


def test_uploading_needs_a_login(db):
    response = APIClient().post("/api/bots/", {"game": "port_royal", "name": "x", "file": _named(STARTER, "x.py")},
                                format="multipart")
    assert response.status_code == 401


@pytest.mark.sandbox
def test_a_good_bot_validates_in_the_sandbox(bob):
    version = services.upload_version(owner=bob, game="port_royal", name="starter", filename="starter.py",
                                      data=STARTER)
    assert validate_version(version.pk) == "valid"
    version.refresh_from_db()
    assert version.status == "valid" and "without a fault" in version.status_detail
    # Validation is idempotent: a second delivery changes nothing.
    assert validate_version(version.pk) == "valid"


@pytest.mark.sandbox
def test_a_crashing_bot_is_invalid_and_its_owner_sees_why(bob):
    crash = b"import sys\nsys.stderr.write('boom: my bug\\n')\nraise SystemExit(3)\n"
    version = services.upload_version(owner=bob, game="port_royal", name="crashy", filename="crashy.py", data=crash)
    assert validate_version(version.pk) == "invalid"
    version.refresh_from_db()
    assert "crash" in version.status_detail and "boom: my bug" in version.status_detail


def test_a_package_that_cannot_be_unpacked_stays_pending_without_showing_host_paths(bob):
    """Stored before its paths were checked: its matches fail at the start; its owner sees why, not the host."""
    version = services.upload_version(owner=bob, game="port_royal", name="clash", filename="clash.zip",
                                      data=zip_of({"main.py": STARTER}))
    Path(version.package.path).write_bytes(zip_of({"main.py": STARTER, "a": b"x", "a/b": b"y"}))
    assert validate_version(version.pk) == "pending"
    version.refresh_from_db()
    assert "a is both a file and a folder" in version.status_detail, version.status_detail
    assert str(settings.MEDIA_ROOT) not in version.status_detail and "/tmp" not in version.status_detail


@pytest.mark.sandbox
def test_validation_matches_do_not_compile_the_package_again(bob, monkeypatch):
    """Checked once at upload: at each match start the stored package is only unpacked."""
    from engines.sandbox import package

    version = services.upload_version(owner=bob, game="port_royal", name="once", filename="once.zip",
                                      data=zip_of({"main.py": STARTER, "lib/x.py": b"X = 1\n"}))

    def compiled_again(source, name):
        raise AssertionError(f"{name} compiled again at a match start")

    monkeypatch.setattr(package, "check_python", compiled_again)
    assert validate_version(version.pk) == "valid", BotVersion.objects.get(pk=version.pk).status_detail


def test_a_package_the_operator_allowed_is_read_again_at_each_match(bob, settings):
    """ARENA_UPLOAD_MAX_BYTES above the package checker's own 5 MiB: an upload it accepted was refused again at
    every match start (the stored package re-checked under the local default), and so failed validation."""
    settings.ARENA = {**settings.ARENA, "UPLOAD_MAX_BYTES": 8 * 1024 * 1024}
    data = zip_of({"main.py": STARTER, "book.bin": os.urandom(6 * 1024 * 1024)}, zipfile.ZIP_STORED)
    version = services.upload_version(owner=bob, game="port_royal", name="big", filename="big.zip", data=data)
    bot = ProgramBot.from_path(version.package.path, validated=True, trusted=True)  # as a match starts it
    bot.close()
    with pytest.raises(PackageError, match="too big"):  # a local run keeps its own bound
        ProgramBot.from_path(version.package.path, trusted=True)


HOSTILE = b"""
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time\\nwhile True: time.sleep(1)"])  # outlives the bot?
for _ in range(50):
    try:
        os.fork()
    except OSError:
        break
while True:
    pass
"""


@ON_THE_CLOCK
@pytest.mark.sandbox
def test_a_hostile_upload_is_contained_and_the_worker_serves_the_next_match(bob, settings):
    settings.ARENA = {**settings.ARENA, "MOVE_MS": 300}
    hostile = services.upload_version(owner=bob, game="port_royal", name="hostile", filename="h.py", data=HOSTILE)
    assert validate_version(hostile.pk) == "invalid"
    hostile.refresh_from_db()
    assert "timeout" in hostile.status_detail or "crash" in hostile.status_detail
    # Forfeited after 3 faults, ranked last; the match still finished with a result.
    seat = hostile.seats.filter(match__purpose="validation").first()
    assert seat.forfeited and seat.match.status == "finished"
    assert seat.rank == max(seat.match.seats.values_list("rank", flat=True))
    # The same process validates the next bot normally.
    good = services.upload_version(owner=bob, game="port_royal", name="good", filename="g.py", data=STARTER)
    assert validate_version(good.pk) == "valid"


JS_STARTER = (Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters" / "port_royal.js").read_bytes()


@pytest.mark.sandbox
def test_a_single_javascript_file_is_stored_as_such_and_validates(api, bob):
    response = upload(api, "jsfile", JS_STARTER, "mybot.js")
    assert response.status_code == 201, response.content
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert version.package.name.endswith(".js") and version.package.read() == JS_STARTER
    assert validate_version(version.pk) == "valid"


@pytest.mark.sandbox
def test_the_javascript_starter_is_uploaded_validated_and_plays_a_tournament(api, bob, builtin_versions):
    from tournaments.running import pipeline
    from tournaments import services as tournament_services

    package = zip_of({"bot.json": b'{"command": ["node", "main.js"]}', "main.js": JS_STARTER})
    response = upload(api, "jsbot", package, "jsbot.zip")
    assert response.status_code == 201, response.content
    version = BotVersion.objects.get(pk=response.json()["id"])
    assert "entry main.js" in version.status_detail
    assert validate_version(version.pk) == "valid", version.status_detail
    version.refresh_from_db()
    tournament = tournament_services.create_tournament(
        name="js cup", game="port_royal", seats=3, seed=4, games_per_pairing=2, rated=True,
        bot_versions=[builtin_versions["random"], builtin_versions["heuristic"], version])
    for match in tournament.matches.all():
        assert pipeline.run_match(match.pk) == "finished"
    seats = list(version.seats.filter(match__tournament=tournament))
    assert len(seats) == 2 and all(s.faults == 0 and not s.forfeited for s in seats)
    from ratings.selectors import leaderboard

    assert {r.bot_version_id: r.games for r in leaderboard("port_royal")}[version.pk] == 2


# --- a file named only by its suffix is stored so that it can be read again ------------------------------

ZIPPED = zip_of({"main.py": STARTER})


@pytest.mark.parametrize("filename, data", [(".py", STARTER), (".js", JS_STARTER), (".zip", ZIPPED), ("BOT.ZIP", ZIPPED)],
                         ids=[".py", ".js", ".zip", "BOT.ZIP"])
def test_a_package_named_only_by_its_suffix_is_stored_with_it(bob, filename, data):
    """The probe: an upload named ``.py`` was accepted and stored as ``v1-<hash>`` without a suffix, which no
    match could read again (every validation match failed: "upload a single .py file or a .zip")."""
    version = services.upload_version(owner=bob, game="port_royal", name="dotted", filename=filename, data=data)
    assert version.package.name.endswith(Path(filename.lower()).suffix or filename.lower())
    bot = ProgramBot.from_path(version.package.path, validated=True, trusted=True)  # as a match starts it
    try:
        assert bot.command == check_package(data, filename).command
    finally:
        bot.close()


@pytest.mark.sandbox
def test_a_bot_uploaded_as_dot_py_validates(bob):
    version = services.upload_version(owner=bob, game="port_royal", name="dotted", filename=".py", data=STARTER)
    assert validate_version(version.pk) == "valid", BotVersion.objects.get(pk=version.pk).status_detail


# --- names and descriptions ---------------------------------------------------------------------------

def test_a_bot_name_with_a_trailing_newline_is_refused(bob):
    """``$`` matches before a final newline: ``"abc\\n"`` passed the name's check and became a bot's name."""
    with pytest.raises(services.UploadError, match="bot name"):
        services.upload_version(owner=bob, game="port_royal", name="abc\n", filename="b.py", data=STARTER)
    assert not Bot.objects.exists()


@pytest.mark.parametrize("description", ["red \x1b[31malert\x1b[0m", "two\r\nlines", "tab\there",
                                         "gnp.exe \u202egnp.exe", "\u2066isolate\u2069", "c1 \x85 next"])
def test_a_description_with_control_characters_is_refused(bob, description, settings):
    """A public description held terminal escapes, line breaks and bidi overrides (which turn the text shown
    around: Trojan Source). Refused with why, at upload (nothing stored) and in the owner's changes."""
    api = token_client(bob)
    response = upload(api, "ctl", STARTER, "b.py", description=description)
    assert response.status_code == 400 and "control character" in response.json()["detail"], response.content
    assert not Bot.objects.exists() and not BotVersion.objects.exists()
    assert not any(p.is_file() for p in Path(settings.MEDIA_ROOT).rglob("*"))
    assert upload(api, "ctl", STARTER, "b.py", description="fine: émojis 👩‍💻 and ünïcode").status_code == 201
    bot = Bot.objects.get(name="ctl")
    response = api.patch(f"/api/bots/{bot.pk}/", {"description": description}, format="json")
    assert response.status_code == 400 and "control character" in response.json()["detail"], response.content
    bot.refresh_from_db()
    assert bot.description == "fine: émojis 👩‍💻 and ünïcode"
    with pytest.raises(services.UploadError):
        services.update_bot(bot, description=description)
    page = Client()
    page.force_login(bob)
    shown = page.post("/bots/upload/", {"game": "port_royal", "name": "ctl", "description": description,
                                        "file": _named(STARTER, "b.py")})
    assert shown.status_code == 200 and "control character" in str(shown.context["form"].errors["description"])
    assert BotVersion.objects.filter(bot__owner=bob).count() == 1  # the page stored nothing either
