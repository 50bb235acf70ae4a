"""The TrueSkill update of one match in which every seat plays for itself, in plain floats.

``trueskill.TrueSkill.rate`` builds a factor graph of objects for any teams and weights; a match here is
always one player a team with weight 1, and that generality costs three quarters of the update (the library
takes 140-240 µs for two seats and 520-760 µs for four on the 2-core test machine; this 33 and 146 µs),
inside the game's rating turn. This runs the same graph with
the same schedule and the same float operations in the same order, so it gives the library's results bit
for bit (tests/platform/test_free_for_all.py compares both on thousands of random tables, ties and
extreme ratings included); the library's own v/w functions, draw margin and errors
(``FloatingPointError`` where the library raises it) are used as they are.

The graph, per seat i in rank order: the skill s_i (prior: its rating, its variance plus tau²), the
performance p_i (s_i plus beta² noise), the team performance t_i (= p_i); per neighbouring pair j: the
difference d_j = t_j - t_{j+1} and its truncation (a win, or a draw within the draw margin). Each variable
is a Gaussian in natural parameters (pi = 1/sigma², tau = mu/sigma²) and keeps one message per factor.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import trueskill

INF = float("inf")


class Skill(NamedTuple):
    """A seat's rating after the update."""

    mu: float
    sigma: float


def _delta(pi: float, tau: float, new_pi: float, new_tau: float) -> float:
    """How far a variable moved (``trueskill.factorgraph.Variable.delta``)."""
    pi_delta = abs(pi - new_pi)
    if pi_delta == INF:
        return 0.
    return max(abs(tau - new_tau), math.sqrt(pi_delta))


_MARGINS: dict[tuple, float] = {}


def _draw_margin(env: trueskill.TrueSkill) -> float:
    """The draw margin of a pair of seats: the library's, computed once per setting (its ppf costs ~3 µs)."""
    key = (env.draw_probability, env.beta, env.backend)
    margin = _MARGINS.get(key)
    if margin is None:
        margin = _MARGINS[key] = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    return margin


def _mu(pi: float, tau: float) -> float:
    return pi and tau / pi


def rate(env: trueskill.TrueSkill, ratings: Sequence[tuple[float, float]], ranks: Sequence[int],
         min_delta: float = trueskill.DELTA) -> list[Skill]:
    """The ratings (mu, sigma) of the seats after a match with these ranks (0 = first, equal = a tie), in
    seat order: what ``env.rate([(env.create_rating(mu, sigma),) ...], ranks=ranks)`` returns."""
    n = len(ratings)
    if n < 2:
        raise ValueError("need multiple rating groups")
    if len(ranks) != n:
        raise ValueError("Wrong ranks")
    order = sorted(range(n), key=ranks.__getitem__)  # stable, as the library sorts
    beta_sq = env.beta ** 2
    dynamic_sq = env.tau ** 2
    if callable(env.draw_probability):
        raise ValueError("a draw probability that depends on the ratings is not supported here")
    margin = _draw_margin(env)

    # Variables (pi, tau) and their messages; every message starts as Gaussian() = (0, 0).
    # skill: messages from the prior and the likelihood; perf: from the likelihood and the team sum;
    # team: from the team sum, the difference on its left (j - 1) and on its right (j).
    s_pi, s_tau = [0] * n, [0] * n
    s_prior_pi, s_prior_tau = [0] * n, [0] * n
    s_like_pi, s_like_tau = [0] * n, [0] * n
    p_pi, p_tau = [0] * n, [0] * n
    p_like_pi, p_like_tau = [0] * n, [0] * n
    p_sum_pi, p_sum_tau = [0] * n, [0] * n
    t_pi, t_tau = [0] * n, [0] * n
    t_sum_pi, t_sum_tau = [0] * n, [0] * n
    t_left_pi, t_left_tau = [0] * n, [0] * n  # from d_{i-1} (t_i is its right term)
    t_right_pi, t_right_tau = [0] * n, [0] * n  # from d_i (t_i is its left term)
    m = n - 1
    d_pi, d_tau = [0] * m, [0] * m
    d_sum_pi, d_sum_tau = [0] * m, [0] * m
    d_trunc_pi, d_trunc_tau = [0] * m, [0] * m

    # Prior, likelihood and team sum, downwards (PriorFactor.down, LikelihoodFactor.down, SumFactor.down).
    for i, seat in enumerate(order):
        rating = env.create_rating(*ratings[seat])
        sigma = math.sqrt(rating.sigma ** 2 + dynamic_sq)
        pi = sigma ** -2
        tau = pi * rating.mu
        old_pi, old_tau = s_prior_pi[i], s_prior_tau[i]
        s_prior_pi[i], s_prior_tau[i] = pi + old_pi - s_pi[i], tau + old_tau - s_tau[i]
        s_pi[i], s_tau[i] = pi, tau

        msg_pi, msg_tau = s_pi[i] - s_like_pi[i], s_tau[i] - s_like_tau[i]
        a = 1. / (1. + beta_sq * msg_pi)
        pi, tau = a * msg_pi, a * msg_tau
        old_pi, old_tau = p_like_pi[i], p_like_tau[i]
        p_like_pi[i], p_like_tau[i] = pi, tau
        p_pi[i], p_tau[i] = p_pi[i] - old_pi + pi, p_tau[i] - old_tau + tau

    for i in range(n):
        pi, tau = _sum(((p_pi[i], p_tau[i], p_sum_pi[i], p_sum_tau[i], 1),))
        old_pi, old_tau = t_sum_pi[i], t_sum_tau[i]
        t_sum_pi[i], t_sum_tau[i] = pi, tau
        t_pi[i], t_tau[i] = t_pi[i] - old_pi + pi, t_tau[i] - old_tau + tau

    ties = [ranks[order[j]] == ranks[order[j + 1]] for j in range(m)]

    def diff_down(j: int) -> None:  # SumFactor.down of d_j = t_j - t_{j+1}
        pi, tau = _sum(((t_pi[j], t_tau[j], t_right_pi[j], t_right_tau[j], 1),
                        (t_pi[j + 1], t_tau[j + 1], t_left_pi[j + 1], t_left_tau[j + 1], -1)))
        old_pi, old_tau = d_sum_pi[j], d_sum_tau[j]
        d_sum_pi[j], d_sum_tau[j] = pi, tau
        d_pi[j], d_tau[j] = d_pi[j] - old_pi + pi, d_tau[j] - old_tau + tau

    def trunc_up(j: int) -> float:  # TruncateFactor.up
        old_pi, old_tau = d_trunc_pi[j], d_trunc_tau[j]
        div_pi, div_tau = d_pi[j] - old_pi, d_tau[j] - old_tau
        sqrt_pi = math.sqrt(div_pi)
        diff, draw_margin = div_tau / sqrt_pi, margin * sqrt_pi
        if ties[j]:
            v, w = env.v_draw(diff, draw_margin), env.w_draw(diff, draw_margin)
        else:
            v, w = env.v_win(diff, draw_margin), env.w_win(diff, draw_margin)
        denom = (1. - w)
        pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
        d_trunc_pi[j], d_trunc_tau[j] = pi + old_pi - d_pi[j], tau + old_tau - d_tau[j]
        delta = _delta(d_pi[j], d_tau[j], pi, tau)
        d_pi[j], d_tau[j] = pi, tau
        return delta

    def diff_up_left(j: int) -> None:  # SumFactor.up(0): t_j = d_j + t_{j+1}
        pi, tau = _sum(((d_pi[j], d_tau[j], d_sum_pi[j], d_sum_tau[j], 1.),
                        (t_pi[j + 1], t_tau[j + 1], t_left_pi[j + 1], t_left_tau[j + 1], 1.)))
        old_pi, old_tau = t_right_pi[j], t_right_tau[j]
        t_right_pi[j], t_right_tau[j] = pi, tau
        t_pi[j], t_tau[j] = t_pi[j] - old_pi + pi, t_tau[j] - old_tau + tau

    def diff_up_right(j: int) -> None:  # SumFactor.up(1): t_{j+1} = t_j - d_j
        pi, tau = _sum(((t_pi[j], t_tau[j], t_right_pi[j], t_right_tau[j], 1.),
                        (d_pi[j], d_tau[j], d_sum_pi[j], d_sum_tau[j], -1.)))
        old_pi, old_tau = t_left_pi[j + 1], t_left_tau[j + 1]
        t_left_pi[j + 1], t_left_tau[j + 1] = pi, tau
        t_pi[j + 1], t_tau[j + 1] = t_pi[j + 1] - old_pi + pi, t_tau[j + 1] - old_tau + tau

    # The schedule of TrueSkill.run_schedule: the differences and truncations until they settle.
    for _ in range(10):
        if m == 1:
            diff_down(0)
            delta = trunc_up(0)
        else:
            delta = 0
            for j in range(m - 1):
                diff_down(j)
                delta = max(delta, trunc_up(j))
                diff_up_right(j)
            for j in range(m - 1, 0, -1):
                diff_down(j)
                delta = max(delta, trunc_up(j))
                diff_up_left(j)
        if delta <= min_delta:
            break
    diff_up_left(0)
    diff_up_right(m - 1)

    # Back up to the skills: the team sums (SumFactor.up(0): p_i = t_i), then the likelihoods.
    out: list[Skill] = [None] * n  # type: ignore[list-item]
    for i in range(n):
        pi, tau = _sum(((t_pi[i], t_tau[i], t_sum_pi[i], t_sum_tau[i], 1.),))
        old_pi, old_tau = p_sum_pi[i], p_sum_tau[i]
        p_sum_pi[i], p_sum_tau[i] = pi, tau
        p_pi[i], p_tau[i] = p_pi[i] - old_pi + pi, p_tau[i] - old_tau + tau
    for i, seat in enumerate(order):
        msg_pi, msg_tau = p_pi[i] - p_like_pi[i], p_tau[i] - p_like_tau[i]
        a = 1. / (1. + beta_sq * msg_pi)
        pi, tau = a * msg_pi, a * msg_tau
        old_pi, old_tau = s_like_pi[i], s_like_tau[i]
        s_pi[i], s_tau[i] = s_pi[i] - old_pi + pi, s_tau[i] - old_tau + tau
        # trueskill.Rating(float(var.mu), float(var.sigma)), read back through its own mu and sigma
        final = s_pi[i]
        rating = trueskill.Rating(float(_mu(final, s_tau[i])), float(math.sqrt(1 / final) if final else INF))
        out[seat] = Skill(rating.mu, rating.sigma)
    return out


def _sum(terms: tuple[tuple[float, float, float, float, float], ...]) -> tuple[float, float]:
    """The message of a sum factor to its variable (``SumFactor.update``): per term (value pi, tau, the
    factor's message pi, tau, coefficient)."""
    pi_inv = 0
    mu = 0
    for val_pi, val_tau, msg_pi, msg_tau, coeff in terms:
        div_pi = val_pi - msg_pi
        mu += coeff * _mu(div_pi, val_tau - msg_tau)
        if pi_inv == INF:
            continue
        try:
            pi_inv += coeff ** 2 / float(div_pi)
        except ZeroDivisionError:
            pi_inv = INF
    pi = 1. / pi_inv
    return pi, pi * mu
