"""`python -m engines versus`: seats rotate, games run in parallel, places are 1-based with a 95% CI."""
import json
import math
from pathlib import Path

import pytest

from engines.cli import main
from engines.games import available_games
from engines.versus import (mean_ci95, paired_difference, play_one, play_rotation, schedule, score_series,
                            summarize, t975, versus)

STARTERS = Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters"


def test_seats_rotate_so_every_bot_sits_every_seat():
    specs = ["heuristic", "random", "heuristic"]
    orders = [[seat["spec"] for seat in play_one(("port_royal", specs, g, 0, {}, {}, None))] for g in range(3)]
    assert orders == [["heuristic", "random", "heuristic"], ["random", "heuristic", "heuristic"],
                      ["heuristic", "heuristic", "random"]]


def test_students_t_quantiles_match_their_closed_forms_and_tables():
    # df 1 (Cauchy): tan(pi * (0.975 - 1/2)); df 2: (2p - 1) / sqrt(2p(1 - p)) with p = 0.975.
    assert t975(1) == pytest.approx(math.tan(0.475 * math.pi), abs=1e-8)
    assert t975(2) == pytest.approx(0.95 / math.sqrt(2 * 0.975 * 0.025), abs=1e-8)
    # Printed tables: 3.182446 (3), 2.228139 (10), 2.042272 (30); towards the normal 1.959964.
    assert [round(t975(df), 6) for df in (3, 10, 30)] == [3.182446, 2.228139, 2.042272]
    assert 1.959964 < t975(1000) < 1.9624


def test_average_place_and_its_confidence_interval():
    # [1, 2, 3, 4]: mean 2.5, sample sd sqrt(5/3) = 1.290994, half width 3.182446 * 1.290994 / 2 = 2.054260.
    assert summarize([1, 2, 3, 4]) == {"average_place": 2.5, "ci95": [0.4457, 4.5543]}
    mean, (low, high) = mean_ci95([1, 2, 3, 4])
    assert mean == 2.5 and high - mean == pytest.approx(3.182446 * math.sqrt(5 / 3) / 2, abs=1e-6)
    assert summarize([2]) == {"average_place": 2.0, "ci95": None}
    assert summarize([1, 1, 1])["ci95"] == [1.0, 1.0]
    assert summarize([1, 2, 3, 4], seats=4) == {"average_place": 2.5, "ci95": [1.0, 4.0]}  # no place below 1
    assert summarize([1, 2, 3, 4], seats=6)["ci95"] == [1.0, 4.5543]


def test_builtin_bots_in_parallel_give_the_same_result_as_in_one_process():
    one = versus("port_royal", ["heuristic", "random", "random"], games=6, seed=3)
    two = versus("port_royal", ["heuristic", "random", "random"], games=6, seed=3, jobs=2)
    assert one["bots"] == two["bots"]
    heuristic, rnd = one["bots"]["heuristic"], one["bots"]["random"]
    assert (heuristic["games"], rnd["games"]) == (6, 12)  # a spec listed twice pools its seats
    for bot in (heuristic, rnd):
        assert 1 <= bot["average_place"] <= 3 and bot["faults"] == bot["forfeits"] == 0
        low, high = bot["ci95"]
        assert low <= bot["average_place"] <= high
        assert bot["wins"] == round(bot["win_rate"] * bot["games"])
    assert one["seeds"] == [3, 8]


@pytest.mark.sandbox
def test_cli_versus_with_starter_files_in_the_sandbox(capsys):
    python, javascript = str(STARTERS / "port_royal.py"), str(STARTERS / "port_royal.js")
    assert main(["versus", "--game", "port_royal", "--bots", python, javascript, "random", "--games", "3",
                 "--jobs", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["bots"]) == {python, javascript, "random"}
    assert all(b["games"] == 3 and b["faults"] == 0 for b in result["bots"].values())
    assert all(1 <= b["average_place"] <= 3 for b in result["bots"].values()) and result["jobs"] == 2
    assert main(["versus", "--game", "port_royal", "--bots", python, "random", "--games", "2"]) == 0
    table = capsys.readouterr().out
    assert "avg place" in table and "95% CI" in table and python in table and "place 1 = first" in table


def test_cli_versus_refuses_unknown_bots_and_bad_counts(capsys):
    assert main(["versus", "--game", "port_royal", "--bots", "nobody", "random"]) == 2
    assert "no built-in bot 'nobody'" in capsys.readouterr().err
    assert main(["versus", "--game", "port_royal", "--bots", "./missing.py", "random"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["versus", "--game", "port_royal", "--bots", "random", "random", "--games", "0"]) == 2


def test_a_duplicate_schedule_plays_each_seed_once_per_seat_rotation():
    assert schedule(3, 6, 10, duplicate=True) == [(0, 10), (1, 10), (2, 10), (0, 11), (1, 11), (2, 11)]
    assert schedule(3, 4, 10) == [(0, 10), (1, 11), (2, 12), (0, 13)]
    with pytest.raises(ValueError, match="use 3 or 6"):
        schedule(3, 4, 0, duplicate=True)


def test_one_series_scored_by_hand():
    # Two seats of "a" (a spec listed twice) average 2.0; "b" 1.5 and "c" 1.5 share the series win.
    rows = score_series({"a": [3, 1, 2, 2], "b": [1, 2], "c": [2, 1]})
    assert rows["a"] == {"places": [3, 1, 2, 2], "place_sum": 8, "average_place": 2.0, "won": False}
    assert rows["b"]["place_sum"] == 3 and rows["b"]["won"] and rows["c"]["won"]


def test_paired_difference_over_series_by_hand():
    series = [score_series({"new": [1, 2], "old": [2, 1]}),   # 1.5 - 1.5 = 0
              score_series({"new": [1, 1], "old": [2, 2]}),   # 1 - 2 = -1
              score_series({"new": [1, 2], "old": [2, 2]})]   # 1.5 - 2 = -0.5
    result = paired_difference(series, "new", "old")
    # Mean -0.5, sample sd 0.5; half width t(0.975, 2) * 0.5 / sqrt(3) = 4.302653 * 0.288675 = 1.242069.
    assert result == {"series": 3, "differences": [0.0, -1.0, -0.5], "average_place": 1.3333,
                      "baseline_average_place": 1.8333, "difference": -0.5, "ci95": [-1.7421, 0.7421]}
    assert paired_difference(series[:1], "new", "old")["ci95"] is None
    with pytest.raises(ValueError):
        paired_difference(series, "new", "nobody")


@pytest.mark.parametrize("game_id", available_games())
def test_every_rotation_of_a_series_deals_the_same_game(game_id):
    """The same seed with the seats rotated: the same set-up (every seat's cards, the board, the start
    player) whoever sits where; and when the same bot sits everywhere, the very same match."""
    def first_decision(specs, rotation):
        seen = []  # a copy: the engine may go on to change what it handed out
        play_rotation(game_id, specs, rotation, 7,
                      on_decision=lambda d: seen.append((d.seat, json.dumps(d.observation))) if not seen else None)
        return seen[0]

    mixed = ["heuristic", "random", "random"]
    firsts = [first_decision(mixed, r) for r in range(3)]
    assert firsts[0] == firsts[1] == firsts[2]
    def moves(rotation, seed=7):  # (seat, action) of every move; the third field is the time it took
        log = play_rotation(game_id, ["random"] * 3, rotation, seed)
        return [move[:2] for move in log.to_dict()["moves"]], log.outcome

    same = [moves(r) for r in range(3)]
    assert same[0][0] and same[0] == same[1] == same[2]
    # A different seed deals another game (else the check above could not fail).
    assert moves(0, seed=8)[0] != same[0][0]


def test_versus_in_duplicate_series_reports_each_series():
    result = versus("port_royal", ["heuristic", "random", "random"], games=6, seed=5, duplicate=True)
    assert result["seeds"] == [5, 6] and len(result["series"]) == 2
    heuristic = result["bots"]["heuristic"]
    for series in result["series"]:
        rows = series["bots"]
        assert len(rows["heuristic"]["places"]) == 3 and len(rows["random"]["places"]) == 6
        assert sorted(rows["heuristic"]["places"] + rows["random"]["places"]) == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert heuristic["series_won"] == sum(s["bots"]["heuristic"]["won"] for s in result["series"])
    # The interval is over the two per-series averages.
    averages = [s["bots"]["heuristic"]["average_place"] for s in result["series"]]
    assert heuristic["ci95"] == summarize(averages, len(result["seats"]))["ci95"]
    assert heuristic["average_place"] == round(sum(averages) / 2, 4)


def test_cli_versus_duplicate(capsys):
    assert main(["versus", "--game", "top_race", "--bots", "heuristic", "random", "--games", "4", "--duplicate"]) == 0
    out = capsys.readouterr().out
    assert "2 duplicate series of 2 seat rotations" in out and "series won" in out and "series 2 (seed 1)" in out
    assert main(["versus", "--game", "top_race", "--bots", "heuristic", "random", "random", "--games", "4",
                 "--duplicate"]) == 2
    assert "use 3 or 6" in capsys.readouterr().err
