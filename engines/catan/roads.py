"""Catan's road network: placing roads, where roads and settlements may go, and Longest Road (§4.5, §4.7)."""
from __future__ import annotations

from engines.catan import data as D
from engines.catan.state import CatanState


def put_road(st: CatanState, seat: int, e: int) -> None:
    """Place a road of ``seat`` on edge ``e`` from its supply (no checks)."""
    st.road_owner[e] = seat
    st.seat_roads[seat].append(e)
    st.supply[seat][2] -= 1


def road_length(st: CatanState, seat: int) -> int:
    """§4.7 longest trail of ``seat``'s roads not passing through another seat's building."""
    roads = st.seat_roads[seat]
    if not roads:
        return 0
    owner, bo = st.road_owner, st.bld_owner
    ev, ve = st.board.edge_vertices, st.board.vertex_edges

    def walk(v: int, used: int) -> int:
        best = 0
        for e in ve[v]:
            if owner[e] == seat and not (used >> e) & 1:
                a, b = ev[e]
                w = b if a == v else a
                o = bo[w]
                if o >= 0 and o != seat:
                    length = 1
                else:
                    length = 1 + walk(w, used | (1 << e))
                if length > best:
                    best = length
        return best

    starts = set()
    for e in roads:
        a, b = ev[e]
        starts.add(a)
        starts.add(b)
    best = 0
    total = len(roads)
    for v in starts:
        length = walk(v, 0)
        if length > best:
            best = length
            if best == total:
                break
    return best


def update_longest_road(st: CatanState, events: list) -> None:
    """§4.7 card update from the current lengths."""
    lengths = st.road_len
    m = max(lengths)
    holder = st.lr_holder
    if holder >= 0 and lengths[holder] >= D.LONGEST_ROAD_MIN and lengths[holder] == m:
        return
    top = [s for s in range(st.n) if lengths[s] == m]
    new = top[0] if m >= D.LONGEST_ROAD_MIN and len(top) == 1 else -1
    if new != holder:
        st.lr_holder = new
        events.append({"type": "longest_road", "seat": None if new < 0 else new, "length": m})


def road_edges(st: CatanState, seat: int) -> list[int]:
    """Edges where ``seat`` may place a road now (§4.5)."""
    bo, ro = st.bld_owner, st.road_owner
    ve, ev = st.board.vertex_edges, st.board.edge_vertices
    out = set()
    for v in st.seat_buildings[seat]:
        for e in ve[v]:
            if ro[e] < 0:
                out.add(e)
    for e in st.seat_roads[seat]:
        for v in ev[e]:
            o = bo[v]
            if o < 0 or o == seat:
                for e2 in ve[v]:
                    if ro[e2] < 0:
                        out.add(e2)
    return sorted(out)


def settlement_spots(st: CatanState, seat: int) -> list[int]:
    """Vertices where ``seat`` may build a settlement: free of the distance rule, at its roads (§4.5)."""
    blocked, ev = st.blocked, st.board.edge_vertices
    out = set()
    for e in st.seat_roads[seat]:
        a, b = ev[e]
        if not blocked[a]:
            out.add(a)
        if not blocked[b]:
            out.add(b)
    return sorted(out)
