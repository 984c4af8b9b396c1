"""Server-rendered SVG charts (no script, no CDN): horizontal bars, a histogram, stacked bars,
columns side by side. The one way the pages draw a chart: a page that learns its numbers later
(an engine's results) fetches the chart drawn here.

Each chart is an <svg role="img"> with a <title> and a <desc> that says the numbers in words;
the pages put a table of the same numbers beside it.
"""

from __future__ import annotations

import itertools
import math

from markupsafe import Markup, escape

# Okabe–Ito, distinguishable with the common colour-vision deficiencies.
PALETTE = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
    "#999999",
    "#7F3C8D",
]
_ids = itertools.count(1)


def _nice_max(value: float) -> int:
    if value <= 5:
        return max(1, int(value))
    step = 10 ** (len(str(int(value))) - 1)
    return int((value + step - 1) // step * step)


def _nice_top(value: float) -> float:
    """A round number at or above ``value`` (1, 2 or 5 times a power of ten): the axis's top."""
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= value)


def _open(title: str, desc: str, width: int, height: int) -> tuple[list[str], str]:
    n = next(_ids)
    t, d = f"chart-title-{n}", f"chart-desc-{n}"
    head = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-labelledby="{t} {d}">',
        f'<title id="{t}">{escape(title)}</title><desc id="{d}">{escape(desc)}</desc>',
    ]
    return head, f"{title}"


def _text(
    x: float,
    y: float,
    text: object,
    *,
    anchor: str = "start",
    size: int = 12,
    weight: str = "normal",
    cls: str = "",
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
        f'font-weight="{weight}" class="{cls}">{escape(str(text))}</text>'
    )


def _y_label(x: int, middle: float, label: str, cls: str = "") -> str:
    """The y axis's name, written upwards beside it, centred at height ``middle``."""
    attribute = f' class="{cls}"' if cls else ""
    return (
        f'<text transform="translate({x} {middle:.0f}) rotate(-90)" '
        f'text-anchor="middle" font-size="12"{attribute}>{escape(label)}</text>'
    )


def _y_scale(left: int, right: int, base: float, plot_h: float, top_value: int) -> list[str]:
    """A count scale in about quarters of ``top_value`` up from the ``base`` line, a grid line
    across the plot (``left`` to ``right``) at each tick."""
    out = []
    for tick in range(0, top_value + 1, max(1, top_value // 4)):
        y = base - tick / top_value * plot_h
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e3e7eb"/>')
        out.append(_text(left - 6, y + 4, tick, anchor="end", size=11))
    return out


def nothing_to_draw(title: str, measure: str) -> Markup:
    """What a chart whose every count is 0 says instead of drawing bars of zeros (an empty
    course, an assignment nobody answered yet)."""
    return Markup('<p class="muted no-chart" data-role="no-chart">{}: no {} yet.</p>').format(
        title, measure
    )


def horizontal_bars(
    title: str,
    labels: list[str],
    values: list[int | None],
    *,
    x_label: str,
    y_label: str,
    width: int = 640,
    colours: list[str] | None = None,
    notes: list[str] | None = None,
    top_value: int | None = None,
) -> Markup:
    """One bar per label (long labels: misconceptions' words), the count written at its end;
    ``colours`` one per bar, ``notes`` words written after the count (a status). A value of
    None draws no bar and no number, only its note: a row the measure does not apply to. Every
    value 0 (and no notes): a sentence, `nothing_to_draw`."""
    if not notes and not any(values):
        return nothing_to_draw(title, x_label)
    bar, gap, left, top = 20, 8, 170, 36
    height = top + len(labels) * (bar + gap) + 48
    top_value = top_value or _nice_max(max((v for v in values if v is not None), default=0))
    scale = (width - left - 50 - (110 if notes else 0)) / top_value
    notes = notes or [""] * len(labels)
    desc = (
        "; ".join(
            f"{lab}: {n}" if v is None else f"{lab}: {v}{f' ({n})' if n else ''}"
            for lab, v, n in zip(labels, values, notes, strict=True)
        )
        or "no data"
    )
    out, _ = _open(title, desc, width, height)
    out.append(_text(width / 2, 20, title, anchor="middle", size=14, weight="bold"))
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = top + i * (bar + gap)
        fill = colours[i] if colours else PALETTE[0]
        out.append(_text(left - 8, y + bar * 0.7, label, anchor="end"))
        if value is None:
            out.append(_text(left + 5, y + bar * 0.7, notes[i], cls="no-bar"))
            continue
        stub = 4 if colours else 0  # a coloured bar says its status even at zero
        out.append(
            f'<rect x="{left}" y="{y}" width="{max(value * scale, stub):.1f}" height="{bar}" '
            f'fill="{fill}"><title>{escape(label)}: {value}</title></rect>'
        )
        out.append(
            _text(
                left + max(value * scale, stub) + 5,
                y + bar * 0.7,
                f"{value} {notes[i]}" if notes[i] else value,
            )
        )
    axis_y = top + len(labels) * (bar + gap)
    out.append(f'<line x1="{left}" y1="{top - 4}" x2="{left}" y2="{axis_y}" stroke="#555"/>')
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - 40}" y2="{axis_y}" stroke="#555"/>')
    for tick in range(0, top_value + 1, max(1, top_value // 5)):
        x = left + tick * scale
        out.append(_text(x, axis_y + 14, tick, anchor="middle", size=11))
    out.append(_text(left + (width - left - 40) / 2, axis_y + 34, x_label, anchor="middle"))
    out.append(_y_label(14, top + (axis_y - top) / 2, y_label))
    out.append("</svg>")
    return Markup("".join(out))


def column_chart(
    title: str,
    labels: list[str],
    values: list[int],
    *,
    x_label: str,
    y_label: str,
    width: int = 560,
    height: int = 260,
) -> Markup:
    """Vertical bars (a histogram of scores); every value 0: a sentence (`nothing_to_draw`)."""
    if not any(values):
        return nothing_to_draw(title, y_label)
    left, right, top, bottom = 48, 12, 32, 64
    top_value = _nice_max(max(values, default=0))
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(1, len(values))
    desc = "; ".join(f"{lab}: {v}" for lab, v in zip(labels, values, strict=True)) or "no data"
    out, _ = _open(title, desc, width, height)
    out.append(_text(width / 2, 18, title, anchor="middle", size=14, weight="bold"))
    base = top + plot_h
    out.extend(_y_scale(left, width - right, base, plot_h, top_value))
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = value / top_value * plot_h
        x = left + i * step
        out.append(
            f'<rect x="{x + 3:.1f}" y="{base - h:.1f}" width="{step - 6:.1f}" '
            f'height="{h:.1f}" fill="{PALETTE[2]}"><title>{escape(label)}: {value}</title>'
            f"</rect>"
        )
        out.append(
            f'<text transform="translate({x + step / 2:.1f} {base + 10}) rotate(40)" '
            f'font-size="10">{escape(label)}</text>'
        )
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#555"/>')
    out.append(_text(left + plot_w / 2, height - 6, x_label, anchor="middle"))
    out.append(_y_label(13, top + plot_h / 2, y_label))
    out.append("</svg>")
    return Markup("".join(out))


def stacked_columns(
    title: str,
    categories: list[str],
    series: dict[str, list[int]],
    *,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 300,
) -> Markup:
    """One column per category (a week), stacked by series (misconception codes), a legend;
    nothing in any column: a sentence (`nothing_to_draw`)."""
    if not any(any(values) for values in series.values()):
        return nothing_to_draw(title, y_label)
    left, right, top = 48, 190, 32
    bottom = 56
    totals = [sum(values[i] for values in series.values()) for i in range(len(categories))]
    top_value = _nice_max(max(totals, default=0))
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(1, len(categories))
    parts = []
    for i, cat in enumerate(categories):
        inner = ", ".join(f"{name} {values[i]}" for name, values in series.items() if values[i])
        parts.append(f"{cat}: {inner or 'none'}")
    out, _ = _open(title, "; ".join(parts) or "no data", width, height)
    out.append(
        _text((left + width - right) / 2, 18, title, anchor="middle", size=14, weight="bold")
    )
    base = top + plot_h
    out.extend(_y_scale(left, left + plot_w, base, plot_h, top_value))
    colours = dict(zip(series, itertools.cycle(PALETTE), strict=False))
    for i, cat in enumerate(categories):
        y: float = base
        x = left + i * step
        for name, values in series.items():
            if not values[i]:
                continue
            h = values[i] / top_value * plot_h
            y -= h
            out.append(
                f'<rect x="{x + 4:.1f}" y="{y:.1f}" width="{max(step - 8, 2):.1f}" '
                f'height="{h:.1f}" fill="{colours[name]}"><title>{escape(cat)}, '
                f"{escape(name)}: {values[i]}</title></rect>"
            )
        out.append(_text(x + step / 2, base + 16, cat, anchor="middle", size=11))
    out.append(f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#555"/>')
    out.append(_text(left + plot_w / 2, height - 10, x_label, anchor="middle"))
    out.append(_y_label(13, top + plot_h / 2, y_label))
    for j, name in enumerate(series):
        y = top + j * 18
        out.append(
            f'<rect x="{width - right + 14}" y="{y}" width="12" height="12" '
            f'fill="{colours[name]}"/>'
        )
        out.append(_text(width - right + 32, y + 10, name, size=11))
    out.append("</svg>")
    return Markup("".join(out))


def grouped_columns(
    title: str,
    labels: list[str],
    series: dict[str, list[float]],
    *,
    y_label: str,
    unit: str = "",
    classes: dict[str, str] | None = None,
    width: int = 560,
    height: int = 260,
) -> Markup:
    """Per label one column of each series side by side (yours and the reference's; a label's
    lines, split at newlines, under its columns), a y scale in quarters with grid lines, and
    the legend in its own row above the plot, so no column can reach it. ``classes``: a CSS
    class per series (each column has its colour without)."""
    left, right, top, bottom = 64, 10, 34, 40
    plot = height - bottom - top
    names = list(series)
    top_value = _nice_top(max([v for values in series.values() for v in values] + [1e-3]))
    digits = 1 if top_value >= 1 else min(4, 1 - math.floor(math.log10(top_value)))
    colours = dict(zip(names, itertools.cycle(PALETTE), strict=False))
    css = {name: (classes or {}).get(name, "") for name in names}
    step = (width - left - right) / max(1, len(labels))
    bar = max(4.0, step / len(names) - 4)

    def y_of(value: float) -> float:
        return height - bottom - plot * value / top_value

    desc = (
        "; ".join(
            f"{label.replace(chr(10), ' ')}: "
            + ", ".join(f"{name} {series[name][i]:.3f}{unit}" for name in names)
            for i, label in enumerate(labels)
        )
        or "no data"
    )
    out, _ = _open(title, desc, width, height)
    for i in range(5):
        value = top_value * i / 4
        y = y_of(value)
        stroke, line = ("#d9dee3", "grid") if i else ("#333", "axis")
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 4}" y2="{y:.1f}" '
            f'stroke="{stroke}" class="{line}"/>'
        )
        out.append(
            _text(left - 6, y + 4, f"{value:.{digits}f}{unit}", anchor="end", cls="tick y-tick")
        )
    out.append(
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#333" '
        f'class="axis"/>'
    )
    out.append(_y_label(12, top + plot / 2, y_label, "tick"))
    for i, label in enumerate(labels):
        x = left + i * step + 2
        for j, name in enumerate(names):
            value = series[name][i]
            out.append(
                f'<rect x="{x + j * (bar + 2):.1f}" y="{y_of(value):.1f}" '
                f'width="{bar:.1f}" height="{height - bottom - y_of(value):.1f}" '
                f'fill="{colours[name]}" class="{css[name]}"><title>{escape(name)}: '
                f"{value:.3f}{unit}</title></rect>"
            )
        for k, line in enumerate(label.split("\n")):
            out.append(_text(x, height - bottom + 14 * (k + 1), line, cls="tick"))
    x = left
    for name in names:
        out.append(
            f'<rect x="{x}" y="8" width="12" height="12" fill="{colours[name]}" '
            f'class="{css[name]} legend"/>'
        )
        out.append(_text(x + 16, 18, name, cls="tick"))
        x += 24 + 8 * len(name)
    out.append("</svg>")
    return Markup("".join(out))
