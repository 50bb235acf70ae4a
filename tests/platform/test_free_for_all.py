"""The plain-float TrueSkill update gives the trueskill library's results bit for bit (and its errors)."""
import math

import pytest
import trueskill
from hypothesis import given, settings, strategies as st

from ratings import free_for_all
from ratings.services import environment


def library(env, ratings, ranks):
    """trueskill's own update, or the type of what it raised."""
    try:
        return [(r.mu, r.sigma) for (r,) in env.rate([(env.create_rating(mu, sigma),) for mu, sigma in ratings],
                                                     ranks=ranks)]
    except Exception as exc:  # noqa: BLE001 - the very error is compared
        return type(exc)


def ours(env, ratings, ranks):
    try:
        return [(r.mu, r.sigma) for r in free_for_all.rate(env, ratings, ranks)]
    except Exception as exc:  # noqa: BLE001
        return type(exc)


mus = st.floats(min_value=-50, max_value=100, allow_nan=False)
sigmas = st.one_of(st.floats(min_value=0.01, max_value=12), st.just(25.0 / 3))


@st.composite
def tables(draw):
    """2-8 seats with any ratings and any ranks (ties, gaps, unsorted)."""
    n = draw(st.integers(min_value=2, max_value=8))
    ratings = draw(st.lists(st.tuples(mus, sigmas), min_size=n, max_size=n))
    ranks = draw(st.lists(st.integers(min_value=0, max_value=n - 1), min_size=n, max_size=n))
    return ratings, ranks


@settings(max_examples=1500, deadline=None)
@given(tables())
def test_every_table_rates_exactly_as_trueskill_does(table):
    ratings, ranks = table
    env = environment()
    expected = library(env, ratings, ranks)
    assert ours(env, ratings, ranks) == expected  # floats compared with ==: bit for bit


@pytest.mark.parametrize("ranks", [[0, 1], [1, 0], [0, 0], [0, 1, 2, 3], [3, 2, 1, 0], [1, 0, 1, 3], [0, 0, 0, 0, 0],
                                   [2, 0, 1, 0, 2, 4]])
def test_fresh_ratings_win_lose_and_tie_as_trueskill(ranks):
    env = environment()
    fresh = [(env.mu, env.sigma)] * len(ranks)
    after = free_for_all.rate(env, fresh, ranks)
    assert [(r.mu, r.sigma) for r in after] == library(env, fresh, ranks)
    best, worst = min(ranks), max(ranks)
    if best != worst:  # the winners gain, the losers lose, and every sigma shrinks
        assert all(r.mu > env.mu for r, k in zip(after, ranks) if k == best)
        assert all(r.mu < env.mu for r, k in zip(after, ranks) if k == worst)
    assert all(r.sigma < env.sigma for r in after)


def test_a_hopeless_upset_raises_what_trueskill_raises():
    env = environment()
    upset = [(-400.0, 0.05), (400.0, 0.05)]  # the first wins against all odds: beyond float precision
    assert library(env, upset, [0, 1]) is FloatingPointError
    with pytest.raises(FloatingPointError):
        free_for_all.rate(env, upset, [0, 1])


def test_bad_tables_are_refused_as_trueskill_refuses_them():
    env = environment()
    with pytest.raises(ValueError):
        free_for_all.rate(env, [(25.0, 8.0)], [0])
    with pytest.raises(ValueError):
        free_for_all.rate(env, [(25.0, 8.0), (25.0, 8.0)], [0])
    # a draw probability computed from the ratings (the library allows one) would need the graph's team
    # performances: refused rather than rated with a wrong margin
    dynamic = trueskill.TrueSkill(draw_probability=lambda a, b, env: 0.1, backend=None)
    assert library(dynamic, [(25.0, 8.0), (26.0, 8.0)], [0, 1]) is not ValueError
    with pytest.raises(ValueError, match="draw probability"):
        free_for_all.rate(dynamic, [(25.0, 8.0), (26.0, 8.0)], [0, 1])


def test_other_environments_too():
    env = trueskill.TrueSkill(mu=1500.0, sigma=500.0, beta=250.0, tau=5.0, draw_probability=0.3, backend=None)
    table = [(1500.0, 500.0), (1720.5, 120.0), (1300.0, 333.3)]
    for ranks in ([0, 1, 2], [1, 1, 0], [2, 0, 2]):
        expected = library(env, table, ranks)
        assert not isinstance(expected, type) and all(math.isfinite(x) for pair in expected for x in pair)
        assert ours(env, table, ranks) == expected
