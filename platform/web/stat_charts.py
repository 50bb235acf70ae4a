"""Charts of the statistics and model-comparison pages, as inline SVG (no JavaScript, no external assets)."""
from __future__ import annotations

import math

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from web.charts import PALETTE


def _nice_top(most: float) -> float:
    """An axis top at or above ``most`` whose quarters are round numbers."""
    step = max(most, 4) / 4  # counts: at least 0-4, so the ticks are whole
    power = 10 ** math.floor(math.log10(step))
    return 4 * next(k * power for k in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if k * power >= step)


def _number(v: float) -> str:
    return f"{v:g}" if float(v).is_integer() else f"{v:.1f}"


def histogram_chart(series: list[tuple[str, list[dict]]], x_label: str, width: int = 760,
                    height: int = 220) -> SafeString:
    """Bars of one or more histograms over the same bins (``{"low", "high", "count"}``), side by side."""
    series = [(label, bins) for label, bins in series if bins]
    if not series:
        return mark_safe("")
    bins = series[0][1]
    pad_l, pad_r, pad_t, pad_b = 44, 12, 12, 36
    top = _nice_top(max(b["count"] for _, bs in series for b in bs))
    slot = (width - pad_l - pad_r) / len(bins)
    bar = slot * 0.8 / len(series)
    plot_h = height - pad_t - pad_b
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(x_label)}">']
    for k in range(5):
        v = top * k / 4
        y = pad_t + plot_h * (1 - k / 4)
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                     f'<text x="{pad_l - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{_number(v)}</text>')
    every = max(1, len(bins) // 10)
    for i, b in enumerate(bins):
        if i % every == 0:
            parts.append(f'<text x="{pad_l + slot * i + slot / 2:.1f}" y="{height - pad_b + 14}" class="axis" '
                         f'text-anchor="middle">{_number(b["low"])}</text>')
    for n, (label, bs) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        for i, b in enumerate(bs):
            h = plot_h * b["count"] / top
            x = pad_l + slot * i + slot * 0.1 + bar * n
            parts.append(f'<rect x="{x:.1f}" y="{pad_t + plot_h - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                         f'fill="{colour}"><title>{escape(label)}: {b["count"]} in [{_number(b["low"])}, '
                         f'{_number(b["high"])})</title></rect>')
    parts.append(f'<text x="{width - pad_r}" y="{height - 4}" class="axis" text-anchor="end">{escape(x_label)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts) + _legend([label for label, _ in series]))


def seat_chart(rows: list[dict], width: int = 760, height: int = 220) -> SafeString:
    """Win rate per seat, grouped by table size; a dashed line marks a fair share (1 / players)."""
    if not rows:
        return mark_safe("")
    sizes = sorted({r["players"] for r in rows})
    pad_l, pad_r, pad_t, pad_b = 44, 12, 12, 36
    plot_h = height - pad_t - pad_b
    group = (width - pad_l - pad_r) / len(sizes)
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="win rate by seat">']
    for k in range(5):
        y = pad_t + plot_h * (1 - k / 4)
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                     f'<text x="{pad_l - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{25 * k}%</text>')
    for g, players in enumerate(sizes):
        seats = [r for r in rows if r["players"] == players]
        bar = group * 0.8 / max(players, 1)
        x0 = pad_l + group * g + group * 0.1
        for r in seats:
            h = plot_h * r["win_rate"]
            parts.append(f'<rect x="{x0 + bar * r["seat"]:.1f}" y="{pad_t + plot_h - h:.1f}" width="{bar * 0.9:.1f}" '
                         f'height="{h:.1f}" fill="{PALETTE[r["seat"] % len(PALETTE)]}"><title>{players} players, '
                         f'seat {r["seat"] + 1}: won {100 * r["win_rate"]:.1f}% of {r["matches"]}, average place '
                         f'{r["average_place"]:.2f}</title></rect>')
        fair = pad_t + plot_h * (1 - 1 / players)
        parts.append(f'<line x1="{x0:.1f}" x2="{x0 + group * 0.8:.1f}" y1="{fair:.1f}" y2="{fair:.1f}" '
                     f'stroke="#333" stroke-dasharray="4 3"/>'
                     f'<text x="{x0 + group * 0.4:.1f}" y="{height - pad_b + 14}" class="axis" '
                     f'text-anchor="middle">{players} players</text>')
    parts.append("</svg>")
    most = max(sizes)
    return mark_safe("".join(parts) + _legend([f"seat {k + 1}" for k in range(most)]))


def head_to_head_grid(h2h: dict) -> list[dict]:
    """The head-to-head matrix as table rows: per bot, a cell per opponent with "above/together" and a
    colour from red (always below) through white to green (always above)."""
    cells = {(c["a"], c["b"]): c for c in h2h["cells"]}
    rows = []
    for a in h2h["bots"]:
        row = []
        for b in h2h["bots"]:
            c = cells.get((a["bot_version"], b["bot_version"]))
            if a is b or c is None or not c["matches"]:
                row.append({"text": "", "title": "", "style": ""})
                continue
            share = (c["above"] + c["ties"] / 2) / c["matches"]
            fade = int(255 - 110 * abs(share - 0.5) * 2)  # white at an even record
            colour = f"rgb({fade}, 255, {fade})" if share >= 0.5 else f"rgb(255, {fade}, {fade})"
            row.append({"text": f'{c["above"]}/{c["matches"]}',
                        "title": f'{a["label"]} placed above {b["label"]} in {c["above"]} of {c["matches"]} '
                                 f'matches together ({c["ties"]} ties)',
                        "style": f"background: {colour}"})
        rows.append({"label": a["label"], "bot_version": a["bot_version"], "cells": row})
    return rows


def rank_scatter(comparison: dict, width: int = 420, height: int = 420) -> SafeString:
    """Each bot's place under every recomputed model against its live place: on the diagonal, the models agree."""
    models = [m for m in comparison["models"] if m != "live"]
    points = [(row["places"]["live"], row["places"][m], n, row["label"], m)
              for n, m in enumerate(models) for row in comparison["rows"]
              if row["places"].get("live") and row["places"].get(m)]
    if not points:
        return mark_safe("")
    most = max(max(p[0], p[1]) for p in points)
    pad = 36
    scale = (width - 2 * pad) / max(most - 1, 1)

    def at(place: int) -> float:
        return pad + (place - 1) * scale

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="places under each model">',
             f'<line x1="{at(1):.1f}" y1="{at(1):.1f}" x2="{at(most):.1f}" y2="{at(most):.1f}" class="grid"/>',
             f'<text x="{width / 2}" y="{height - 6}" class="axis" text-anchor="middle">live TrueSkill place</text>',
             f'<text x="12" y="{height / 2}" class="axis" text-anchor="middle" '
             f'transform="rotate(-90 12 {height / 2})">place under the model</text>',
             f'<text x="{at(1):.1f}" y="{pad - 8}" class="axis" text-anchor="middle">1</text>',
             f'<text x="{at(most):.1f}" y="{pad - 8}" class="axis" text-anchor="middle">{most}</text>',
             f'<text x="{pad - 8}" y="{at(most) + 4:.1f}" class="axis" text-anchor="end">{most}</text>']
    for live, other, n, label, model in points:
        parts.append(f'<circle cx="{at(live):.1f}" cy="{at(other):.1f}" r="4" fill="{PALETTE[n % len(PALETTE)]}" '
                     f'fill-opacity="0.75"><title>{escape(label)}: {live} live, {other} {model}</title></circle>')
    parts.append("</svg>")
    return mark_safe("".join(parts) + _legend(models))


def _legend(labels: list[str]) -> str:
    keys = "".join(f'<span class="key"><i style="background:{PALETTE[n % len(PALETTE)]}"></i>{escape(label)}</span>'
                   for n, label in enumerate(labels))
    return f'<div class="legend">{keys}</div>'
