"""Catan's board set-up (§8 steps 2-4): terrain, harbours, number tokens, and the shared action dicts per board."""
from __future__ import annotations

import random

from engines.catan import data as D
from engines.catan.state import GENERIC_HARBOUR, CatanState


class BoardActions:
    """Shared action dicts for one board size."""

    def __init__(self, board: D.Board):
        self.place_settlement = tuple({"type": "place_settlement", "vertex": v} for v in range(board.num_vertices))
        self.place_road = tuple({"type": "place_road", "edge": e} for e in range(board.num_edges))
        self.build_road = tuple({"type": "build_road", "edge": e} for e in range(board.num_edges))
        self.free_road = tuple({"type": "free_road", "edge": e} for e in range(board.num_edges))
        self.build_settlement = tuple({"type": "build_settlement", "vertex": v} for v in range(board.num_vertices))
        self.build_city = tuple({"type": "build_city", "vertex": v} for v in range(board.num_vertices))
        self.robber: dict[tuple[int, int | None], dict] = {}

    def move_robber(self, hex_id: int, victim: int | None) -> dict:
        """The shared ``move_robber`` action for ``hex_id`` and ``victim`` (None: no victim), made on first use."""
        key = (hex_id, victim)
        act = self.robber.get(key)
        if act is None:
            act = self.robber[key] = {"type": "move_robber", "hex": hex_id, "victim": victim}
        return act


BOARD_ACTIONS = {id(D.BOARD_SMALL): BoardActions(D.BOARD_SMALL), id(D.BOARD_LARGE): BoardActions(D.BOARD_LARGE)}


def lay_out(st: CatanState, rng: random.Random, numbers_option: str, beginner: bool, large: bool) -> None:
    """Lay the terrain, harbours, numbers and robber of ``st.board`` (§8 steps 2-4) per the ``numbers`` option."""
    board = st.board
    if beginner:
        terrains = list(D.BEGINNER_TERRAIN)
        harbours = list(D.BEGINNER_HARBOURS)
        numbers = list(D.BEGINNER_NUMBERS)
        if numbers_option == "random":
            numbers = random_numbers(rng, board, terrains, D.TOKENS_SMALL)
    else:
        terrains = list(D.TERRAIN_TILES_LARGE if large else D.TERRAIN_TILES_SMALL)
        rng.shuffle(terrains)
        harbours = list(D.HARBOUR_TYPES_LARGE if large else D.HARBOUR_TYPES_SMALL)
        rng.shuffle(harbours)
        tokens = D.TOKENS_LARGE if large else D.TOKENS_SMALL
        if numbers_option == "random":
            numbers = random_numbers(rng, board, terrains, tokens)
        else:
            corner = board.corners[rng.randrange(len(board.corners))]
            numbers = [0] * board.num_hexes
            it = iter(tokens)
            for h in board.spiral_orders[corner]:
                if terrains[h] != "desert":
                    numbers[h] = next(it)
    st.hex_res = [D.TERRAIN_RESOURCE[t] for t in terrains]
    st.hex_num = numbers
    num_hexes: dict[int, tuple[int, ...]] = {}
    for h, k in enumerate(numbers):
        if k:
            num_hexes[k] = num_hexes.get(k, ()) + (h,)
    st.num_hexes = num_hexes
    st.harbour_types = harbours
    st.vert_harbour = [-1] * board.num_vertices
    for slot, (_sea, _facing, _land, verts) in enumerate(board.harbour_slots):
        kind = GENERIC_HARBOUR if harbours[slot] == D.GENERIC else D.RES_INDEX[harbours[slot]]
        for v in verts:
            st.vert_harbour[v] = kind
    st.robber = terrains.index("desert")  # lower id of the two deserts on 5-6 [HOUSE]


def random_numbers(rng: random.Random, board: D.Board, terrains: list[str], tokens) -> list[int]:
    """§3.2 fully random numbers: redraw until no two adjacent hexes both carry a 6 or 8."""
    land = [h for h in range(board.num_hexes) if terrains[h] != "desert"]
    toks = list(tokens)
    while True:
        rng.shuffle(toks)
        numbers = [0] * board.num_hexes
        for h, k in zip(land, toks):
            numbers[h] = k
        if not any(numbers[h] in (6, 8) and numbers[g] in (6, 8)
                   for h in range(board.num_hexes) for g in board.hex_neighbours[h]):
            return numbers
