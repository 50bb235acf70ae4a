"""Ratings nobody can skew, and bounded work: only rated play (the platform's and staff's tournaments
under a rated ruleset) moves the public leaderboards; a player's tournament is friendly, enters only
bots that may be challenged, and is capped."""
import pytest
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from arena_testing import token_client
from bots.models import Bot, BotVersion
from bots.services import register_builtin_bots
from players.models import Player
from players.services import system_player
from ratings.models import Rating
from ratings.selectors import leaderboard
from ratings.services import rate_match
from tournaments import services
from tournaments.competition import formats
from tournaments.running import pipeline
from tournaments.models import Match, MatchSeat, Tournament


@pytest.fixture
def mallory(db):
    return Player.objects.create_user("mallory", password="pw-mallory-123")


@pytest.fixture
def staff(db):
    return Player.objects.create_user("root", password="pw-root-12345", is_staff=True)


def uploaded(owner, name, game="port_royal", accepts_challenges=False) -> BotVersion:
    """A valid uploaded version (rows only: these tests never run it)."""
    bot = Bot.objects.create(owner=owner, game=game, name=name, accepts_challenges=accepts_challenges)
    return BotVersion.objects.create(bot=bot, number=1, kind="upload", status="valid")


def play_out(tournament: Tournament) -> None:
    for _ in range(100):
        queued = list(tournament.matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True))
        if not queued:
            break
        for pk in queued:
            assert pipeline.run_match(pk) == "finished"
    tournament.refresh_from_db()


def body(**fields):
    return {"name": "t", "game": "port_royal", "bots": ["random", "heuristic"], "seats": 2} | fields


# --- 2. ratings anyone can skew ----------------------------------------------------------------------

@pytest.mark.parametrize("game,options,seats", [("catan", {"vp_to_win": -3}, 3), ("alhambra", {"max_turns": -5}, 2)])
def test_options_that_decide_the_winner_never_reach_the_leaderboard(mallory, staff, game, options, seats):
    register_builtin_bots([game])
    bots = ["random", "heuristic", str(uploaded(mallory, "mine", game=game).pk)][:seats]
    response = token_client(mallory).post("/api/tournaments/", body(game=game, options=options, seats=seats,
                                                                    bots=bots), format="json")
    # Refused (by the game's option specs) or friendly: never rated.
    if response.status_code == 201:
        assert response.json()["rated"] is False and response.json()["rated_display"] == "friendly (not rated)"
        match = Match.objects.filter(tournament_id=response.json()["id"]).first()
        assert pipeline.rated_ruleset(match) is None
    else:
        assert response.status_code == 400
    # Nobody, not even staff, rates them.
    for who in (mallory, staff):
        rated = token_client(who).post("/api/tournaments/", body(game=game, options=options, seats=seats, bots=bots,
                                                                 rated=True), format="json")
        assert rated.status_code == 400, rated.content
    assert not Tournament.objects.filter(rated=True).exists()


def test_a_player_cannot_organise_a_rated_tournament(mallory, builtin_versions):
    response = token_client(mallory).post("/api/tournaments/", body(rated=True), format="json")
    assert response.status_code == 400 and "staff" in response.json()["detail"]
    assert response.json()["error"] == "invalid" and not Tournament.objects.exists()


def test_friendly_matches_leave_the_leaderboard_alone_and_rated_ones_move_it(mallory, staff, builtin_versions):
    friendly = token_client(mallory).post("/api/tournaments/", body(games_per_pairing=2), format="json").json()
    assert friendly["rated"] is False and friendly["rated_display"] == "friendly (not rated)"
    play_out(Tournament.objects.get(pk=friendly["id"]))
    assert Match.objects.filter(tournament_id=friendly["id"], status="finished").count() == 2
    assert not Match.objects.filter(rated=True).exists() and not Rating.objects.exists()
    assert APIClient().get("/api/leaderboards/port_royal/").json()["results"] == []
    assert "friendly (not rated)" in Client().get(f"/tournaments/{friendly['id']}/").content.decode()
    match = Match.objects.filter(tournament_id=friendly["id"]).first()
    assert "not rated" in Client().get(f"/matches/{match.pk}/").content.decode()

    rated = token_client(staff).post("/api/tournaments/", body(games_per_pairing=2, rated=True), format="json").json()
    assert rated["rated"] is True and rated["ruleset"] == "standard" and rated["rated_display"] == "rated (standard)"
    play_out(Tournament.objects.get(pk=rated["id"]))
    board = APIClient().get("/api/leaderboards/port_royal/").json()
    assert board["ruleset"] == "standard" and [r["games"] for r in board["results"]] == [2, 2]
    assert all(m["rated"] and m["ruleset"] == "standard"
               for m in APIClient().get(f"/api/matches/?tournament={rated['id']}").json()["results"])


def test_a_rated_tournament_needs_a_rated_ruleset(staff, builtin_versions):
    response = token_client(staff).post("/api/tournaments/", body(rated=True, options={"max_rounds": 50}),
                                        format="json")
    assert response.status_code == 400 and "rated ruleset" in response.json()["detail"]


def test_a_rated_tournament_whose_options_changed_afterwards_is_not_rated(builtin_versions):
    t = services.create_tournament(name="t", game="port_royal", seats=2, rated=True,
                                   bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    t.matches.update(options={**t.options, "max_rounds": 50})  # e.g. edited in the admin
    play_out(t)
    assert not Rating.objects.exists() and not t.matches.filter(rated=True).exists()


def test_ratings_are_kept_per_ruleset(builtin_versions):
    versions = [builtin_versions["random"], builtin_versions["heuristic"]]

    def finished(ranks):
        match = Match.objects.create(game="port_royal", seed=1, status=Match.Status.FINISHED)
        for seat, (v, r) in enumerate(zip(versions, ranks)):
            MatchSeat.objects.create(match=match, seat=seat, bot_version=v, rank=r, score=0)
        return match

    with transaction.atomic():
        rate_match(finished([0, 1]), "standard")
        rate_match(finished([1, 0]), "big board")
        rate_match(finished([1, 0]), "big board")
    standard, big = list(leaderboard("port_royal")), list(leaderboard("port_royal", "big board"))
    assert [r.bot_version.builtin_name for r in standard] == ["random", "heuristic"]
    assert [r.bot_version.builtin_name for r in big] == ["heuristic", "random"]
    assert {r.games for r in standard} == {1} and {r.games for r in big} == {2}
    assert Rating.objects.filter(bot_version=versions[0]).count() == 2


def test_catans_base_and_five_six_boards_are_separate_leaderboards(db):
    builtins = {v.builtin_name: v for v in register_builtin_bots(["catan"])}
    owner = system_player()
    extra = [Bot.objects.create(owner=owner, game="catan", name=f"random-{i}").versions.create(
        number=1, kind="builtin", builtin_name="random", status="valid") for i in range(3)]
    field = [builtins["random"], builtins["heuristic"], *extra]
    big = services.create_tournament(name="big", game="catan", seats=5, bot_versions=field, rated=True, seed=1)
    small = services.create_tournament(name="small", game="catan", seats=3, bot_versions=field[:3], rated=True,
                                       seed=2)
    assert (big.ruleset, small.ruleset) == ("five_six_players", "standard")
    play_out(big)
    play_out(small)
    assert {r.games for r in leaderboard("catan", "five_six_players")} == {1}
    assert len(leaderboard("catan", "five_six_players")) == 5 and len(leaderboard("catan")) == 3
    assert Rating.objects.filter(bot_version=field[0]).count() == 2  # one rating per ruleset
    board = APIClient().get("/api/leaderboards/catan/?ruleset=five_six_players").json()
    assert board["ruleset"] == "five_six_players" and board["players"] == [5, 6] and len(board["results"]) == 5
    assert set(big.matches.values_list("ruleset", flat=True)) == {"five_six_players"}
    html = Client().get("/games/catan/?ruleset=five_six_players").content.decode()
    assert "five_six_players ruleset" in html and "big" in html and "small" not in html


def test_the_leaderboard_names_its_ruleset_and_refuses_unknown_ones(builtin_versions):
    board = APIClient().get("/api/leaderboards/port_royal/?ruleset=standard").json()
    assert board["ruleset"] == "standard" and board["options"]["end_condition"] == "standard"
    response = APIClient().get("/api/leaderboards/port_royal/?ruleset=anything-goes")
    assert response.status_code == 404 and "rated ruleset" in response.json()["detail"]
    assert "standard ruleset" in Client().get("/games/port_royal/").content.decode()
    assert Client().get("/games/port_royal/?ruleset=anything-goes").status_code == 404


def test_runtournament_is_friendly_unless_rated(builtin_versions):
    import io

    from django.core.management import CommandError, call_command

    for rated in (False, True):
        with pytest.raises(CommandError, match="timed out"):  # no workers here: it stops waiting at once
            call_command("runtournament", game="port_royal", bots=["random", "heuristic"], seats=2, workers=0,
                         timeout=0.001, rated=rated, stdout=io.StringIO())
        assert Tournament.objects.latest("id").rated is rated


# --- 2. who a friendly tournament may enter --------------------------------------------------------

def test_entering_another_players_bot_needs_their_consent(mallory, builtin_versions):
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    hers = uploaded(alice, "shy")
    mine = uploaded(mallory, "mine")
    api = token_client(mallory)
    refused = api.post("/api/tournaments/", body(bots=[str(mine.pk), "alice/shy"]), format="json")
    assert refused.status_code == 400 and "does not accept challenges" in refused.json()["detail"]
    assert not Tournament.objects.exists()
    # Alice opts in (PATCH by the owner only); now mallory may challenge her bot.
    assert api.patch(f"/api/bots/{hers.bot_id}/", {"accepts_challenges": True}, format="json").status_code == 403
    response = token_client(alice).patch(f"/api/bots/{hers.bot_id}/", {"accepts_challenges": True}, format="json")
    assert response.status_code == 200 and response.json()["accepts_challenges"] is True
    accepted = api.post("/api/tournaments/", body(bots=[str(mine.pk), "alice/shy", "random"]), format="json")
    assert accepted.status_code == 201, accepted.content
    assert accepted.json()["rated"] is False


def test_staff_may_enter_any_valid_bot(staff, builtin_versions):
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    uploaded(alice, "shy")
    response = token_client(staff).post("/api/tournaments/", body(bots=["alice/shy", "random"], rated=True),
                                        format="json")
    assert response.status_code == 201 and response.json()["rated"] is True


def test_the_owner_sets_challenges_on_upload_and_on_the_bot_page(mallory):
    import io
    from pathlib import Path

    starter = (Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters" / "port_royal.py").read_bytes()
    api = token_client(mallory)
    f = io.BytesIO(starter)
    f.name = "open.py"
    assert api.post("/api/bots/", {"game": "port_royal", "name": "open", "file": f, "accepts_challenges": "true"},
                    format="multipart").status_code == 201
    bot = Bot.objects.get(name="open")
    assert bot.accepts_challenges
    f = io.BytesIO(starter)
    f.name = "open.py"
    api.post("/api/bots/", {"game": "port_royal", "name": "open", "file": f}, format="multipart")
    bot.refresh_from_db()
    assert bot.accepts_challenges  # a new version without the field leaves the setting alone
    page = Client()
    page.force_login(mallory)
    assert page.post(f"/bots/{bot.pk}/settings/", {}).status_code == 302  # the unticked box
    bot.refresh_from_db()
    assert not bot.accepts_challenges
    stranger = Client()
    stranger.force_login(Player.objects.create_user("eve", password="pw-eve-12345"))
    assert stranger.post(f"/bots/{bot.pk}/settings/", {"accepts_challenges": "on"}).status_code == 404
    bot.refresh_from_db()
    assert not bot.accepts_challenges
    page.post(f"/bots/{bot.pk}/settings/", {"accepts_challenges": "on"})
    bot.refresh_from_db()
    assert bot.accepts_challenges and "Accepts challenges" in Client().get(f"/bots/{bot.pk}/").content.decode()
    # The upload form has the same box.
    assert "accepts_challenges" in page.get("/bots/upload/").content.decode()
    f = io.BytesIO(starter)
    f.name = "form.py"
    response = page.post("/bots/upload/", {"game": "port_royal", "name": "formbot", "file": f,
                                           "accepts_challenges": "on"})
    assert response.status_code == 302 and Bot.objects.get(name="formbot").accepts_challenges


# --- 4. bounded work ---------------------------------------------------------------------------------

@pytest.fixture
def small_caps(settings):
    settings.ARENA = {**settings.ARENA, "MAX_MATCHES_PER_TOURNAMENT": 10, "MAX_QUEUED_MATCHES_PER_USER": 15}


@pytest.mark.parametrize("fields,fragment", [
    ({"games_per_pairing": 11}, "would play 11 matches; the limit is 10"),
    ({"bots": ["random", "heuristic", "random-2", "random-3", "random-4", "random-5"]}, "would play 15 matches"),
    ({"format": "ladder"}, "a ladder needs max_matches"),
    ({"format": "ladder", "max_matches": 11}, "would play 11 matches"),
    ({"format": "swiss", "rounds": 11}, "would play 11 matches"),
])
def test_a_players_tournament_is_capped(mallory, small_caps, builtin_versions, fields, fragment):
    owner = system_player()
    for i in range(2, 6):
        Bot.objects.create(owner=owner, game="port_royal", name=f"random-{i}").versions.create(
            number=1, kind="builtin", builtin_name="random", status="valid")
    response = token_client(mallory).post("/api/tournaments/", body(**fields), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid" and fragment in response.json()["detail"]
    assert not Tournament.objects.exists() and not Match.objects.exists()


def test_a_players_queued_matches_are_capped_over_their_tournaments(mallory, staff, small_caps, builtin_versions):
    api = token_client(mallory)
    assert api.post("/api/tournaments/", body(games_per_pairing=10), format="json").status_code == 201
    refused = api.post("/api/tournaments/", body(games_per_pairing=6), format="json")
    assert refused.status_code == 400 and "still have 10 matches to play" in refused.json()["detail"]
    assert api.post("/api/tournaments/", body(games_per_pairing=5), format="json").status_code == 201
    # Played matches no longer count; stopping a tournament frees its share.
    first = Tournament.objects.order_by("id").first()
    for match in first.matches.all()[:3]:
        pipeline.run_match(match.pk)
    assert api.post("/api/tournaments/", body(games_per_pairing=3), format="json").status_code == 201
    services.stop_tournament(first)
    assert api.post("/api/tournaments/", body(games_per_pairing=7), format="json").status_code == 201
    # Staff (and the platform's own commands) are not bound.
    assert token_client(staff).post("/api/tournaments/", body(games_per_pairing=50), format="json").status_code == 201


@pytest.mark.parametrize("fmt,bots,seats,games,rounds", [
    ("swiss", 6, 2, 1, 3), ("swiss", 7, 3, 2, 2), ("knockout", 6, 2, 1, 0), ("knockout", 7, 3, 1, 0),
    ("knockout", 5, 4, 2, 0), ("round_robin", 5, 3, 1, 0),
])
def test_planned_matches_are_the_matches_played(builtin_versions, fmt, bots, seats, games, rounds):
    owner = system_player()
    field = [Bot.objects.create(owner=owner, game="port_royal", name=f"r{i}").versions.create(
        number=1, kind="builtin", builtin_name="random", status="valid") for i in range(bots)]
    t = services.create_tournament(name="p", game="port_royal", seats=seats, games_per_pairing=games, format=fmt,
                                   rounds=rounds, bot_versions=field, seed=3)
    play_out(t)
    assert t.status == Tournament.Status.FINISHED
    assert t.planned_matches == t.matches.count() == formats.planned_matches(
        fmt, bots, seats, games, t.rounds, 0, services.smallest_table("port_royal"))


# --- seeds: a bot that knew its match's seed would know every deal to come ------------------------------

def rated_seeds(builtin_versions, **kwargs) -> list[int]:
    tournament = services.create_tournament(name="r", game="port_royal", seats=2, rated=True, games_per_pairing=4,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]],
                                            **kwargs)
    return list(tournament.matches.order_by("id").values_list("seed", flat=True))


def test_a_rated_tournaments_seeds_cannot_be_foreseen(builtin_versions):
    # The same tournament twice, from the same tournament seed: a friendly one deals the same again...
    friendly = [list(services.create_tournament(
        name="f", game="port_royal", seats=2, games_per_pairing=4, seed=7,
        bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]]).matches.values_list("seed", flat=True))
        for _ in range(2)]
    assert friendly[0] == friendly[1]
    # ...a rated one never: its seeds are drawn, not counted from the tournament's seed.
    first, second = rated_seeds(builtin_versions, seed=7), rated_seeds(builtin_versions, seed=7)
    assert len(set(first)) == len(first) == 4 and not set(first) & set(second)
    counted = {7 * 1_000_003 + k for k in range(10_000)} | set(range(10_000))
    assert not (set(first) | set(second)) & counted
    assert all(0 <= seed < services.SECRET_SEED_BOUND for seed in first + second)


def test_a_rated_duplicate_series_shares_one_drawn_seed(builtin_versions):
    seeds = rated_seeds(builtin_versions, duplicate=True)
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[0] != seeds[2]


def test_the_ladder_draws_its_seeds(builtin_versions):
    from tournaments.competition.ladder import start_ladder

    ladder = start_ladder("port_royal", seed=1)  # its first tables
    seeds = list(ladder.tournament.matches.values_list("seed", flat=True))
    assert seeds and not set(seeds) & {1_000_003 + k for k in range(10_000)}


def test_a_matchs_seed_is_shown_once_it_is_over(staff, builtin_versions):
    tournament = services.create_tournament(name="r", game="port_royal", seats=2, rated=True,
                                            bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    match = tournament.matches.get()
    secret = str(match.seed)
    assert APIClient().get(f"/api/matches/{match.pk}/").json()["seed"] is None
    assert APIClient().get(f"/api/matches/?tournament={tournament.pk}").json()["results"][0]["seed"] is None
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert secret not in page and "seed shown when it ends" in page
    assert secret not in Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    play_out(tournament)
    assert APIClient().get(f"/api/matches/{match.pk}/").json()["seed"] == match.seed
    assert f"seed {secret}" in Client().get(f"/matches/{match.pk}/").content.decode()


def test_a_rated_tournament_refuses_a_chosen_seed(staff, builtin_versions):
    response = token_client(staff).post("/api/tournaments/", body(rated=True, seed=5), format="json")
    assert response.status_code == 400 and "secret" in str(response.json()), response.content
    assert not Tournament.objects.exists()
    assert token_client(staff).post("/api/tournaments/", body(rated=True), format="json").status_code == 201
    friendly = token_client(staff).post("/api/tournaments/", body(seed=5), format="json").json()
    assert friendly["seed"] == 5


def rate(seated: list[BotVersion], ranks: list[int]) -> None:
    """One rated Port Royal match of these versions, finished with these ranks."""
    match = Match.objects.create(game="port_royal", seed=1, status=Match.Status.FINISHED)  # rate_match marks it
    for seat, (version, rank) in enumerate(zip(seated, ranks)):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=version, rank=rank, score=0)
    with transaction.atomic():
        assert rate_match(match, "standard")


def test_a_lucky_peak_cannot_be_frozen_on_the_board_by_uploading_again(mallory, builtin_versions):
    """A version stops playing once its bot has a newer one: were it kept on the board, its author could freeze a
    lucky peak by uploading the same code again. The board holds each bot once, its newest rated version, on every
    page (overall, a bracket, a search, the API, a recomputed model's) from the new version's first rated match."""
    from ratings.selectors import leaderboard_rows, model_leaderboard
    from tournaments.results.recompute import recompute

    peak = uploaded(mallory, "lucky")
    random = builtin_versions["random"]
    for _ in range(6):  # v1's lucky streak
        rate([peak, random], [0, 1])
    before = leaderboard_rows("port_royal", search="lucky")
    assert [row["bot_version"] for row in before["rows"]] == [peak.pk] and before["count"] == 1
    again = BotVersion.objects.create(bot=peak.bot, number=2, kind="upload", status="valid")
    assert peak.pk in {r.bot_version_id for r in leaderboard("port_royal")}  # until v2 is rated, v1 stays
    two_players = leaderboard_rows("port_royal", players="2")  # cached: v1 leads the two-player board
    assert [row["bot_version"] for row in two_players["rows"]] == [peak.pk, random.pk]
    rate([again, random, builtin_versions["heuristic"]], [0, 1, 2])  # v2 first rated at three players
    rows = leaderboard_rows("port_royal", players="2")  # that board's own ratings did not move: the stamp did
    assert [row["bot_version"] for row in rows["rows"]] == [random.pk] and rows["count"] == 1
    rate([again, random], [1, 0])  # then a loss at two
    board = [r.bot_version_id for r in leaderboard("port_royal")]
    assert again.pk in board and peak.pk not in board
    for players in (None, "2"):
        rows = leaderboard_rows("port_royal", players=players)  # the cached pages above are stale now: a new stamp
        assert [row["bot_version"] for row in rows["rows"] if row["bot"] == peak.bot_id] == [again.pk]
        assert rows["count"] == len(rows["rows"]) == (3 if players is None else 2)  # heuristic played at three
    found = leaderboard_rows("port_royal", search="lucky")
    assert [row["bot_version"] for row in found["rows"]] == [again.pk] and found["count"] == 1
    api = Client().get("/api/leaderboards/port_royal/").json()
    assert again.pk in {row["bot_version"] for row in api["results"]} and peak.pk not in \
        {row["bot_version"] for row in api["results"]} and api["count"] == 3
    assert recompute("port_royal", "elo")
    assert [r.bot_version_id for r in model_leaderboard("elo", "port_royal") if r.bot_version.bot_id == peak.bot_id] \
        == [again.pk]
    assert Rating.objects.filter(bot_version=peak, games=6).exists()  # its history stays, on the bot's page
    assert str(peak.pk) in Client().get(f"/bots/{peak.bot_id}/").content.decode()


def test_a_staff_tournament_has_a_ceiling_the_platforms_own_has_none(staff, builtin_versions, settings):
    """Staff are trusted, not typo-proof: a tournament is expanded in the one request that creates it."""
    settings.ARENA = {**settings.ARENA, "MAX_MATCHES_PER_STAFF_TOURNAMENT": 10}
    too_many = token_client(staff).post("/api/tournaments/", body(bots=["random", "heuristic"], games_per_pairing=12),
                                        format="json")
    assert too_many.status_code == 400 and "staff may plan at most 10" in too_many.json()["detail"]
    assert not Tournament.objects.exists()
    fits = token_client(staff).post("/api/tournaments/", body(bots=["random", "heuristic"], games_per_pairing=10),
                                    format="json")
    assert fits.status_code == 201
    platform = services.create_tournament(name="p", game="port_royal", seats=2, games_per_pairing=12,
                                          bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]])
    assert platform.matches.count() == 12
