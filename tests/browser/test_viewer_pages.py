"""The match viewer in a real browser, for every game: the site's match page (live server) and the
offline file. Steps, jumps with ?move=N, seat views (own: allowed; others: refused unless the game's
seat views are public), and what is drawn at known moves equals the game's ``expected_marks``."""
from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from engines.games import GAME_IDS
from engines.match import MatchLog
from engines.view import match_data, render_html
from engines.view.frames import replay_observations
from engines.view.games import expected_marks, seat_views_public
from players.models import Player
from tournaments.selectors import match_log
from viewer_testing import stored_match

pytestmark = pytest.mark.browser


class Replayed:
    """The same match replayed in Python: what the page must show."""

    def __init__(self, log: MatchLog):
        self.observations, _events = replay_observations(log, [None, 0, 1])
        self.data = match_data(log)
        self.n = len(log.moves)
        self.seats = log.seats

    def marks(self, viewer, position: int) -> dict[str, int]:
        return expected_marks(self.data["game"], self.observations[viewer][position])


def check_drawn(tab, replayed: Replayed, viewer, position: int) -> None:
    shown = tab.js("[arenaViewer.position(), arenaViewer.view()]")
    assert shown == [position, "spectator" if viewer is None else str(viewer)]
    marks = replayed.marks(viewer, position)
    assert tab.counts(marks) == marks, f"drawn at move {position} ({viewer or 'spectator'})"
    current = tab.page.inner_text(".av-current")
    if position:
        move = replayed.data["moves"][position - 1]
        assert move["t"] in current and replayed.seats[move["s"]] in current
    assert f"move {position} / {replayed.n}" in tab.page.inner_text(".av-pos")


def walk(tab, replayed: Replayed, start: int, own_seat: int, may_see_other: bool) -> None:
    """Step, jump and switch views on an opened page, checking the drawing every time."""
    check_drawn(tab, replayed, None, start)
    tab.page.keyboard.press("ArrowRight")
    check_drawn(tab, replayed, None, start + 1)
    tab.page.click(".av-bar [data-act=prev]")
    tab.page.keyboard.press("ArrowLeft")
    check_drawn(tab, replayed, None, start - 1)
    tab.page.click(".av-bar [data-act=last]")
    check_drawn(tab, replayed, None, replayed.n)
    assert "Result" in tab.page.inner_text(".av-current")
    tab.page.click(".av-bar [data-act=first]")
    check_drawn(tab, replayed, None, 0)
    tab.page.click(f".av-moves li[data-move='{start}']")
    check_drawn(tab, replayed, None, start)
    assert f"move={start}" in tab.page.url
    # Seat views: the own seat opens; another seat only where the game's seat views are public.
    assert tab.js(f"arenaViewer.setView({own_seat})") is True
    check_drawn(tab, replayed, own_seat, start)
    tab.page.keyboard.press("ArrowRight")
    check_drawn(tab, replayed, own_seat, start + 1)
    assert f"seat={own_seat}" in tab.page.url
    assert tab.js("arenaViewer.setView(1)") is may_see_other
    check_drawn(tab, replayed, 1 if may_see_other else own_seat, start + 1)
    tab.js("arenaViewer.setView('spectator')")
    check_drawn(tab, replayed, None, start + 1)
    # Playing moves on by itself, then stops.
    tab.page.select_option(".av-speed", "50")
    tab.page.click(".av-bar [data-act=play]")
    tab.page.wait_for_function(f"() => arenaViewer.position() >= {start + 4}")
    tab.page.click(".av-bar [data-act=play]")
    stopped = tab.js("arenaViewer.position()")
    tab.page.wait_for_timeout(100)
    assert tab.js("arenaViewer.position()") == stopped
    assert tab.errors == []


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_match_page_plays_every_game(game, tab, live_server, transactional_db):
    alice = Player.objects.create_user("alice", password="pw-alice-123")
    match = stored_match(game, alice, seed=3)
    replayed = Replayed(MatchLog.from_dict(match_log(match)))
    start = replayed.n // 2
    client = Client()
    client.force_login(alice)
    as_alice = tab()
    as_alice.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                   "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
    as_alice.open(f"{live_server.url}/matches/{match.pk}/?move={start}")
    walk(as_alice, replayed, start, own_seat=0, may_see_other=seat_views_public(game))
    # Another player: the same spectator drawing; a seat view opened by URL is refused unless public.
    eve = Client()
    eve.force_login(Player.objects.create_user("eve", password="pw-eve-12345"))
    visitor = tab()
    visitor.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                  "value": eve.cookies[settings.SESSION_COOKIE_NAME].value}])
    visitor.open(f"{live_server.url}/matches/{match.pk}/?move={start}&seat=0")
    public = seat_views_public(game)
    check_drawn(visitor, replayed, 0 if public else None, start)
    assert visitor.page.is_disabled(".av-view option[value='0']") is not public
    assert visitor.errors == []


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_offline_file_plays_every_game(game, tab, tmp_path):
    from engines.games import builtin_bots
    from engines.match import play_match

    bots = builtin_bots(game)
    log = play_match(game, [bots["heuristic"](seed=1), bots["random"](seed=2), bots["random"](seed=3)], 5)
    path = tmp_path / f"{game}.html"
    path.write_text(render_html(log))
    replayed = Replayed(log)
    page = tab(offline=True)  # no network at all
    start = replayed.n // 3
    page.open(f"{path.as_uri()}?move={start}")
    walk(page, replayed, start, own_seat=0, may_see_other=True)


def test_faults_are_marked_where_they_happened(tab, tmp_path):
    """A real faulty bot (it answers an index out of range on its 3rd and 5th decisions): the page marks
    those moves in the list, on the chart and under the move, with the fault's kind."""
    from engines.players import make_bot
    from engines.match import play_match

    program = tmp_path / "faulty.py"
    program.write_text(
        "import arena_bot\n"
        "calls = 0\n"
        "def act(observation, legal_actions):\n"
        "    global calls\n"
        "    calls += 1\n"
        "    return 10**6 if calls in (3, 5) else 0\n"
        "arena_bot.run(act)\n")
    bots = [make_bot(str(program), "port_royal", seed=1, trusted=True), make_bot("heuristic", "port_royal", seed=2)]
    log = play_match("port_royal", bots, 9, seat_names=["faulty", "heuristic"])
    assert [f["kind"] for f in log.faults] == ["illegal", "illegal"]
    path = tmp_path / "faults.html"
    path.write_text(render_html(log))
    page = tab()
    first = log.faults[0]["move"] + 1  # the move the fault happened on, numbered from 1
    page.open(f"{path.as_uri()}?move={first}")
    marked = page.js("[...document.querySelectorAll('.av-moves li.has-fault')].map((li) => Number(li.dataset.move))")
    assert marked == [f["move"] + 1 for f in log.faults]
    assert page.js("document.querySelectorAll('.av-chart .av-fault-mark').length") == 2
    assert "fault of seat 0: illegal" in page.page.inner_text(".av-current")
    assert page.errors == []


#: markup where the match data holds numbers: the offline file plays any log it is given
MARKUP = "<img src=x onerror=\"window.pwned = (window.pwned || []).concat('{}')\">"


def test_the_offline_file_shows_markup_in_number_fields_as_text(tab, tmp_path):
    """``python -m engines view`` plays any log it is given: a crafted one (a move's time, a fault's seat,
    the outcome's places and scores as markup) must not run script in the page."""
    from engines.games import builtin_bots
    from engines.match import play_match

    bots = builtin_bots("port_royal")
    data = play_match("port_royal", [bots["heuristic"](seed=1), bots["random"](seed=2)], 5).to_dict()
    data["moves"][0][2] = MARKUP.format("ms")
    data["faults"] = [{"seat": MARKUP.format("fault seat"), "move": 0, "kind": "crash"}]
    data["outcome"] = {**data["outcome"], "ranks": [MARKUP.format("rank"), 1],
                       "scores": [MARKUP.format("score"), 1]}
    path = tmp_path / "crafted.html"
    path.write_text(render_html(MatchLog.from_dict(data)))
    page = tab(offline=True)
    page.open(f"{path.as_uri()}?move=1")
    page.page.click(".av-bar [data-act=last]")
    page.page.wait_for_timeout(200)  # an injected image would have failed to load by now
    assert page.js("[window.pwned || null, document.querySelectorAll('#arena-viewer img').length]") == [None, 0]
    assert "onerror" in page.page.inner_text("#arena-viewer")  # shown as text
