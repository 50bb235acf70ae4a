from collections import Counter
from itertools import combinations

import pytest

from tournaments.formats import round_robin


@pytest.mark.parametrize("bots,seats,games", [(2, 2, 6), (4, 4, 8), (5, 3, 3), (6, 4, 1), (7, 2, 2)])
def test_every_group_plays_its_games(bots, seats, games):
    orders = round_robin(bots, seats, games)
    groups = Counter(tuple(sorted(o)) for o in orders)
    assert set(groups) == set(combinations(range(bots), seats))
    assert set(groups.values()) == {games}
    assert all(len(set(o)) == seats for o in orders)


@pytest.mark.parametrize("bots,seats,games", [(2, 2, 6), (4, 4, 8), (5, 3, 3), (6, 4, 4), (3, 3, 9)])
def test_seats_rotate_so_no_bot_keeps_the_first_seat(bots, seats, games):
    orders = round_robin(bots, seats, games)
    first = Counter(o[0] for o in orders)
    played = Counter(b for o in orders for b in o)
    for bot in range(bots):
        # The first seat is spread as evenly as the matches allow: within one of a fair share.
        fair = played[bot] / seats
        assert abs(first[bot] - fair) <= 1, (bot, first[bot], fair)
    seat_counts = Counter((b, s) for o in orders for s, b in enumerate(o))
    if games % seats == 0:  # every group can sit every rotation equally often
        assert len(set(seat_counts.values())) == 1


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="needs at least 4 bots"):
        round_robin(3, 4, 1)
    with pytest.raises(ValueError, match="at least 1"):
        round_robin(3, 2, 0)
