"""Rating-history charts as inline SVG (no JavaScript, no external assets)."""
from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ["#e4572e", "#2e86ab", "#76b041", "#f3a712", "#8f2d56", "#17bebb", "#6a4c93", "#c0392b", "#1b998b", "#555"]


def rating_chart(series: list[tuple[str, list[dict]]], width: int = 760, height: int = 260) -> SafeString:
    """One line per bot: its conservative rating (mu - 3 sigma) after each of its rated matches."""
    series = [(label, points) for label, points in series if points]
    if not series:
        return mark_safe("")
    pad_l, pad_r, pad_t, pad_b = 44, 12, 12, 24
    values = [p["conservative"] for _, pts in series for p in pts] + [0.0]
    lo, hi = min(values), max(values)
    hi = hi if hi > lo else lo + 1
    longest = max(len(pts) for _, pts in series)
    x_span = max(longest - 1, 1)

    def x(i: int) -> float:
        return pad_l + (width - pad_l - pad_r) * i / x_span

    def y(v: float) -> float:
        return pad_t + (height - pad_t - pad_b) * (hi - v) / (hi - lo)

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="rating history">']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                     f'<text x="{pad_l - 6}" y="{y(v) + 4:.1f}" class="axis" text-anchor="end">{v:.1f}</text>')
    parts.append(f'<text x="{width - pad_r}" y="{height - 6}" class="axis" text-anchor="end">matches played</text>')
    for n, (label, pts) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        coords = " ".join(f"{x(i):.1f},{y(p['conservative']):.1f}" for i, p in enumerate(pts))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}">'
                     f'<title>{escape(label)}</title></polyline>')
    parts.append("</svg>")
    legend = "".join(f'<span class="key"><i style="background:{PALETTE[n % len(PALETTE)]}"></i>{escape(label)}</span>'
                     for n, (label, _) in enumerate(series))
    return mark_safe("".join(parts) + f'<div class="legend">{legend}</div>')
