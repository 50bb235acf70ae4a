"""Which bot is stronger: many seeded matches with the seats rotated, a place per bot with its uncertainty.

Game ``g`` (0-based) is played with seed ``seed + g`` and the bots in ``specs`` seated in order rotated
by ``g``, so over ``len(specs)`` games every bot sits in every seat once. Bots are built-in names or
paths to bot programs (run in the sandbox, as ``play`` does). Games run in ``jobs`` processes; the
result does not depend on ``jobs``.

**Duplicate series** (``duplicate=True``): the games come in series of ``len(specs)`` games, one per seat
rotation, all on the series' one seed (series ``s``: seed ``seed + s``), so every bot plays every seat's
deal once and the luck of the deal cancels within a series. The bots' own seeds follow the seat, not the
bot (``match_seed * 101 + seat``), so the same bot in the same seat of a series makes the same choices.
What "the same deal" means per game: ``Game.setup(num_players, seed, options)`` never sees who sits
where, so every rotation of a series starts from the identical state (board, shuffled decks and hands,
start player). Randomness during play comes from the same seeded stream in the state; it is identical
across the rotations as long as the games draw from it in the same order:

- Top Race: the stream is only drawn at each race's start (deals, start grid): every deal is the same.
- Port Royal, El Capitan, Alhambra: the decks are shuffled once at set-up and drawn in order; only a
  reshuffle of the discards (when a draw pile runs out) draws again, and its result depends on play.
- Catan: the board, the harbours and the development deck are fixed at set-up; dice, robber steals (and
  returned guild favours) draw from the stream as play goes, so the dice are the same until the first
  difference in play that draws (a steal at another time): from there on they differ.

Places are 1-based (1 = first; a tie shares the better place). The 95% confidence interval of a mean is
Student's t interval ``mean +- t(0.975, n-1) * sd / sqrt(n)``. Plain runs take the per-game places as the
samples (they ignore that the bots of one game are not independent); duplicate runs take each bot's average
place per series (the series are independent: each has its own seed).
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence

from engines.games import builtin_bots, get_game
from engines.match import MatchLimits, MatchLog, play_match
from engines.players import is_program_spec, make_bot
from engines.sandbox import check_package, package_from_folder

Z95 = 1.959964  # the 97.5th percentile of the standard normal distribution


def check_specs(game_id: str, specs: Sequence[str]) -> None:
    """Raise (KeyError, ValueError, OSError) with a clear message for a spec that cannot be played."""
    get_game(game_id).check_players(len(specs))
    for spec in specs:
        if is_program_spec(spec):
            path = Path(spec)
            if path.is_dir():
                package_from_folder(path)
            elif path.is_file():
                check_package(path.read_bytes(), path.name)
            else:
                raise FileNotFoundError(f"{spec}: no such file or folder")
        elif spec not in builtin_bots(game_id):
            raise KeyError(f"{game_id} has no built-in bot {spec!r}; built-in bots: "
                           f"{', '.join(sorted(builtin_bots(game_id)))}")


@lru_cache(maxsize=None)
def t975(df: int) -> float:
    """The 97.5th percentile of Student's t distribution with ``df`` degrees of freedom (Newton's method on
    its distribution function, integrated with Simpson's rule; exact to about 1e-9)."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def density(x: float) -> float:
        return math.exp(log_c - (df + 1) / 2 * math.log1p(x * x / df))

    def mass(t: float, steps: int = 4000) -> float:  # P(0 < T < t)
        h = t / steps
        inner = sum((4 if i % 2 else 2) * density(i * h) for i in range(1, steps))
        return h / 3 * (density(0.0) + inner + density(t))

    t = Z95
    for _ in range(50):
        step = (mass(t) - 0.475) / density(t)
        t -= step
        if abs(step) < 1e-12:
            break
    return t


def mean_ci95(values: Sequence[float]) -> tuple[float, tuple[float, float] | None]:
    """The mean of ``values`` and its 95% confidence interval (Student's t over n-1 degrees of freedom;
    None under 2 values)."""
    n = len(values)
    if not n:
        raise ValueError("no values")
    mean = sum(values) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


def summarize(places: Sequence[float], seats: int | None = None) -> dict[str, Any]:
    """Average place and its 95% confidence interval, rounded for people (ci95 None under 2 samples); with
    ``seats`` the interval is cut to the places that exist, 1..seats (the t interval of few games is wider)."""
    mean, ci = mean_ci95(places)
    if ci and seats:
        ci = (max(ci[0], 1.0), min(ci[1], float(seats)))
    return {"average_place": round(mean, 4), "ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None}


def score_series(places: Mapping[Hashable, Sequence[int]]) -> dict[Hashable, dict[str, Any]]:
    """One duplicate series: per bot, its places (one per seat it held), their sum and average, and whether
    it won the series (the best average place; a tie shares the win)."""
    rows = {bot: {"places": list(p), "place_sum": sum(p), "average_place": sum(p) / len(p)}
            for bot, p in places.items() if p}
    best = min((row["average_place"] for row in rows.values()), default=None)
    for row in rows.values():
        row["won"] = row["average_place"] == best
    return rows


def paired_difference(series: Sequence[Mapping[Hashable, Mapping[str, Any]]], bot: Hashable,
                      baseline: Hashable) -> dict[str, Any]:
    """How ``bot`` placed against ``baseline`` over duplicate series (each a ``score_series`` result where
    both played): the per-series differences of their average places (negative: ``bot`` placed better),
    their mean with its 95% confidence interval (Student's t over the series), and both averages."""
    both = [s for s in series if bot in s and baseline in s]
    if not both:
        raise ValueError("no series where both bots played")
    differences = [s[bot]["average_place"] - s[baseline]["average_place"] for s in both]
    mean, ci = mean_ci95(differences)
    return {"series": len(both), "differences": [round(d, 4) for d in differences],
            "average_place": round(sum(s[bot]["average_place"] for s in both) / len(both), 4),
            "baseline_average_place": round(sum(s[baseline]["average_place"] for s in both) / len(both), 4),
            "difference": round(mean, 4), "ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None}


def schedule(num_seats: int, games: int, seed: int, duplicate: bool = False) -> list[tuple[int, int]]:
    """(rotation, match seed) of each game: plain runs play game g on seed ``seed + g``; duplicate runs
    play series s = g // num_seats on seed ``seed + s``, rotation g % num_seats."""
    if duplicate:
        if games % num_seats:
            raise ValueError(f"{games} games are not whole duplicate series of {num_seats} games (one per seat "
                             f"rotation): use {games - games % num_seats or num_seats} or "
                             f"{games - games % num_seats + num_seats}")
        return [(g % num_seats, seed + g // num_seats) for g in range(games)]
    return [(g % num_seats, seed + g) for g in range(games)]


def play_rotation(game_id: str, specs: Sequence[str], rotation: int, match_seed: int,
                  options: Mapping[str, Any] | None = None, program_options: Mapping[str, Any] | None = None,
                  limits: MatchLimits | None = None, on_decision=None) -> MatchLog:
    """One game: the bots of ``specs`` seated in order rotated by ``rotation``, each seeded by the match
    seed and its seat (so a seat's bot randomness is the same whoever sits there)."""
    n = len(specs)
    order = [specs[(i + rotation) % n] for i in range(n)]
    bots = []
    try:
        for seat, spec in enumerate(order):
            extra = dict(program_options or {}) if is_program_spec(spec) else {}
            bots.append(make_bot(spec, game_id, seed=match_seed * 101 + seat, **extra))
    except BaseException:
        for bot in bots:
            bot.close()
        raise
    return play_match(game_id, bots, match_seed, dict(options or {}), seat_names=order, limits=limits,
                      on_decision=on_decision)


def play_one(task: tuple) -> list[dict[str, Any]]:
    """One game of a versus run: per seat, the bot spec, its place, faults and whether it forfeited.

    ``task`` is (game, specs, rotation, match seed, options, program options, limits): ``play_rotation``'s
    arguments, as one picklable tuple for the process pool."""
    log = play_rotation(*task)
    return [{"spec": spec, "place": log.outcome["ranks"][seat] + 1,
             "faults": sum(1 for f in log.faults if f["seat"] == seat), "forfeited": seat in log.forfeits}
            for seat, spec in enumerate(log.seats)]


def versus(game_id: str, specs: Sequence[str], games: int, seed: int = 0,
           options: Mapping[str, Any] | None = None, *, jobs: int = 1, trusted: bool = False,
           move_ms: int = 2000, match_ms: int | None = 120_000, max_faults: int = 3,
           duplicate: bool = False) -> dict[str, Any]:
    """Play ``games`` matches of the bots in ``specs`` (one per seat), rotating the seat order each game.

    Returns per bot spec (a spec listed twice pools its seats): games, wins (first place, shared
    ones included), win_rate, average_place (1 = first) with ci95, faults and forfeits. With ``duplicate``
    ``games`` must be whole series (a multiple of ``len(specs)``); each bot also gets ``series_won``, its
    ci95 is over its per-series average places, and ``series`` lists every series (seed, per bot: places,
    place_sum, average_place, won).
    """
    has_program = any(is_program_spec(s) for s in specs)
    limits = MatchLimits(max_faults=max_faults, match_ms=match_ms if has_program else None)
    program_options = {"trusted": trusted, "move_ms": move_ms}
    plan = schedule(len(specs), games, seed, duplicate)
    tasks = [(game_id, list(specs), rotation, match_seed, dict(options or {}), program_options, limits)
             for rotation, match_seed in plan]
    started = time.monotonic()
    if jobs > 1 and games > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, games)) as pool:
            results = list(pool.map(play_one, tasks, chunksize=max(1, games // (jobs * 8))))
    else:
        results = [play_one(task) for task in tasks]
    seconds = time.monotonic() - started
    places: dict[str, list[int]] = defaultdict(list)
    faults: dict[str, int] = defaultdict(int)
    forfeits: dict[str, int] = defaultdict(int)
    for game in results:
        for seat in game:
            places[seat["spec"]].append(seat["place"])
            faults[seat["spec"]] += seat["faults"]
            forfeits[seat["spec"]] += seat["forfeited"]
    series = []
    if duplicate:
        n = len(specs)
        for s in range(games // n):
            in_series: dict[str, list[int]] = defaultdict(list)
            for game in results[s * n:(s + 1) * n]:
                for seat in game:
                    in_series[seat["spec"]].append(seat["place"])
            series.append({"seed": seed + s, "bots": score_series(in_series)})
    bots = {}
    for spec in dict.fromkeys(specs):
        p = places[spec]
        wins = sum(1 for x in p if x == 1)
        row = {"games": len(p), "wins": wins, "win_rate": round(wins / len(p), 4) if p else 0.0, **summarize(p, len(specs)),
               "faults": faults[spec], "forfeits": forfeits[spec]}
        if duplicate:  # the series are the independent samples
            row["ci95"] = summarize([s["bots"][spec]["average_place"] for s in series], len(specs))["ci95"]
            row["series_won"] = sum(1 for s in series if s["bots"][spec]["won"])
        bots[spec] = row
    return {"game": game_id, "seats": list(specs), "games": games, "duplicate": duplicate,
            "seeds": [plan[0][1], plan[-1][1]], "jobs": jobs, "seconds": round(seconds, 2), "bots": bots,
            "series": series}


def format_report(result: Mapping[str, Any]) -> str:
    """The result as a table for people."""
    duplicate = result.get("duplicate")
    shape = (f"{len(result['series'])} duplicate series of {len(result['seats'])} seat rotations"
             if duplicate else f"{len(result['seats'])} seats rotated")
    lines = [f"{result['game']}: {result['games']} games (seeds {result['seeds'][0]}..{result['seeds'][1]}), "
             f"{shape}, {result['jobs']} job(s), {result['seconds']:.1f} s"]
    width = max(12, *(len(s) for s in result["bots"]))
    lines.append(f"{'bot':<{width}}  {'games':>6} {'wins':>6} {'win%':>6}  {'avg place':>9}  {'95% CI':<16} "
                 f"{'faults':>6} {'forfeits':>8}" + (f" {'series won':>10}" if duplicate else ""))
    for spec, b in sorted(result["bots"].items(), key=lambda item: item[1]["average_place"]):
        ci = f"[{b['ci95'][0]:.2f}, {b['ci95'][1]:.2f}]" if b["ci95"] else "-"
        lines.append(f"{spec:<{width}}  {b['games']:>6} {b['wins']:>6} {100 * b['win_rate']:>5.1f}%  "
                     f"{b['average_place']:>9.2f}  {ci:<16} {b['faults']:>6} {b['forfeits']:>8}"
                     + (f" {b['series_won']:>10}" if duplicate else ""))
    if duplicate and len(result["series"]) <= 20:  # a few series: each on a line
        for number, series in enumerate(result["series"], start=1):
            cells = ", ".join(f"{spec} {row['places']} sum {row['place_sum']}{' (won)' if row['won'] else ''}"
                              for spec, row in series["bots"].items())
            lines.append(f"series {number} (seed {series['seed']}): {cells}")
    lines.append("place 1 = first (ties share the better place); 95% CI: Student's t over "
                 + ("the per-series average places" if duplicate else "the per-game places"))
    return "\n".join(lines)
