"""A match replayed once into what the viewer draws: every observation (the spectator's and any
seat's), the move list in words, the events of each move, scores over time and faults.

Nothing new is stored: everything comes from the match log. Observations are sent compactly: a key
frame (the whole observation) every ``keyframe_every`` positions and, between them, the delta from
the previous observation (``engines.view.delta``). Position ``i`` is the game after ``i`` moves:
0 is the set-up, ``len(moves)`` the end.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from engines.core import Observation
from engines.games import get_game
from engines.match import MatchLog, ReplayMismatch
from engines.view import delta, games

#: bump when the data the page receives changes shape or wording, so cached copies are not reused.
FRAMES_VERSION = 1
KEYFRAME_EVERY = 500

Viewer = int | None  # None: the spectator


def view_key(viewer: Viewer) -> str:
    """The key of ``viewer``'s frames in the viewer data: ``spectator`` or the seat number as text."""
    return "spectator" if viewer is None else str(viewer)


def replay_observations(log: MatchLog, viewers: Iterable[Viewer]) -> tuple[dict[Viewer, list[Observation]],
                                                                             list[list[dict[str, Any]]]]:
    """Replay ``log`` once: each viewer's observation at every position, and the events of every move."""
    observations, _texts, events = _replay(log, viewers)
    return observations, events


def _replay(log: MatchLog, viewers: Iterable[Viewer]):
    """``replay_observations`` plus the JSON text of each observation's members (for ``encode_frames``)."""
    game = get_game(log.game)
    wanted = list(dict.fromkeys(viewers))
    for viewer in wanted:
        if viewer is not None and not 0 <= viewer < len(log.seats):
            raise ValueError(f"no seat {viewer}: seats are 0..{len(log.seats) - 1}")
    observations: dict[Viewer, list[Observation]] = {v: [] for v in wanted}
    texts: dict[Viewer, list[dict[str, str]]] = {v: [] for v in wanted}
    events: list[list[dict[str, Any]]] = []

    def snapshot(viewer: Viewer) -> None:
        # Through JSON: some observations share lists with the state that the next move changes, and
        # the page gets exactly the JSON a bot would (tuples become lists). Members whose text did not
        # change are shared with the previous observation (nothing here mutates them).
        members = delta.member_texts(game.observe(state, viewer))
        before = texts[viewer][-1] if texts[viewer] else {}
        previous = observations[viewer][-1] if observations[viewer] else {}
        observations[viewer].append({k: previous[k] if before.get(k) == t else json.loads(t)
                                     for k, t in members.items()})
        texts[viewer].append(members)

    state = game.setup(len(log.seats), log.seed, log.options)
    for seat, action, _ms in log.moves:
        for viewer in wanted:
            snapshot(viewer)
        expected = game.to_move(state)
        if expected != seat:
            raise ReplayMismatch(f"log has seat {seat} moving where the engine expects seat {expected}")
        events.append(game.apply(state, seat, action))
    for viewer in wanted:
        snapshot(viewer)
    return observations, texts, events


def encode_frames(observations: Sequence[Observation], keyframe_every: int = KEYFRAME_EVERY,
                  texts: Sequence[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """``{"k": observation}`` every ``keyframe_every`` positions, ``{"d": delta}`` in between.

    ``texts``: each observation's ``delta.member_texts``, when the caller has them already.
    """
    texts = texts if texts is not None else [delta.member_texts(obs) for obs in observations]
    frames = []
    for i, obs in enumerate(observations):
        if i % keyframe_every == 0:
            frames.append({"k": obs})
        else:
            frames.append({"d": delta.diff_objects(observations[i - 1], obs, texts[i - 1], texts[i])})
    return frames


def decode_frames(frames: Sequence[dict[str, Any]]) -> list[Observation]:
    """The observations back from ``encode_frames`` (the page does the same in JS)."""
    out: list[Observation] = []
    for frame in frames:
        out.append(frame["k"] if "k" in frame else delta.apply(out[-1], frame["d"]))
    return out


def match_data(log: MatchLog, keyframe_every: int = KEYFRAME_EVERY, seat_views: Iterable[int] = ()) -> dict[str, Any]:
    """Everything the viewer needs, JSON-ready: the match, its moves in words, scores, faults and the
    spectator's frames (under ``views["spectator"]``), plus the frames of each seat in ``seat_views``.

    Faults keep their seat, move, kind and detail, where the log has one (the site's public log has none:
    a detail may quote the bot's output); a bot's stderr is never included.
    """
    seat_views = list(seat_views)
    observations, texts, events = _replay(log, [None, *seat_views])
    spectator = observations[None]
    moves = []
    for i, (seat, action, ms) in enumerate(log.moves):
        move: dict[str, Any] = {"s": seat, "t": games.describe_action(log.game, action, spectator[i])}
        lines = games.describe_events(log.game, events[i])
        if lines:
            move["e"] = lines
        if ms:
            move["ms"] = ms
        moves.append(move)
    scores = [games.scores(log.game, obs) for obs in spectator]
    game = get_game(log.game)
    return {
        "version": FRAMES_VERSION,
        "game": log.game,
        "game_name": game.name,
        "seed": log.seed,
        "options": log.options,
        "seats": list(log.seats),
        "static": games.static_info(log.game, len(log.seats), log.options),
        "moves": moves,
        "scores": None if scores and scores[0] is None else scores,
        "faults": [{"seat": f["seat"], "move": f["move"], "kind": f["kind"]}
                   | ({"detail": f["detail"]} if f.get("detail") else {}) for f in log.faults],
        "forfeits": {str(seat): move for seat, move in log.forfeits.items()},
        "outcome": log.outcome,
        "views": {view_key(v): encode_frames(obs, keyframe_every, texts[v]) for v, obs in observations.items()
                  if v is None or v in seat_views},
    }


def seat_frames(log: MatchLog, seat: int, keyframe_every: int = KEYFRAME_EVERY) -> dict[str, Any]:
    """The frames of one seat's view alone (the page already holds the rest from ``match_data``)."""
    observations, texts, _events = _replay(log, [seat])
    return {"version": FRAMES_VERSION, "viewer": seat,
            "frames": encode_frames(observations[seat], keyframe_every, texts[seat])}
