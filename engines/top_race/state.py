"""Top Race's game state: the phases, ``TopRaceState``, the deal and set-up of every race (§3) and who
still takes part in a race (§4.2). § numbers are those of the rules file top_race.md (in brief:
docs/games/top_race.md)."""
from __future__ import annotations

import random

from engines.top_race import data as D
from engines.top_race.data import get_track

AUCTION, OFFER, RACE, OVER = "auction", "offer_auction", "race", "over"
NCARS = 6
SPURT = D.SPURT_CARDS


class TopRaceState:
    """Everything about one game of Top Race. Cars are indices 0..5 (``data.CARS`` order),
    spaces are indices into the race's ``Track``; -1 means "none"."""

    __slots__ = (
        "n", "rng", "races", "track_ids", "pitstop", "tips", "shares", "flip_consumes",
        "race", "track", "phase", "cash", "pending", "legal",
        # auction (basic and Shares offer)
        "first_opener", "sold", "ncars", "owner", "auc_elig", "auc_passed", "auc_high", "auc_bidder",
        "auc_no", "last_winner", "start_player", "offer", "offer_won", "positions",
        # race
        "pos", "place", "broken", "partner", "finished", "hands", "discard", "box", "free_pit", "reserved",
        "order", "turn_i", "passed", "turn_done", "card", "slots", "slot_i", "joker", "play_seat",
        "claim_queue", "tip_queue", "trade_queue", "trades", "lines", "tips_held", "tip_marks", "holdings",
        "results", "last_holdings", "last_order",
    )

    def copy(self) -> "TopRaceState":
        """A copy for ``TopRace.clone``: lists (nested too), sets and dicts copied, the generator at the same point."""
        new = TopRaceState.__new__(TopRaceState)
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            elif isinstance(value, set):
                value = set(value)
            elif isinstance(value, dict):
                value = dict(value)
            setattr(new, name, value)
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        new.rng = rng
        return new


def start_race(st: TopRaceState) -> None:
    """Deal, reset cars and modules, open the auction (§3)."""
    n = st.n
    st.track = get_track(st.track_ids[st.race])
    if st.race > 0:
        st.first_opener = (st.first_opener + 1) % n  # [HOUSE] A17
    st.pending = None
    st.legal = None
    st.owner = [-1] * NCARS
    st.ncars = [0] * n
    st.pos = [-1] * NCARS
    st.place = [0] * NCARS
    st.broken = [-1] * NCARS
    st.partner = [-1] * NCARS
    st.finished = 0
    st.discard = []
    st.box = []
    st.offer = []
    st.reserved = [[] for _ in range(n)]
    pits = D.PITSTOP_CARDS_PER_PLAYER - (1 if st.tips and st.flip_consumes else 0)
    st.free_pit = [pits if st.pitstop else 0] * n
    st.sold = 0
    st.auc_no = 0
    st.auc_elig = [False] * n
    st.auc_passed = [False] * n
    st.auc_high = 0
    st.auc_bidder = -1
    st.last_winner = -1
    st.start_player = -1
    st.offer_won = [0] * n
    st.positions = []
    st.order = []
    st.turn_i = 0
    st.passed = set()
    st.turn_done = False
    st.card = 0
    st.slots = ()
    st.slot_i = 0
    st.joker = -1
    st.play_seat = -1
    st.claim_queue = []
    st.tip_queue = []
    st.trade_queue = []
    st.trades = {}
    st.lines = 0
    st.tips_held = 0
    st.tip_marks = [[-1, -1, -1] for _ in range(n)]
    st.holdings = [[D.SHARES_START] * NCARS for _ in range(n)] if st.shares else []
    if st.shares:
        deck = [c for c in D.ALL_CARDS if c not in SPURT]
        st.rng.shuffle(deck)
        if st.pitstop:
            each, extra, box = D.DEAL_SHARES_PITSTOP[n]
        else:
            each, extra, _out = D.DEAL_SHARES[n]
            box = 0
        st.hands = [sorted(deck[i * each:(i + 1) * each]) for i in range(n)]
        k = n * each
        st.offer = sorted(list(SPURT) + deck[k:k + extra])
        st.box = sorted(deck[k + extra:k + extra + box])
        # the rest leaves the race unseen
        grid = list(range(NCARS))
        st.rng.shuffle(grid)  # §6.3: the car cards set the start grid
        for number, car in enumerate(grid, start=1):
            st.pos[car] = st.track.start_spaces[number]
        st.phase = OFFER
    else:
        deck = list(D.ALL_CARDS)
        st.rng.shuffle(deck)
        each, box = D.DEAL_PITSTOP[n] if st.pitstop else (D.DEAL_BASIC[n][0], 0)
        st.hands = [sorted(deck[i * each:(i + 1) * each]) for i in range(n)]
        st.box = sorted(deck[n * each:n * each + box])
        st.phase = AUCTION


def is_participant(st: TopRaceState, seat: int) -> bool:
    """Does ``seat`` still take part in the race: always with Tips or Shares, else while one of its cars
    is still racing."""
    if st.tips or st.shares:
        return True
    place, owner = st.place, st.owner
    return any(owner[c] == seat and not place[c] for c in range(NCARS))
