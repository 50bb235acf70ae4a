"""recompute_ratings: TrueSkill replays reproduce the live ratings exactly; openskill and Elo against hand
computations."""
import math
import os
import random

import pytest
from django.core.management import call_command
from django.db import transaction

from ratings.models import BracketRating, ModelRating, Rating
from tournaments.results.recompute import ELO_K, elo_update, recompute, replay
from ratings.services import rate_match
from test_statistics import make_versions, played

# Size of the random rated history replayed (bounded; raise it locally for a longer check).
MATCHES = int(os.environ.get("ARENA_RECOMPUTE_MATCHES", "60"))


@pytest.mark.django_db
def test_trueskill_replay_reproduces_the_live_ratings_exactly():
    rng = random.Random(7)
    versions = make_versions([f"v{i}" for i in range(7)])
    for n in range(MATCHES):
        table = rng.sample(versions, rng.choice([2, 3, 4, 5]))
        ranks = [rng.randrange(len(table)) for _ in table]  # ties included
        match = played(table, ranks, [0] * len(table), 10, rated=False)
        with transaction.atomic():
            rate_match(match, "standard" if n % 4 else "other")  # two rulesets, one history
    call_command("recompute_ratings", "--model", "trueskill", "--game", "port_royal", stdout=open(os.devnull, "w"))
    live = {(r.bot_version_id, r.ruleset, "all"): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    live |= {(r.bot_version_id, r.ruleset, r.bracket): (r.mu, r.sigma, r.games) for r in BracketRating.objects.all()}
    replayed = {(r.bot_version_id, r.ruleset, r.bracket): (r.mu, r.sigma, r.games)
                for r in ModelRating.objects.filter(model="trueskill")}
    assert replayed == live  # exactly: the same floats
    assert {b for _, _, b in live} >= {"all", "2", "3-4", "5-6"}
    # Recomputing replaces the model's rows, never adds to them.
    assert recompute("port_royal", "trueskill") == len(live) == ModelRating.objects.count()


def test_pairwise_elo_by_hand():
    # Two equal players: classic Elo, K = 32.
    assert elo_update([1500, 1500], [0, 1]) == [1516, 1484]
    # Three equal players, the second and third tied: the winner takes K/2 from each pair.
    assert elo_update([1500, 1500, 1500], [0, 1, 1]) == [1516, 1492, 1492]
    # Unequal: the 1484 player beats the 1516 one: expected score 1 / (1 + 10^(32/400)) = 0.454079.
    a, b = elo_update([1516, 1484], [1, 0])
    assert b == pytest.approx(1484 + 32 * (1 - 0.454079), abs=1e-4) and a + b == pytest.approx(3000)
    assert ELO_K == 32


@pytest.mark.django_db
def test_openskill_and_elo_replays_by_hand():
    a, b, c = make_versions(["a", "b", "c"])
    played([a, b], [0, 1], [0, 0], 10)
    played([a, b, c], [0, 1, 1], [0, 0, 0], 10)
    elo = replay("port_royal", "elo")
    # After the first match a 1516, b 1484, c 1500; the second: K / (N - 1) = 16 per pair.
    expected = 1516 + 16 * ((1 - 1 / (1 + 10 ** (-32 / 400))) + (1 - 1 / (1 + 10 ** (-16 / 400))))
    assert elo[(a.pk, "standard", "all")] == [pytest.approx(expected), 0.0, 2]
    assert expected == pytest.approx(1530.8971, abs=1e-4)
    assert elo[(b.pk, "standard", "all")][0] == pytest.approx(1484 + 16 * ((0 - 1 / (1 + 10 ** (32 / 400)))
                                                                          + (0.5 - 1 / (1 + 10 ** (16 / 400)))))
    assert elo[(c.pk, "standard", "3-4")] == [1492, 0.0, 1] and (c.pk, "standard", "2") not in elo
    # Plackett-Luce, two fresh players (mu 25, sigma 25/3, beta 25/6, tau 25/300): by Weng & Lin's
    # update, the winner gains sigma'^2 / (2c) with sigma'^2 = sigma^2 + tau^2, c^2 = 2 (sigma'^2 + beta^2).
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c_ = math.sqrt(2 * (s2 + (25 / 6) ** 2))
    first = replay("port_royal", "openskill")
    call_command("recompute_ratings", "--model", "openskill", "--game", "port_royal", stdout=open(os.devnull, "w"))
    only_two = {k: v for k, v in first.items() if k[2] == "2"}
    assert only_two[(a.pk, "standard", "2")][0] == pytest.approx(25 + s2 / (2 * c_))
    assert only_two[(b.pk, "standard", "2")][0] == pytest.approx(25 - s2 / (2 * c_))
    delta = (math.sqrt(s2) / c_) * (s2 / c_ ** 2) / 4
    assert only_two[(a.pk, "standard", "2")][1] == pytest.approx(math.sqrt(s2 * (1 - delta)))
    stored = ModelRating.objects.get(model="openskill", bot_version=a, bracket="all")
    assert stored.games == 2 and stored.mu > 27.6  # won both


def test_spearman_by_hand():
    from ratings.selectors import spearman

    assert spearman([1, 2, 3], [1, 2, 3]) == 1 and spearman([1, 2, 3], [3, 2, 1]) == -1
    assert spearman([1, 2, 3], [2, 1, 3]) == 0.5  # d^2 = 2: 1 - 6 * 2 / (3 * 8)
    assert spearman([1, 2, 3, 9], [2, 1, 3]) == 0.5  # over the ids both rank
    assert spearman([1], [1]) is None


@pytest.mark.django_db
def test_the_comparison_page_and_api(client):
    from rest_framework.test import APIClient

    a, b, c = make_versions(["a", "b", "c"])
    for _ in range(3):
        played([a, b, c], [0, 1, 2], [0, 0, 0], 10)
    played([c, b], [0, 1], [0, 0], 10)
    for model in ("openskill", "elo"):
        recompute("port_royal", model)
    body = APIClient().get("/api/games/port_royal/compare/").json()
    assert body["models"] == ["live", "openskill", "elo"] and body["players"] == "all"
    assert body["rows"][0]["bot_version"] == a.pk and body["rows"][0]["places"] == {"live": 1, "openskill": 1, "elo": 1}
    assert set(body["correlation"]) == {"openskill", "elo"}
    assert all(-1 <= rho <= 1 for rho in body["correlation"].values())
    two = APIClient().get("/api/games/port_royal/compare/?players=2").json()
    assert [r["bot_version"] for r in two["rows"]] == [c.pk, b.pk]  # c beat b in the only two-player match
    assert APIClient().get("/api/games/port_royal/compare/?players=4").status_code == 400
    html = client.get("/games/port_royal/compare/").content.decode()
    assert "ρ =" in html and "<svg" in html and a.label in html
    assert client.get("/games/port_royal/compare/?players=5-6").status_code == 200
    assert client.get("/games/catan/compare/?players=2").status_code == 404


@pytest.mark.django_db
def test_the_cached_comparison_follows_new_matches_and_recomputes():
    from ratings.selectors import model_comparison

    a, b = make_versions(["a", "b"])
    played([a, b], [0, 1], [0, 0], 10)
    first = model_comparison("port_royal")
    assert first["models"] == ["live"] and [r["bot_version"] for r in first["rows"]] == [a.pk, b.pk]
    recompute("port_royal", "elo")
    assert model_comparison("port_royal")["models"] == ["live", "elo"]  # a recompute is seen at once
    for _ in range(3):
        played([b, a], [0, 1], [0, 0], 10)
    after = model_comparison("port_royal")
    assert [r["bot_version"] for r in after["rows"]] == [b.pk, a.pk]  # so is a rated match
    assert after["rows"][0]["places"] == {"live": 1, "elo": 2}  # elo was computed before b's wins


@pytest.mark.django_db
def test_live_bracket_ratings_are_rebuilt_from_the_history():
    a, b, c = make_versions(["a", "b", "c"])
    played([a, b], [0, 1], [0, 0], 10)
    played([a, b, c], [2, 0, 1], [0, 0, 0], 10)
    played([c, a], [0, 1], [0, 0], 10)
    before = {(r.bot_version_id, r.bracket): (r.mu, r.sigma, r.games) for r in BracketRating.objects.all()}
    assert len(before) == 6  # each of a, b, c at two and at three players
    BracketRating.objects.all().delete()  # as before brackets existed
    call_command("recompute_ratings", "--rebuild-brackets", stdout=open(os.devnull, "w"))
    assert {(r.bot_version_id, r.bracket): (r.mu, r.sigma, r.games) for r in BracketRating.objects.all()} == before
    from django.core.management.base import CommandError
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--rebuild-brackets", "--model", "elo")
