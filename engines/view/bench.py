"""Measure the viewer on a long Catan match: ``python -m engines.view.bench [--moves 5000]``.

Plays seeded 4-player random-bot Catan matches until one lasts at least ``--moves`` moves, then
prints JSON lines: the server side (frame build time, bytes raw and gzipped) and, where Playwright
and Chromium are present, the page (open time to the first drawing, step and jump times in the page).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from engines.games import builtin_bots
from engines.match import MatchLog, play_match
from engines.view.frames import match_data, seat_frames
from engines.view.page import render_html

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")


def long_catan_match(moves: int, players: int = 4) -> MatchLog:
    """The first seeded random-bot Catan match with at least ``moves`` moves."""
    bots = builtin_bots("catan")["random"]
    for seed in range(10_000):
        log = play_match("catan", [bots(seed=seed * 10 + s) for s in range(players)], seed)
        if len(log.moves) >= moves:
            return log
    raise RuntimeError(f"no Catan match of {moves} moves in 10,000 seeds")


def measure_server(log: MatchLog) -> dict:
    """The server side: time to build the viewer data (all of it, and one seat's) and its size, raw and gzipped."""
    started = time.perf_counter()
    data = match_data(log)
    build_s = time.perf_counter() - started
    body = json.dumps(data, separators=(",", ":")).encode()
    started = time.perf_counter()
    seat = json.dumps(seat_frames(log, 0), separators=(",", ":")).encode()
    seat_s = time.perf_counter() - started
    frames = json.dumps(data["views"]["spectator"], separators=(",", ":")).encode()
    return {"what": "server", "moves": len(log.moves), "build_s": round(build_s, 3),
            "bytes": len(body), "gzip_bytes": len(gzip.compress(body, 6)), "frames_bytes": len(frames),
            "seat_build_s": round(seat_s, 3), "seat_bytes": len(seat), "seat_gzip_bytes": len(gzip.compress(seat, 6))}


def measure_page(log: MatchLog, steps: int = 300) -> dict:
    """The page in Chromium (Playwright): times to open and first draw, step and jump times (median, max)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catan.html"
        path.write_text(render_html(log, seat_views=[]), encoding="utf-8")
        html_bytes = path.stat().st_size
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(path.as_uri())
            page.wait_for_function("window.arenaViewer && window.arenaViewer.renders > 0")
            opened = page.evaluate("""() => ({open_ms: arenaViewer.shownAt, mount_ms: arenaViewer.openMs,
                first_draw_ms: arenaViewer.lastRenderMs})""")
            timings = page.evaluate("""(steps) => {
                const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
                const n = arenaViewer.moves, out = {forward: [], back: [], jump: []};
                arenaViewer.go(0);
                const step = (by) => time(() => arenaViewer.go(arenaViewer.position() + by));
                for (let i = 0; i < steps; i++) out.forward.push(step(1));
                for (let i = 0; i < steps; i++) out.back.push(step(-1));
                let seed = 7;
                for (let i = 0; i < 50; i++) { seed = (seed * 48271) % 2147483647; const to = seed % (n + 1);
                  out.jump.push(time(() => arenaViewer.go(to))); }
                return out; }""", steps)
            browser.close()
    result = {"what": "page", "moves": len(log.moves), "html_bytes": html_bytes}
    result.update({k: round(v, 1) for k, v in opened.items()})
    for name, values in timings.items():
        result[f"{name}_ms_median"] = round(statistics.median(values), 2)
        result[f"{name}_ms_max"] = round(max(values), 2)
    return result


def main() -> None:
    """Find a long Catan match and print its measurements as JSON lines."""
    parser = argparse.ArgumentParser(prog="python -m engines.view.bench", description=__doc__)
    parser.add_argument("--moves", type=int, default=5000)
    parser.add_argument("--exact", action="store_true",
                        help="cut the match to exactly --moves moves (a prefix of the first long enough match)")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    log = long_catan_match(args.moves)
    if args.exact:
        log.moves, log.outcome = log.moves[:args.moves], None
    print(json.dumps({"what": "match", "game": "catan", "seed": log.seed, "moves": len(log.moves)}), flush=True)
    print(json.dumps(measure_server(log)), flush=True)
    if not args.no_browser:
        print(json.dumps(measure_page(log)), flush=True)


if __name__ == "__main__":
    main()
