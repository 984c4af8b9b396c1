"""The server's charts, the one way the pages draw one: columns side by side (an engine's search
time against the reference's), with a scale, a legend clear of the columns, and the numbers in
words for a screen reader."""

from __future__ import annotations

import re

from grader.web import charts


def _floats(svg: str, pattern: str) -> list[float]:
    return [float(x) for x in re.findall(pattern, svg)]


def test_grouped_columns_scale_legend_and_words():
    svg = str(
        charts.grouped_columns(
            "Search CPU seconds",
            ["d3\npos-a", "d4\npos-b"],
            {"you": [0.012, 0.3], "reference": [0.01, 0.04]},
            y_label="CPU seconds",
            unit=" s",
            classes={"you": "mine", "reference": "reference"},
        )
    )
    assert svg.startswith('<svg class="chart"') and 'role="img"' in svg
    # A y scale in quarters up to a round number at or above the tallest column (0.3 -> 0.5).
    ticks = re.findall(r'class="tick y-tick">([^<]+)</text>', svg)
    assert ticks == ["0.00 s", "0.12 s", "0.25 s", "0.38 s", "0.50 s"]
    # Two columns per label, each with its series' class; one legend swatch per series.
    assert len(re.findall(r'<rect [^>]*class="mine">', svg)) == 2
    assert len(re.findall(r'<rect [^>]*class="reference">', svg)) == 2
    legend_bottom = max(
        y + h
        for y, h in zip(
            _floats(svg, r'<rect x="[\d.]+" y="([\d.]+)" width="12" height="12"'),
            _floats(svg, r'<rect x="[\d.]+" y="[\d.]+" width="12" height="([\d.]+)"'),
            strict=True,
        )
    )
    tops = _floats(
        svg,
        r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="[\d.]+" fill="#'
        r'[0-9A-F]+" class="(?:mine|reference)">',
    )
    assert len(tops) == 4 and legend_bottom < min(tops)
    # The tallest column reaches 0.3 of 0.5 of the plot; the label's two lines under it.
    assert "pos-a" in svg and "d4" in svg
    assert "d3 pos-a: you 0.012 s, reference 0.010 s; d4 pos-b: you 0.300 s" in svg


def test_columns_are_proportional_and_the_tallest_fills_a_round_scale():
    svg = str(charts.grouped_columns("t", ["a"], {"x": [2.0], "y": [1.0]}, y_label="s"))
    heights = _floats(svg, r'width="[\d.]+" height="([\d.]+)" fill="#[0-9A-F]+" class=""><title')
    plot = 260 - 40 - 34  # the chart's height less the axis labels' row and the legend's
    assert heights == [plot, plot / 2]
