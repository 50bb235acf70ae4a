"""Leaderboards by player count (2, 3-4, 5-6), the provisional badge and the rating's uncertainty."""
import pytest
from rest_framework.test import APIClient

from ratings.brackets import bracket_of, brackets_for
from ratings.models import PROVISIONAL_SIGMA, BracketRating, Rating
from ratings.selectors import leaderboard
from ratings.services import environment
from test_statistics import make_versions, played


def test_brackets_of_table_sizes_and_rulesets():
    assert [bracket_of(n) for n in range(1, 8)] == [None, "2", "3-4", "3-4", "5-6", "5-6", None]
    assert brackets_for([2, 3, 4, 5]) == ["2", "3-4", "5-6"]
    assert brackets_for([3, 4]) == ["3-4"] and brackets_for([5, 6]) == ["5-6"]


@pytest.fixture
def rated(db):
    """a beats b at two players; then c, d, a, b place 1-4 at four players."""
    a, b, c, d = make_versions(["a", "b", "c", "d"])
    played([a, b], [0, 1], [5, 3], 20)
    played([c, d, a, b], [0, 1, 2, 3], [9, 7, 5, 3], 40)
    return a, b, c, d


def test_each_bracket_is_rated_from_its_own_matches_only(rated):
    a, b, c, d = rated
    env = environment()
    fresh = env.create_rating()
    (two_a,), (two_b,) = env.rate([(fresh,), (fresh,)], ranks=[0, 1])
    four = [r for (r,) in env.rate([(fresh,)] * 4, ranks=[0, 1, 2, 3])]
    got = {(r.bot_version_id, r.bracket): (r.mu, r.sigma, r.games) for r in BracketRating.objects.all()}
    assert got == {
        (a.pk, "2"): (two_a.mu, two_a.sigma, 1), (b.pk, "2"): (two_b.mu, two_b.sigma, 1),
        (c.pk, "3-4"): (four[0].mu, four[0].sigma, 1), (d.pk, "3-4"): (four[1].mu, four[1].sigma, 1),
        (a.pk, "3-4"): (four[2].mu, four[2].sigma, 1), (b.pk, "3-4"): (four[3].mu, four[3].sigma, 1),
    }
    # The overall rating has both matches: a's came into the four-player match already raised.
    overall = Rating.objects.get(bot_version=a)
    assert overall.games == 2 and overall.mu != four[2].mu
    assert [r.bot_version_id for r in leaderboard("port_royal", players="2")] == [a.pk, b.pk]
    assert [r.bot_version_id for r in leaderboard("port_royal", players="3-4")] == [c.pk, d.pk, a.pk, b.pk]
    assert not leaderboard("port_royal", players="5-6").exists()


def test_provisional_while_sigma_is_above_the_threshold(rated):
    assert PROVISIONAL_SIGMA == 2.5
    assert all(r.provisional for r in Rating.objects.all())  # one or two games: sigma near 8
    settled = Rating.objects.first()
    settled.sigma = 2.5
    assert not settled.provisional and settled.uncertainty == 7.5
    settled.sigma = 2.51
    assert settled.provisional


def test_the_api_leaderboard_by_player_count(rated):
    a, b, c, d = rated
    client = APIClient()
    body = client.get("/api/leaderboards/port_royal/?players=2").json()
    assert body["bracket"] == "2" and [row["bot_version"] for row in body["results"]] == [a.pk, b.pk]
    row = body["results"][0]
    assert row["provisional"] is True and row["uncertainty"] == pytest.approx(3 * row["sigma"])
    assert row["history"] is None
    everyone = client.get("/api/leaderboards/port_royal/?history=1").json()
    assert everyone["bracket"] == "all" and everyone["count"] == 4 and everyone["results"][0]["history"]
    for bad in ("/api/leaderboards/port_royal/?players=7", "/api/leaderboards/catan/?players=2",
                "/api/leaderboards/port_royal/?players="):
        response = client.get(bad)
        assert response.status_code == 400, bad
        assert response.json()["error"] == "invalid" and "players" in response.json()["fields"]


def test_the_leaderboard_page_by_player_count(rated, client):
    a, b, c, d = rated
    page = client.get("/games/port_royal/?players=3-4")
    html = page.content.decode()
    assert page.status_code == 200 and "3-4 players" in html
    assert c.label in html and "provisional" in html and "±" in html
    two = client.get("/games/port_royal/?players=2").content.decode()
    assert c.label not in two and a.label in two
    assert client.get("/games/port_royal/?players=9").status_code == 404
    assert client.get("/games/port_royal/").status_code == 200
