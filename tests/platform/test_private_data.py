"""What a bot printed, and why it failed validation, is for its owner only: on every page, API endpoint
and log, checked as the owner, as another player and anonymously."""
import pytest
from django.test import Client

from bots.models import Bot, BotVersion
from bots.services import register_builtin_bots, upload_version
from players.models import Player
from players.services import rotate_token
from tournaments import services
from tournaments.running import pipeline
from tournaments.models import Match, MatchSeat
from tournaments.running.validation import validate_version

SECRET = "SECRET-7731"  # what the bot printed (stderr) or answered on stdout (quoted by a fault's detail)


def pages(bot: Bot, matches: list[Match]) -> list[str]:
    """Every public URL that shows the bot, its versions or its matches."""
    game = bot.game
    urls = [f"/api/bots/{bot.pk}/", f"/api/bots/{bot.pk}/matches/", f"/api/bots/?game={game}", "/api/bots/",
            "/api/matches/",
            f"/api/matches/?game={game}", f"/api/leaderboards/{game}/", "/api/tournaments/",
            f"/bots/{bot.pk}/", f"/games/{game}/", "/", "/tournaments/"]
    for match in matches:
        urls += [f"/api/matches/{match.pk}/", f"/api/matches/{match.pk}/log/", f"/matches/{match.pk}/",
                 f"/matches/{match.pk}/log.json"]
        if match.tournament_id:
            urls += [f"/api/tournaments/{match.tournament_id}/", f"/tournaments/{match.tournament_id}/",
                     f"/api/matches/?tournament={match.tournament_id}"]
    return urls


def clients(owner: Player) -> dict[str, Client]:
    anonymous, stranger, own = Client(), Client(), Client()
    stranger.force_login(Player.objects.create_user("eve", password="pw-eve-12345"))
    own.force_login(owner)
    return {"anonymous": anonymous, "stranger": stranger, "owner": own}


def assert_secret_stays_with_the_owner(bot: Bot, matches: list[Match], owner_sees: list[str]) -> None:
    """Nobody but the owner gets ``SECRET`` anywhere; the owner gets it on each of ``owner_sees``."""
    everyone = clients(bot.owner)
    for who, client in everyone.items():
        for url in pages(bot, matches):
            response = client.get(url)
            assert response.status_code in (200, 404), (who, url, response.status_code)
            if who != "owner":
                assert SECRET not in response.content.decode(), (who, url)
    for url in owner_sees:
        assert SECRET in everyone["owner"].get(url).content.decode(), url
    # The owner's own page lists their versions with the reason.
    assert SECRET in everyone["owner"].get("/me/").content.decode()


@pytest.fixture
def olga(db):
    return Player.objects.create_user("olga", password="pw-olga-12345")


@pytest.fixture
def exposed(olga, builtin_versions):
    """Rows as the platform leaves them after olga's bot printed SECRET: an invalid version with its
    validation match, and a valid version that faulted (printing SECRET) in a friendly tournament."""
    bot = Bot.objects.create(owner=olga, game="port_royal", name="leaky")
    invalid = BotVersion.objects.create(
        bot=bot, number=1, kind="upload", status="invalid", original_name=f"{SECRET}.py", sha256="ab" * 32, size=77,
        status_detail=f"match 1, move 0: garbage: answer is not JSON: '{SECRET}'\nstderr (tail):\n{SECRET}")
    valid = BotVersion.objects.create(bot=bot, number=2, kind="upload", status="valid", sha256="cd" * 32, size=88)
    random_v = builtin_versions["random"]
    validation = services.create_match(game="port_royal", bot_versions=[invalid, random_v], seed=1,
                                       purpose=Match.Purpose.VALIDATION)
    tournament = services.create_tournament(name="friendly", game="port_royal", seats=2, created_by=olga,
                                            bot_versions=[valid, random_v])
    played = tournament.matches.first()
    for match, version in ((validation, invalid), (played, valid)):
        seat = match.seats.get(bot_version=version)
        fault = {"seat": seat.seat, "move": 0, "kind": "garbage", "detail": f"answer is not JSON: '{SECRET}'"}
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
        pipeline.save_match_log(match.pk, {
            "format": 1, "game": "port_royal", "options": match.options, "seed": match.seed,
            "seats": ["a", "b"], "moves": [], "faults": [fault | {"stderr_tail": SECRET}], "forfeits": {},
            "outcome": {"ranks": [0, 1], "scores": [1, 0]}, "stderr": {str(seat.seat): SECRET}})
        for other in match.seats.all():
            MatchSeat.objects.filter(pk=other.pk).update(rank=other.seat, score=1 - other.seat)
        MatchSeat.objects.filter(pk=seat.pk).update(faults=1, fault_log=[fault], stderr_tail=SECRET)
    return bot, [validation, played]


def test_status_is_public_and_its_reason_and_package_are_the_owners(exposed):
    bot, _ = exposed
    everyone = clients(bot.owner)
    for who, client in everyone.items():
        versions = client.get(f"/api/bots/{bot.pk}/").json()["versions"]
        assert [v["status"] for v in versions] == ["invalid", "valid"]
        listed = next(b for b in client.get("/api/bots/?game=port_royal").json()["results"] if b["id"] == bot.pk)
        for v in versions + listed["versions"]:
            private = (v["status_detail"], v["sha256"], v["size"], v["original_name"])
            if who == "owner":
                assert all(x is not None for x in private)
            else:
                assert private == (None, None, None, None), who


def test_nothing_the_bot_printed_reaches_anyone_but_its_owner(exposed):
    bot, (validation, played) = exposed
    assert_secret_stays_with_the_owner(bot, [validation, played], owner_sees=[
        f"/api/bots/{bot.pk}/", f"/bots/{bot.pk}/", f"/matches/{played.pk}/", f"/api/matches/{played.pk}/",
        f"/matches/{validation.pk}/", "/api/matches/", f"/api/matches/?tournament={played.tournament_id}",
        f"/api/bots/{bot.pk}/matches/"])


def test_validation_matches_are_the_owners_only(exposed):
    bot, (validation, played) = exposed
    everyone = clients(bot.owner)
    for who, client in everyone.items():
        ids = {m["id"] for m in client.get("/api/matches/").json()["results"]}
        expected = 200 if who == "owner" else 404
        assert (validation.pk in ids) == (who == "owner") and played.pk in ids, who
        for url in (f"/api/matches/{validation.pk}/", f"/api/matches/{validation.pk}/log/",
                    f"/matches/{validation.pk}/", f"/matches/{validation.pk}/log.json"):
            assert client.get(url).status_code == expected, (who, url)
    # The bot's page lists them for its owner only.
    assert f"#{validation.pk}<" in everyone["owner"].get(f"/bots/{bot.pk}/").content.decode()
    assert f"#{validation.pk}<" not in everyone["stranger"].get(f"/bots/{bot.pk}/").content.decode()


def test_public_logs_keep_the_fault_kind_and_drop_what_the_bot_printed(exposed):
    _, (_, played) = exposed
    for url in (f"/api/matches/{played.pk}/log/", f"/matches/{played.pk}/log.json"):
        log = Client().get(url).json()
        assert log["faults"] == [{"seat": log["faults"][0]["seat"], "move": 0, "kind": "garbage"}]
        assert "stderr" not in log


def test_an_engine_error_is_shown_to_staff_only(exposed):
    bot, (_, played) = exposed
    Match.objects.filter(pk=played.pk).update(status=Match.Status.FAILED, error=f"Traceback: {SECRET}")
    assert SECRET not in Client().get(f"/matches/{played.pk}/").content.decode()
    staff = Client()
    staff.force_login(Player.objects.create_user("root", password="pw-root-12345", is_staff=True))
    assert SECRET in staff.get(f"/matches/{played.pk}/").content.decode()


LEAKY_BOT = b"""
import json, sys
sys.stderr.write("stderr: %s\\n" % "SECRET-7731")
sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"ready": True, "protocol": 1}), flush=True)
    elif message["type"] == "act":
        print("SECRET-7731 is not an answer", flush=True)
"""


@pytest.mark.sandbox
def test_a_real_leaky_bot_fails_validation_and_only_its_owner_learns_why(olga):
    register_builtin_bots(["port_royal"])
    version = upload_version(owner=olga, game="port_royal", name="leaky", filename="leaky.py", data=LEAKY_BOT)
    assert validate_version(version.pk) == "invalid"
    version.refresh_from_db()
    # Both channels reached the owner's diagnostics: stderr, and stdout quoted by a garbage fault.
    assert "garbage" in version.status_detail and version.status_detail.count(SECRET) >= 2
    matches = list(Match.objects.filter(seats__bot_version=version).distinct())
    assert matches and all(m.status == Match.Status.FINISHED for m in matches)
    assert_secret_stays_with_the_owner(version.bot, matches, owner_sees=[
        f"/api/bots/{version.bot_id}/", f"/bots/{version.bot_id}/", f"/matches/{matches[0].pk}/",
        f"/api/matches/{matches[0].pk}/"])


def test_the_page_showing_the_api_token_is_never_cached(db):
    """/me/ shows a live credential: no browser (back button after logging out) or shared cache may keep it."""
    player = Player.objects.create_user("alice", password="pw-alice-12345")
    token = rotate_token(player).key
    client = Client()
    client.force_login(player)
    response = client.get("/me/")
    assert token in response.content.decode()
    cache_control = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= cache_control
