"""`python -m engines versus`: seats rotate, games run in parallel, places are 1-based with a 95% CI."""
import json
import math
from pathlib import Path

import pytest

from engines.cli import main
from engines.versus import play_one, summarize, versus

STARTERS = Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters"


def test_seats_rotate_so_every_bot_sits_every_seat():
    specs = ["heuristic", "random", "heuristic"]
    orders = [[seat["spec"] for seat in play_one(("port_royal", specs, g, 0, {}, {}, None))] for g in range(3)]
    assert orders == [["heuristic", "random", "heuristic"], ["random", "heuristic", "heuristic"],
                      ["heuristic", "heuristic", "random"]]


def test_average_place_and_its_confidence_interval():
    assert summarize([1, 2, 3, 4]) == {"average_place": 2.5,
                                       "ci95": [round(2.5 - 1.959964 * math.sqrt(5 / 3) / 2, 4),
                                                round(2.5 + 1.959964 * math.sqrt(5 / 3) / 2, 4)]}
    assert summarize([2]) == {"average_place": 2.0, "ci95": None}
    assert summarize([1, 1, 1])["ci95"] == [1.0, 1.0]


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
