from collections import Counter
from itertools import combinations

import pytest

from tournaments.competition.formats import round_robin


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


from tournaments.competition.formats import knockout_groups, seats_beaten, swiss_round  # noqa: E402


def test_seats_beaten_counts_ties_as_not_beaten():
    assert seats_beaten([0, 1, 1, 3]) == [3, 1, 1, 0]


def test_swiss_groups_neighbours_and_avoids_rematches():
    groups, bye = swiss_round([0, 1, 2, 3], 2, met={}, byes={})
    assert groups == [(0, 1), (2, 3)] and bye == []
    # 0 and 1 met already: 0 meets 2 instead.
    groups, _ = swiss_round([0, 1, 2, 3], 2, met={frozenset((0, 1)): 1}, byes={})
    assert groups == [(0, 2), (1, 3)]


def test_swiss_bye_goes_to_the_lowest_without_one():
    _, bye = swiss_round([0, 1, 2, 3, 4], 2, met={}, byes={})
    assert bye == [4]
    _, bye = swiss_round([0, 1, 2, 3, 4], 2, met={}, byes={4: 1})
    assert bye == [3]


def test_knockout_gives_byes_to_top_seeds_and_snakes_the_rest():
    groups, byes = knockout_groups(list(range(10)), 4, 2)
    assert byes == [0, 1] and sorted(len(g) for g in groups) == [4, 4]
    assert groups == [(2, 5, 6, 9), (3, 4, 7, 8)]
    assert knockout_groups([0, 1], 4, 3) == ([], [0, 1])  # too few for the game: no match
    assert knockout_groups([0, 1, 2], 4, 3) == ([(0, 1, 2)], [])
