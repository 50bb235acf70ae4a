"""Playing one match between bots, and replaying a match log.

The match log is the record of a match: game, options, seed, seats, every applied action with the
time its seat took, faults, forfeits and the outcome. Replaying the actions through the engine
reproduces every state and the outcome, so logs stay small and viewers rebuild states from them.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from engines.bots import Bot, BotFault
from engines.core import Action, Outcome
from engines.games import get_game

LOG_FORMAT = 1
DEFAULT_MAX_FAULTS = 3
#: a guard against an engine bug looping forever; every game ends far below it.
MAX_MOVES = 200_000


class ReplayMismatch(AssertionError):
    """A log whose replay does not reproduce its recorded outcome."""


@dataclass
class MatchLimits:
    """Limits the runner enforces on every seat (the sandbox enforces per-move time itself)."""

    max_faults: int = DEFAULT_MAX_FAULTS
    move_ms: int | None = None  # per decision; None = unlimited (trusted bots)
    match_ms: int | None = None  # time bank per seat for the whole match


@dataclass
class Decision:
    """One decision as its seat saw it, for the seat view and progress callbacks."""

    index: int
    seat: int
    observation: dict[str, Any]
    legal_actions: list[Action]
    chosen: int
    ms: int
    fault: dict[str, Any] | None = None


@dataclass
class MatchLog:
    game: str
    options: dict[str, Any]
    seed: int
    seats: list[str]
    moves: list[list[Any]] = field(default_factory=list)  # [seat, action, ms]
    faults: list[dict[str, Any]] = field(default_factory=list)
    forfeits: dict[int, int] = field(default_factory=dict)  # seat -> move index of the forfeit
    outcome: dict[str, Any] | None = None
    # Tail of each program bot's stderr: for its owner only, never in a public log.
    stderr: dict[int, str] = field(default_factory=dict)
    # Each move's index in the legal list of its state, as the runner knew it (not part of the log's
    # JSON: the compact stored form, engines.logcodec, keeps these instead of the actions).
    choices: list[int] = field(default_factory=list, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The log as JSON data (format ``LOG_FORMAT``), the stderr tails included: not for the public as is."""
        return {
            "format": LOG_FORMAT,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "seats": self.seats,
            "moves": self.moves,
            "faults": self.faults,
            "forfeits": {str(k): v for k, v in self.forfeits.items()},
            "outcome": self.outcome,
            "stderr": {str(k): v for k, v in self.stderr.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "MatchLog":
        """A log from its JSON data; ``ValueError`` for a format other than ``LOG_FORMAT``."""
        if data.get("format") != LOG_FORMAT:
            raise ValueError(f"unsupported match log format {data.get('format')!r} (expected {LOG_FORMAT})")
        return cls(
            game=data["game"],
            options=dict(data.get("options") or {}),
            seed=int(data["seed"]),
            seats=list(data["seats"]),
            moves=[list(m) for m in data["moves"]],
            faults=list(data.get("faults") or []),
            forfeits={int(k): int(v) for k, v in (data.get("forfeits") or {}).items()},
            outcome=data.get("outcome"),
            stderr={int(k): v for k, v in (data.get("stderr") or {}).items()},
        )


def apply_forfeits(outcome: Outcome, forfeited: Sequence[int]) -> Outcome:
    """Rank forfeited seats below every other seat; among themselves, and among the others, seats keep the
    engine's order (two forfeits rank by the game's result: stored logs replay to these ranks)."""
    if not forfeited:
        return outcome
    n = len(outcome.ranks)
    keys = [(0 if s in forfeited else 1, -outcome.ranks[s]) for s in range(n)]
    from engines.core import ranks_from_keys

    detail = dict(outcome.detail)
    detail["forfeited"] = sorted(forfeited)
    return Outcome(ranks_from_keys(keys), list(outcome.scores), detail)


def fault_rng(seed: int) -> random.Random:
    """The generator of replacement actions for faults, derived from the match seed."""
    return random.Random(f"faults:{seed}")


def play_match(
    game_id: str,
    bots: Sequence[Bot],
    seed: int,
    options: Mapping[str, Any] | None = None,
    seat_names: Sequence[str] | None = None,
    limits: MatchLimits | None = None,
    on_decision: Callable[[Decision], None] | None = None,
) -> MatchLog:
    """Play one match to its end and return its log. Bots are closed afterwards, whatever happens.

    A bot fault (crash, timeout, garbage, out-of-range answer) is recorded and a seeded random legal
    action is played in its place; after ``limits.max_faults`` faults, or once its time bank is spent,
    the seat forfeits: it is no longer asked, plays seeded random actions, and is ranked last.
    """
    game = get_game(game_id)
    limits = limits or MatchLimits()
    n = len(bots)
    state = game.setup(n, seed, options)
    opts = game.options(options)
    log = MatchLog(game_id, opts, seed, list(seat_names or [b.name for b in bots]))
    rng = fault_rng(seed)
    faults_of = [0] * n
    bank_ms = [limits.match_ms] * n

    def fault(seat: int, exc: BotFault, move: int) -> None:
        faults_of[seat] += 1
        log.faults.append({"seat": seat, "move": move, "kind": exc.kind, "detail": exc.detail[:500],
                           "stderr_tail": exc.stderr_tail[-4000:]})
        if faults_of[seat] >= limits.max_faults and seat not in log.forfeits:
            log.forfeits[seat] = move

    try:
        launched = []
        for seat, bot in enumerate(bots):  # every program is launched before any is awaited: they start at once
            try:
                bot.launch(game_id, seat, n, opts, limits.match_ms)
                launched.append(seat)
            except BotFault as exc:
                fault(seat, exc, 0)
        for seat in launched:
            try:
                bots[seat].ready()
            except BotFault as exc:
                fault(seat, exc, 0)
        while (seat := game.to_move(state)) is not None:
            move = len(log.moves)
            if move >= MAX_MOVES:
                raise RuntimeError(f"{game_id}: no end after {MAX_MOVES} moves (seed {seed})")
            legal = game.legal_actions(state, seat)
            observation = None
            fault_info = None
            ms = 0
            if seat in log.forfeits:
                chosen = rng.randrange(len(legal))
            else:
                observation = game.observe(state, seat)
                started = time.perf_counter()
                try:
                    chosen = bots[seat].act(observation, legal, bank_ms[seat])
                    if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < len(legal):
                        raise BotFault("illegal", f"answered {chosen!r}, expected an index 0..{len(legal) - 1}")
                except BotFault as exc:
                    chosen = rng.randrange(len(legal))
                    fault(seat, exc, move)
                    fault_info = log.faults[-1]
                ms = int((time.perf_counter() - started) * 1000)
                if bank_ms[seat] is not None:
                    bank_ms[seat] -= ms
                    if bank_ms[seat] <= 0 and seat not in log.forfeits:
                        fault(seat, BotFault("timeout", "match time bank spent"), move)
                        log.forfeits[seat] = move
            action = legal[chosen]
            game.apply(state, seat, action)
            log.moves.append([seat, action, ms])
            log.choices.append(chosen)
            if on_decision is not None:
                on_decision(Decision(move, seat, observation or {}, legal, chosen, ms, fault_info))
        outcome = apply_forfeits(game.outcome(state), list(log.forfeits))
        log.outcome = outcome.to_dict()
        for seat, bot in enumerate(bots):
            if seat not in log.forfeits:
                try:
                    bot.end(outcome)
                except BotFault:
                    pass  # the result stands; a bot that fails at the end is not worth a fault
    finally:
        for seat, bot in enumerate(bots):
            bot.close()  # a program told ``end`` exits first (all of them at once: each had it before any close)
            tail = bot.stderr_tail()
            if tail:
                log.stderr[seat] = tail[-8000:]
    return log


def replay_states(log: MatchLog) -> Iterator[tuple[Any, int | None, Action | None]]:
    """Yield (state, seat, action) before each move, then (final state, None, None).

    The same state object is mutated between yields; clone it to keep one.
    """
    game = get_game(log.game)
    state = game.setup(len(log.seats), log.seed, log.options)
    for seat, action, _ms in log.moves:
        yield state, seat, action
        expected = game.to_move(state)
        if expected != seat:
            raise ReplayMismatch(f"log has seat {seat} moving where the engine expects seat {expected}")
        game.apply(state, seat, action)
    yield state, None, None


def replay(log: MatchLog) -> tuple[Any, Outcome]:
    """Replay a finished match log; raise ``ReplayMismatch`` unless it reproduces the outcome."""
    game = get_game(log.game)
    state = None
    for state, _seat, _action in replay_states(log):
        pass
    if game.to_move(state) is not None:
        raise ReplayMismatch("the log ends before the game does")
    outcome = apply_forfeits(game.outcome(state), list(log.forfeits))
    if log.outcome is not None and outcome.to_dict() != log.outcome:
        raise ReplayMismatch(f"replayed outcome {outcome.to_dict()} differs from the log's {log.outcome}")
    return state, outcome
