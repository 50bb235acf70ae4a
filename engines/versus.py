"""Which bot is stronger: many seeded matches with the seats rotated, a place per bot with its uncertainty.

Game ``g`` (0-based) is played with seed ``seed + g`` and the bots in ``specs`` seated in order rotated
by ``g``, so over ``len(specs)`` games every bot sits in every seat once. Bots are built-in names or
paths to bot programs (run in the sandbox, as ``play`` does). Games run in ``jobs`` processes; the
result does not depend on ``jobs``.

Places are 1-based (1 = first; a tie shares the better place). The 95% confidence interval of the
average place is the normal approximation ``mean +- 1.96 * sd / sqrt(n)`` over the per-game places:
good for tens of games and more, and it ignores that the bots of one game are not independent.
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Mapping, Sequence

from engines.games import builtin_bots, get_game
from engines.match import MatchLimits, play_match
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


def play_one(task: tuple) -> list[dict[str, Any]]:
    """One game of a versus run: per seat, the bot spec, its place, faults and whether it forfeited."""
    game_id, specs, g, seed, options, program_options, limits = task
    n = len(specs)
    order = [specs[(i + g) % n] for i in range(n)]
    bots = []
    try:
        for seat, spec in enumerate(order):
            extra = program_options if is_program_spec(spec) else {}
            bots.append(make_bot(spec, game_id, seed=(seed + g) * 101 + seat, **extra))
    except BaseException:
        for bot in bots:
            bot.close()
        raise
    log = play_match(game_id, bots, seed + g, options, seat_names=order, limits=limits)
    return [{"spec": spec, "place": log.outcome["ranks"][seat] + 1,
             "faults": sum(1 for f in log.faults if f["seat"] == seat), "forfeited": seat in log.forfeits}
            for seat, spec in enumerate(order)]


def summarize(places: Sequence[int]) -> dict[str, Any]:
    """Average place and its 95% confidence interval (normal approximation; None under 2 games)."""
    n = len(places)
    mean = sum(places) / n
    if n < 2:
        return {"average_place": round(mean, 4), "ci95": None}
    sd = math.sqrt(sum((p - mean) ** 2 for p in places) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"average_place": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)]}


def versus(game_id: str, specs: Sequence[str], games: int, seed: int = 0,
           options: Mapping[str, Any] | None = None, *, jobs: int = 1, trusted: bool = False,
           move_ms: int = 2000, match_ms: int | None = 120_000, max_faults: int = 3) -> dict[str, Any]:
    """Play ``games`` matches of the bots in ``specs`` (one per seat), rotating the seat order each game.

    Returns per bot spec (a spec listed twice pools its seats): games, wins (first place, shared
    ones included), win_rate, average_place (1 = first) with ci95, faults and forfeits.
    """
    has_program = any(is_program_spec(s) for s in specs)
    limits = MatchLimits(max_faults=max_faults, match_ms=match_ms if has_program else None)
    program_options = {"trusted": trusted, "move_ms": move_ms}
    tasks = [(game_id, list(specs), g, seed, dict(options or {}), program_options, limits) for g in range(games)]
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
    bots = {}
    for spec in dict.fromkeys(specs):
        p = places[spec]
        wins = sum(1 for x in p if x == 1)
        bots[spec] = {"games": len(p), "wins": wins, "win_rate": round(wins / len(p), 4) if p else 0.0,
                      **summarize(p), "faults": faults[spec], "forfeits": forfeits[spec]}
    return {"game": game_id, "seats": list(specs), "games": games, "seeds": [seed, seed + games - 1],
            "jobs": jobs, "seconds": round(seconds, 2), "bots": bots}


def format_report(result: Mapping[str, Any]) -> str:
    """The result as a table for people."""
    lines = [f"{result['game']}: {result['games']} games (seeds {result['seeds'][0]}..{result['seeds'][1]}), "
             f"{len(result['seats'])} seats rotated, {result['jobs']} job(s), {result['seconds']:.1f} s"]
    width = max(12, *(len(s) for s in result["bots"]))
    lines.append(f"{'bot':<{width}}  {'games':>6} {'wins':>6} {'win%':>6}  {'avg place':>9}  {'95% CI':<16} "
                 f"{'faults':>6} {'forfeits':>8}")
    for spec, b in sorted(result["bots"].items(), key=lambda item: item[1]["average_place"]):
        ci = f"[{b['ci95'][0]:.2f}, {b['ci95'][1]:.2f}]" if b["ci95"] else "-"
        lines.append(f"{spec:<{width}}  {b['games']:>6} {b['wins']:>6} {100 * b['win_rate']:>5.1f}%  "
                     f"{b['average_place']:>9.2f}  {ci:<16} {b['faults']:>6} {b['forfeits']:>8}")
    lines.append("place 1 = first (ties share the better place); 95% CI: normal approximation over per-game places")
    return "\n".join(lines)
