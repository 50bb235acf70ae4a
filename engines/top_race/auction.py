"""Top Race's auctions: of the six cars, each winner taking a car and its start space (§4.1), and with
Shares of the offer cards, which sets the seating order (§6.3)."""
from __future__ import annotations

from engines.core import Event
from engines.top_race import data as D
from engines.top_race.data import CARS
from engines.top_race.state import NCARS, OFFER, RACE, TopRaceState


# --- auction of the cars (§4.1) ------------------------------------------------------------
def auction_start(st: TopRaceState, ev: list[Event]) -> None:
    """Open the auction of the next car, or sell the last car at its fixed price (§4.1)."""
    n = st.n
    r = NCARS - st.sold
    carless = [p for p in range(n) if st.ncars[p] == 0]
    n0 = len(carless)
    if r == 1 and n0 == 1:
        buyer = carless[0]
        price = min(D.LAST_CAR_FIXED_PRICE, st.cash[buyer])  # [HOUSE] all his cash if short
        st.cash[buyer] -= price
        ev.append({"type": "forced_last_car", "seat": buyer, "price": price})
        st.pending = ("take_car", buyer, None)
        return
    elig = [st.ncars[p] == 0 or r > n0 for p in range(n)]
    designated = st.first_opener if st.sold == 0 else (st.last_winner + 1) % n
    if not elig[designated]:
        designated = next((designated + i) % n for i in range(1, n + 1) if st.ncars[(designated + i) % n] == 0)
    open_auction(st, elig, designated, carless, ev)


def open_auction(st: TopRaceState, elig: list[bool], designated: int, carless: list[int],
                 ev: list[Event]) -> None:
    """Give the opening duty to ``designated`` or, if he cannot afford the minimum, onwards [HOUSE]."""
    n = st.n
    duty = -1
    for i in range(n):
        q = (designated + i) % n
        if elig[q] and st.cash[q] >= D.MIN_OPENING_BID:
            duty = q
            break
    st.auc_elig = elig
    st.auc_passed = [False] * n
    st.auc_high = 0
    st.auc_bidder = -1
    if duty < 0:
        # [HOUSE] nobody can open: free to the first car-less player from the designated opener
        winner = next(((designated + i) % n for i in range((n)) if (designated + i) % n in carless), designated)
        ev.append({"type": "won", "seat": winner, "price": 0})
        auction_won(st, winner)
        return
    st.pending = ("bid", duty, None)


def auction_next_bidder(st: TopRaceState, frm: int, ev: list[Event]) -> None:
    """After ``frm`` bid or passed: the next seat to bid, or the high bidder wins (§4.1)."""
    n = st.n
    q = frm
    bidder = st.auc_bidder
    need = st.auc_high + D.BID_UNIT
    while True:
        q = (q + 1) % n
        if q == bidder:
            price = st.auc_high
            st.cash[bidder] -= price
            ev.append({"type": "won", "seat": bidder, "price": price})
            auction_won(st, bidder)
            return
        if st.auc_passed[q]:
            continue
        if not st.auc_elig[q] or st.cash[q] < need:
            st.auc_passed[q] = True  # skipped as passed (§4.1 step 4)
            continue
        st.pending = ("bid", q, None)
        return


def auction_won(st: TopRaceState, winner: int) -> None:
    """The winner takes a car (or, with Shares, an offer card)."""
    st.pending = ("take_offer" if st.phase == OFFER else "take_car", winner, None)


def take_car(st: TopRaceState, seat: int, car: int, start: int, ev: list[Event]) -> None:
    """``seat`` takes ``car`` and the start space ``start``; the race begins once all six are sold (§4.1)."""
    st.owner[car] = seat
    st.ncars[seat] += 1
    st.pos[car] = st.track.start_spaces[start]
    st.sold += 1
    st.last_winner = seat
    if st.sold == 1:
        st.start_player = seat  # §4.1 step 6
    ev.append({"type": "take_car", "seat": seat, "car": CARS[car], "start": start})
    if st.sold == NCARS:
        st.phase = RACE
        st.order = [(st.start_player + i) % st.n for i in range(st.n)]
        st.turn_i = 0
        ev.append({"type": "race_start", "order": list(st.order)})


# --- Shares: auction of the offer and the seating order (§6.3) --------------------------------
def offer_start(st: TopRaceState, ev: list[Event]) -> None:
    """Open the next offer auction, or give the rest of the offer to the last seat (§6.3)."""
    n = st.n
    if n >= 3:
        if st.auc_no == n - 1:
            last = next(p for p in range(n) if not st.offer_won[p])
            st.hands[last].extend(st.offer)
            st.hands[last].sort()
            ev.append({"type": "offer_free", "seat": last, "cards": list(st.offer)})
            st.offer = []
            st.positions.append(last)
            begin_shares_race(st, ev)
            return
        elig = [not w for w in st.offer_won]
        if st.auc_no == 0:
            designated = st.first_opener
        else:
            designated = next((st.last_winner + i) % n for i in range(1, n + 1) if elig[(st.last_winner + i) % n])
    else:
        if max(st.offer_won) == 2:
            other = 0 if st.offer_won[1] == 2 else 1
            st.hands[other].extend(st.offer)
            st.hands[other].sort()
            ev.append({"type": "offer_free", "seat": other, "cards": list(st.offer)})
            st.offer = []
            first = st.positions[0]
            st.positions = [first, 1 - first]
            begin_shares_race(st, ev)
            return
        elig = [True, True]
        designated = st.first_opener if st.auc_no == 0 else 1 - st.last_winner
    open_auction(st, elig, designated, [], ev)


def take_offer(st: TopRaceState, seat: int, card: int, ev: list[Event]) -> None:
    """``seat`` takes ``card`` from the offer and its place in the seating order (§6.3)."""
    st.offer.remove(card)
    st.hands[seat].append(card)
    st.hands[seat].sort()
    st.offer_won[seat] += 1
    st.auc_no += 1
    st.last_winner = seat
    if st.n >= 3 or not st.positions:
        st.positions.append(seat)
    ev.append({"type": "take_offer", "seat": seat, "card": card})


def begin_shares_race(st: TopRaceState, ev: list[Event]) -> None:
    """The race starts in the seating order the offer auction set (§6.3)."""
    st.phase = RACE
    st.order = list(st.positions)
    st.start_player = st.order[0]
    st.turn_i = 0
    ev.append({"type": "race_start", "order": list(st.order)})
