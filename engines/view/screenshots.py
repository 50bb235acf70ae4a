"""Screenshots of the viewer for the docs: ``python -m engines.view.screenshots docs/screenshots``.

For every game, a seeded match of its built-in bots (heuristic against random) is written as the
offline page and photographed at 1280 px wide, two thirds of the way through (Playwright driving
Chromium; ARENA_CHROMIUM names it, default /usr/bin/chromium).
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from engines.games import GAME_IDS, builtin_bots
from engines.match import play_match
from engines.view.page import render_html

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
SEATS = ("heuristic", "random", "heuristic")


def main() -> None:
    """Photograph the viewer of a seeded match of each game (or of ``--games``) into ``folder``."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(prog="python -m engines.view.screenshots", description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--games", nargs="+", default=list(GAME_IDS), choices=GAME_IDS)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        for game in args.games:
            bots = builtin_bots(game)
            log = play_match(game, [bots[name](seed=args.seed + i) for i, name in enumerate(SEATS)], args.seed,
                             seat_names=list(SEATS))
            html = Path(tmp) / f"{game}.html"
            html.write_text(render_html(log, seat_views=[]), encoding="utf-8")
            page.goto(f"{html.as_uri()}?move={2 * len(log.moves) // 3}")
            page.wait_for_function("window.arenaViewer && window.arenaViewer.renders > 0")
            target = args.folder / f"{game}.png"
            page.locator(".arena-viewer").screenshot(path=str(target))
            print(target)
        browser.close()


if __name__ == "__main__":
    main()
