"""Command line for bot authors: ``python -m engines play|versus|replay|view|bench``."""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any, Sequence

from engines.players import is_program_spec, make_bot
from engines.core import BadOptions, IllegalAction
from engines.games import GAME_IDS, available_games, get_game
from engines.match import Decision, MatchLimits, MatchLog, ReplayMismatch, play_match, replay


def _json_arg(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("options must be a JSON object")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m engines`` argument parser: play, versus, replay, view and bench."""
    parser = argparse.ArgumentParser(prog="python -m engines", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play one match and print the places (1 = first)")
    play.add_argument("--game", required=True, choices=GAME_IDS)
    play.add_argument("--bots", nargs="+", required=True,
                      help="one per seat: a built-in bot name (random, heuristic) or a path to a bot (.py, .zip, folder)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--options", type=_json_arg, default={}, help="game options as a JSON object")
    play.add_argument("--log", help="write the match log (JSON) to this file")
    play.add_argument("--seat-view", type=int, metavar="K", help="print the match as seat K saw it")
    play.add_argument("--trusted", action="store_true",
                      help="run bot programs without the bubblewrap sandbox (your own code, on your own machine)")
    play.add_argument("--max-faults", type=int, default=3)
    play.add_argument("--move-ms", type=int, default=2000, help="wall-clock limit per decision of a bot program")
    play.add_argument("--match-ms", type=int, default=120_000, help="time bank per bot program for the match")

    vs = sub.add_parser("versus", help="many seeded matches with seats rotated: games, wins, average place "
                                       "(95%% CI), faults per bot")
    vs.add_argument("--game", required=True, choices=GAME_IDS)
    vs.add_argument("--bots", nargs="+", required=True,
                    help="one per seat: built-in bot names or paths to bots (.py, .js, .zip, folder), e.g. "
                         "./v2.py ./v1.py heuristic")
    vs.add_argument("--games", type=int, default=1000, help="matches to play (seats rotate every match)")
    vs.add_argument("--seed", type=int, default=0,
                    help="match g is played with seed SEED+g (--duplicate: series s with seed SEED+s)")
    vs.add_argument("--jobs", "-j", type=int, default=1, help="matches played in parallel (processes)")
    vs.add_argument("--options", type=_json_arg, default={})
    vs.add_argument("--trusted", action="store_true",
                    help="run bot programs without the bubblewrap sandbox (your own code, on your own machine)")
    vs.add_argument("--max-faults", type=int, default=3)
    vs.add_argument("--move-ms", type=int, default=2000, help="wall-clock limit per decision of a bot program")
    vs.add_argument("--match-ms", type=int, default=120_000, help="time bank per bot program for the match")
    vs.add_argument("--duplicate", action="store_true",
                    help="duplicate series: each seed is played once per seat rotation (len(--bots) games, the same "
                         "deals), so the luck of the deal cancels; --games must be a multiple of len(--bots)")
    vs.add_argument("--json", action="store_true", help="print the result as one JSON object")

    rep = sub.add_parser("replay", help="replay a match log and check its outcome")
    rep.add_argument("file")

    view = sub.add_parser("view", help="write a match log as one self-contained HTML page (the match viewer)")
    view.add_argument("file", help="a match log (JSON), e.g. from play --log")
    view.add_argument("-o", "--output", help="the HTML file to write (default: the log's name with .html)")

    bench = sub.add_parser("bench", help="measure engine speed (random self-play) or protocol overhead")
    bench.add_argument("--game", choices=GAME_IDS, help="default: every game")
    bench.add_argument("--players", type=int, default=4)
    bench.add_argument("--seconds", type=float, default=5.0)
    bench.add_argument("--games", type=int)
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument("--options", type=_json_arg, default={})
    bench.add_argument("--compare", metavar="ENGINE", help="also run another engine side by side (catan: catanatron)")
    bench.add_argument("--protocol", action="store_true",
                       help="per-decision overhead of a trivial bot through the sandbox vs a raw pipe (a synthetic "
                            "message, then real observations of each game (--game: one), whole and delta)")
    bench.add_argument("--language", choices=["python", "node"], default="python",
                       help="with --protocol: the language of the trivial bot")
    bench.add_argument("--placement", choices=["free", "same", "apart", "all"], default="all",
                       help="with --protocol: where the processes run: as the kernel places them, on one core, the "
                            "bench apart from the rest; all (default): the synthetic message in each (apart: with two "
                            "cores or more), the games' observations on one core")
    bench.add_argument("--delta-min-bytes", type=int, metavar="N",
                       help="with --protocol: the host sends deltas only after messages of N bytes or more "
                            "(default: protocol.DeltaEncoder.MIN_BYTES; 0: always)")
    return parser


def print_seat_view(decision: Decision, seat: int) -> None:
    """Print ``decision`` as one JSON line when it is ``seat``'s (``play --seat-view``)."""
    if decision.seat != seat:
        return
    print(json.dumps({"decision": decision.index, "observation": decision.observation,
                      "legal_actions": decision.legal_actions, "chosen": decision.chosen,
                      "fault": decision.fault}))


def cmd_play(args: argparse.Namespace) -> int:
    """``play``: one match; print the places and write the log if asked (exit 2 on a bad table, bot or seat)."""
    game = get_game(args.game)
    try:
        game.check_table(len(args.bots), args.options)
    except BadOptions as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    bots = []
    try:
        for seat, spec in enumerate(args.bots):
            kwargs = {"trusted": args.trusted, "move_ms": args.move_ms} if is_program_spec(spec) else {}
            bots.append(make_bot(spec, args.game, seed=args.seed * 100 + seat, **kwargs))
    except (KeyError, ValueError, OSError) as exc:
        for bot in bots:
            bot.close()
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 2
    has_program = any(is_program_spec(s) for s in args.bots)
    limits = MatchLimits(max_faults=args.max_faults, match_ms=args.match_ms if has_program else None)
    on_decision = None
    if args.seat_view is not None:
        if not 0 <= args.seat_view < len(bots):
            print(f"error: --seat-view {args.seat_view}: seats are 0..{len(bots) - 1}", file=sys.stderr)
            return 2
        on_decision = lambda d: print_seat_view(d, args.seat_view)  # noqa: E731
    log = play_match(args.game, bots, args.seed, args.options, seat_names=args.bots, limits=limits,
                     on_decision=on_decision)
    print_result(log)
    if args.log:
        with open(args.log, "w", encoding="utf-8") as fh:
            json.dump(log.to_dict(), fh)
        print(f"log written to {args.log}")
    return 0


STDERR_LINES_SHOWN = 20


def print_result(log: MatchLog) -> None:
    """Print a match's places (1 = first) with each seat's score, faults and forfeit, then the faults."""
    outcome = log.outcome or {}
    order = sorted(range(len(log.seats)), key=lambda s: (outcome["ranks"][s], s))
    print(f"{log.game}, seed {log.seed}, {len(log.moves)} moves")
    for seat in order:
        notes = []
        faults = sum(1 for f in log.faults if f["seat"] == seat)
        if faults:
            notes.append(f"{faults} fault(s)")
        if seat in log.forfeits:
            notes.append("forfeited")
        extra = f"  ({', '.join(notes)})" if notes else ""
        print(f"  place {outcome['ranks'][seat] + 1}  seat {seat}  {log.seats[seat]:<20} score {outcome['scores'][seat]}{extra}")
    for f in log.faults:
        print(f"  fault: seat {f['seat']} move {f['move']} {f['kind']}: {f['detail']}")
    for seat, tail in sorted(log.stderr.items()):  # a program's prints and tracebacks (the log keeps more)
        lines = tail.rstrip("\n").splitlines()[-STDERR_LINES_SHOWN:]
        if lines:
            print(f"  seat {seat} wrote on stderr (its last {len(lines)} lines):")
            for line in lines:
                print(f"    | {line[:200]}")


def cmd_replay(args: argparse.Namespace) -> int:
    """``replay``: replay a match log and check that it reproduces its outcome (exit 1 on failure)."""
    try:
        with open(args.file, encoding="utf-8") as fh:
            log = MatchLog.from_dict(json.load(fh))
        replay(log)
    except (OSError, ValueError, KeyError, IllegalAction, ReplayMismatch) as exc:
        print(f"replay failed: {exc}", file=sys.stderr)
        return 1
    print(f"replay ok: {len(log.moves)} moves reproduce the outcome {log.outcome}")
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    """``view``: write a match log as one self-contained HTML page (the match viewer)."""
    from pathlib import Path

    from engines.view import render_html

    try:
        with open(args.file, encoding="utf-8") as fh:
            log = MatchLog.from_dict(json.load(fh))
        page = render_html(log)
    except (OSError, ValueError, KeyError, IllegalAction, ReplayMismatch) as exc:
        print(f"view failed: {exc}", file=sys.stderr)
        return 1
    output = Path(args.output or Path(args.file).with_suffix(".html"))
    output.write_text(page, encoding="utf-8")
    print(f"{output}: {len(log.moves)} moves, {len(page.encode()) // 1024} KiB; open it in a browser")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``bench``: engine speed in random self-play, or against another engine (``--compare``), or protocol
    overhead (``--protocol``); JSON lines."""
    from engines.bench import bench_game

    if args.protocol:
        from engines.sandbox.bench import PLACEMENTS, bench_protocol, bench_protocol_game

        one_core = len(os.sched_getaffinity(0)) < 2
        if args.placement == "apart" and one_core:
            print("error: --placement apart needs two cores", file=sys.stderr)
            return 2
        for placement in PLACEMENTS if args.placement == "all" else (args.placement,):
            if placement == "apart" and one_core:
                continue  # one core: nothing to put apart
            print(json.dumps(bench_protocol(seconds=args.seconds, language=args.language, placement=placement)),
                  flush=True)
        if args.language == "python":  # real observations, whole and delta (the Python SDK's feature)
            for game_id in [args.game] if args.game else GAME_IDS:
                print(json.dumps(bench_protocol_game(game_id, seconds=args.seconds, min_bytes=args.delta_min_bytes,
                                                     placement="same" if args.placement == "all" else args.placement)),
                      flush=True)
        return 0
    if args.compare:
        if not args.game:
            print("error: --compare needs --game", file=sys.stderr)
            return 2
        try:
            compare = importlib.import_module(f"engines.{args.game}.compare")
        except ModuleNotFoundError:
            print(f"error: no comparison engine for {args.game}", file=sys.stderr)
            return 2
        print(json.dumps(compare.run(args.compare, num_players=args.players, seconds=args.seconds, seed=args.seed)))
        return 0
    for game_id in [args.game] if args.game else available_games():
        print(json.dumps(bench_game(game_id, args.players, args.seconds, args.games, args.seed, args.options)),
              flush=True)
    return 0


def cmd_versus(args: argparse.Namespace) -> int:
    """``versus``: many seeded matches with seats rotated; print the report (or JSON)."""
    from engines.versus import check_specs, format_report, schedule, versus

    if args.games < 1 or args.jobs < 1:
        print("error: --games and --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        schedule(len(args.bots), args.games, args.seed, args.duplicate)
    except ValueError as exc:
        print(f"error: --duplicate: {exc}", file=sys.stderr)
        return 2
    try:
        check_specs(args.game, args.bots)
        get_game(args.game).check_table(len(args.bots), args.options)
    except (KeyError, ValueError, OSError, BadOptions) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 2
    result = versus(args.game, args.bots, args.games, args.seed, args.options, jobs=args.jobs, trusted=args.trusted,
                    move_ms=args.move_ms, match_ms=args.match_ms, max_faults=args.max_faults,
                    duplicate=args.duplicate)
    print(json.dumps(result) if args.json else format_report(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command of ``argv`` (default: the command line); its exit status."""
    args = build_parser().parse_args(argv)
    return {"play": cmd_play, "replay": cmd_replay, "bench": cmd_bench, "versus": cmd_versus,
            "view": cmd_view}[args.command](args)
