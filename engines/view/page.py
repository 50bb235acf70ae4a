"""The viewer's page: the shell's CSS and JS (one source for the offline file and the site) and
``render_html``, which writes a whole match into one self-contained HTML file."""
from __future__ import annotations

import html
import json
from typing import Any, Iterable

from engines.match import MatchLog
from engines.view import games
from engines.view.frames import KEYFRAME_EVERY, match_data


def shell_assets(game_id: str) -> dict[str, str]:
    """``{"css", "js"}``: the shell's style and script, with the generic and the game's drawing."""
    js = "\n".join([
        (games.STATIC / "generic.js").read_text(encoding="utf-8"),
        games.view_js(game_id),
        (games.STATIC / "viewer.js").read_text(encoding="utf-8"),
    ])
    return {"css": (games.STATIC / "viewer.css").read_text(encoding="utf-8"), "js": js}


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '<' can end the element early."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def render_html(log: MatchLog, seat_views: Iterable[int] | None = None, keyframe_every: int = KEYFRAME_EVERY) -> str:
    """One HTML file (no network, no server) playing ``log``, with every seat's view unless
    ``seat_views`` names fewer."""
    seats = range(len(log.seats)) if seat_views is None else seat_views
    data = match_data(log, keyframe_every, seat_views=seats)
    assets = shell_assets(log.game)
    title = f"{data['game_name']}: {' vs '.join(log.seats)} (seed {log.seed})"
    config = {"data": data, "allowedSeats": sorted(int(k) for k in data["views"] if k != "spectator")}
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<link rel="icon" href="data:,">
<style>
body {{ font-family: system-ui, sans-serif; margin: 0 auto; padding: .5rem 1rem; max-width: 1400px; color: #1d2430; }}
.av-title {{ font-size: 1.3rem; margin: .3rem 0; }}
{assets["css"]}
</style>
</head>
<body>
<h1 class="av-title">{html.escape(title)}</h1>
<div id="arena-viewer" class="arena-viewer"></div>
<script type="application/json" id="arena-viewer-config">{script_json(config)}</script>
<script>
{assets["js"]}
</script>
<script>ArenaViewer.mount(document.getElementById("arena-viewer"),
  JSON.parse(document.getElementById("arena-viewer-config").textContent));</script>
</body>
</html>
"""
