"""Alhambra's game state: the phases (§4.1), ``AlhambraState`` (everything about one game) and ``SeatCache``
(derived facts about one seat's Alhambra, §4.6, §5.2).

Per seat, ``SeatCache`` keeps the geometry up to date across changes and the redesign part of the legal
list until the Alhambra or the reserve change.
"""
from __future__ import annotations

from bisect import insort

from engines.alhambra import geometry as geo
from engines.alhambra.data import TILE_WALLS
from engines.core import Action

ACTION, PLACEMENT, FINAL_PLACEMENT, OVER = "action", "placement", "final_placement", "over"

#: REMOVE[tile]: the shared ``redesign_remove`` action of a tile (never mutated, as every listed action)
REMOVE: tuple[Action, ...] = tuple({"type": "redesign_remove", "tile": t} for t in range(len(TILE_WALLS)))


class SeatCache:
    """Derived facts about one Alhambra: the neighbourhood codes, the frontier and the tiles' cells are kept
    up to date across changes (``AlhambraState.changed``), the rest is rebuilt lazily after a change."""

    __slots__ = ("codes", "front", "cells", "where", "edges", "front_list", "cut", "connected", "removable",
                 "redesign", "redesign_reserve", "longest_wall")

    def __init__(self, alhambra: dict[int, int]) -> None:
        #: cell -> neighbourhood code (geometry.codes_of)
        codes = geo.codes_of(alhambra)
        self.codes: dict[int, int] = codes
        #: empty cell -> the flags of the wall masks that fit there (geometry.front_of)
        self.front: dict[int, tuple[bool, ...]] = geo.front_of(alhambra, codes)
        #: the occupied cells but the fountain's, sorted
        self.cells: list[int] = sorted(c for c in alhambra if c != geo.ORIGIN)
        #: tile -> its cell, for the tiles in the Alhambra (kept up to date; other entries are stale)
        self.where: list[int] = [0] * len(TILE_WALLS)
        for c, t in alhambra.items():
            self.where[t] = c
        #: the number of passages between tiles
        self.edges: int = sum(geo.PASS_COUNT[codes[c]] for c in alhambra) // 2
        self.front_list: list[int] | None = None  # the frontier's cells, sorted (ints sort and free faster than pairs)
        #: the cut tiles (geometry.cut_cells), kept across the commonest change: a new dead end
        self.cut: set[int] | None = None
        #: every tile is known to be reachable (a full search said so, and the engine's changes keep it)
        self.connected = False
        #: the REMOVE actions of the removable tiles, in cell order (the redesign list takes them as they are)
        self.removable: list[Action] | None = None
        #: the redesign actions, valid while the Alhambra and the reserve stay as they were
        self.redesign: list[Action] | None = None
        self.redesign_reserve: list[int] | None = None
        self.longest_wall: int | None = None


class AlhambraState:
    """Everything about one game. Lists of ids; Alhambras are dicts cell -> tile (geometry.py)."""

    __slots__ = (
        "n", "rng", "max_turns", "open_money", "all_payments",
        "bag", "market", "money_market", "deck", "discard",
        "hands", "alhambras", "reserves", "scores", "dirk", "dirk_score",
        "phase", "active", "turn", "held", "scoring_done", "pending", "game_end", "ended_by",
        "awards", "cache", "listed", "listed_seat", "purses", "takes",
    )

    def seat_cache(self, seat: int) -> SeatCache:
        """``seat``'s ``SeatCache``, built on first use."""
        c = self.cache[seat]
        if c is None:
            c = self.cache[seat] = SeatCache(self.alhambras[seat])
        return c

    def changed(self, seat: int, c: int, old: int | None, new: int | None) -> None:
        """Seat's Alhambra changed on cell ``c`` from tile ``old`` to ``new`` (None: empty): update the
        codes, the frontier and the tiles' cells, drop the other derived facts."""
        cache = self.cache[seat]
        if cache is None:
            return
        alhambra = self.alhambras[seat]
        codes = cache.codes
        geo.recode(alhambra, codes, cache.front, c, old, new)
        code = codes[c] & 0xFFF  # the neighbours; the tile's own walls go in bits 12-15
        cut = cache.cut
        if old is None:  # a tile placed by the rules: it opens onto some tile, so it is reachable
            insort(cache.cells, c)
            cache.where[new] = c
            steps = geo.CODE_PASS_STEPS[codes[c]]  # its passages (the code holds its walls now)
            cache.edges += len(steps)
            if cut is not None and len(steps) == 1:
                # a new dead end: only the tile it hangs on becomes a cut tile
                cut.add(geo.cell_key(c + steps[0]))
            else:
                cache.cut = None
        elif new is None:  # a removable tile went: the others stay reachable
            cache.cells.remove(c)
            cache.edges -= geo.PASS_COUNT[code | TILE_WALLS[old] << 12]
            cache.cut = None
        else:  # a swap keeps the passages, unless the old tile did not match its neighbours (hand-built)
            cache.where[new] = c
            removable = cache.removable
            if removable is not None and not (TILE_WALLS[old] ^ TILE_WALLS[new]) & code & 15:
                # the same walls towards every neighbour: the neighbours' codes, the passages, the cut
                # tiles and which cells are removable stay; only the tile's id changes
                gone = REMOVE[old]
                for i, act in enumerate(removable):
                    if act is gone:
                        removable[i] = REMOVE[new]
                        break
                cache.front_list = cache.redesign = cache.longest_wall = None
                return
            was, now = geo.passage_mask(code, TILE_WALLS[old]), geo.passage_mask(code, TILE_WALLS[new])
            if was != now:
                cache.edges += geo.POPCOUNT[now] - geo.POPCOUNT[was]
                cache.cut = None
                cache.connected = False
        cache.front_list = cache.removable = cache.redesign = cache.longest_wall = None

    def front(self, seat: int) -> list[tuple[int, int, int]]:
        """The sorted frontier (cell, occupied, walled) of a seat's Alhambra."""
        codes = self.seat_cache(seat).codes
        return [(e, codes[e] & 15, codes[e] >> 8) for e in self.front_list(seat)]

    def front_list(self, seat: int) -> list[int]:
        """The cells of a seat's frontier, sorted."""
        cache = self.seat_cache(seat)
        if cache.front_list is None:
            cache.front_list = sorted(cache.front)
        return cache.front_list
