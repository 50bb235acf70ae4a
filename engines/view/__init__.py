"""The match viewer: a match log replayed into compact frames, and the page that plays them.

``match_data`` / ``seat_frames`` (frames.py) build the data; ``render_html`` (page.py) writes the
self-contained HTML file; the Django match page uses the same assets (``shell_assets``).
"""
from engines.view.frames import FRAMES_VERSION, match_data, seat_frames
from engines.view.page import render_html, shell_assets

__all__ = ["FRAMES_VERSION", "match_data", "seat_frames", "render_html", "shell_assets"]
