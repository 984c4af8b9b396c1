"""Colours as Chromium draws them: every coloured thing of a tree and the colours right behind
it, read by getComputedStyle from the rendered page, and WCAG 2.1's contrast ratio between them.

What is behind a thing: for a shape's outline, an edge, a mark's pill or a focus ring, the row
bands its box meets (and the drawing's own background where the box leaves the bands); for text,
the halo it is painted on (`paint-order: stroke`), or else the fill of the shape it sits in
(both colours of a hatch), or else the bands. Graphics need 3:1 (1.4.11), text 4.5:1 (1.4.3).
"""

from __future__ import annotations

import re
from typing import Any

GRAPHIC = 3.0
TEXT = 4.5

# One entry per (thing, its state, its colour, a colour behind it, the ratio it needs).
MEASURE = """() => {
  const out = [];
  const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none'
    && getComputedStyle(e).visibility !== 'hidden';
  const opaque = (c) => c && c !== 'none' && !/rgba\\([^)]*,\\s*0\\)$/.test(c) && c !== 'transparent';
  // The background an HTML element is painted on: its own or its nearest ancestor's.
  const htmlBg = (e) => {
    for (let x = e; x; x = x.parentElement) {
      const c = getComputedStyle(x).backgroundColor;
      if (opaque(c)) return c;
    }
    return 'rgb(255, 255, 255)';
  };
  // A fill or stroke: a colour, or the colours of the pattern it names (a hatch).
  const paints = (value) => {
    const ref = /url\\("?#([^")]+)"?\\)/.exec(value || '');
    if (!ref) return opaque(value) ? [value] : [];
    const pattern = document.getElementById(ref[1]);
    const got = [];
    for (const part of pattern ? pattern.children : []) {
      const s = getComputedStyle(part);
      if (part.tagName === 'rect') got.push(s.fill);
      else got.push(s.stroke);
    }
    return got.filter(opaque);
  };
  const state = (e) => {
    const owner = e.closest('.node, .edge, .leaf-value, .edge-prob') || e;
    const names = [...owner.classList].filter((c) => !['node', 'edge', 'leaf', 'internal',
      'max', 'min', 'chance', 'has-mark', 'leaf-value', 'edge-prob'].includes(c));
    return names.sort().join(' ') || 'normal';
  };
  const player = (e) => {
    const n = e.closest('.node');
    return n ? ['max', 'min', 'chance'].find((p) => n.classList.contains(p)) || '' : '';
  };
  for (const svg of document.querySelectorAll('svg.tree-svg')) {
    if (!visible(svg)) continue;
    const canvas = htmlBg(svg.parentElement);
    const bands = [...svg.querySelectorAll('.row-band')].filter(visible)
      .map((b) => [b.getBoundingClientRect(), getComputedStyle(b).fill]);
    const behind = (box) => {
      const hit = bands.filter(([b]) => b.top <= box.bottom && box.top <= b.bottom)
        .map(([, fill]) => fill);
      const inside = bands.some(([b]) => b.top <= box.top && box.bottom <= b.bottom);
      if (!inside) hit.push(canvas);
      return [...new Set(hit)];
    };
    const add = (what, e, fg, bgs, need) => {
      for (const bg of bgs) out.push({what, player: player(e), state: state(e), fg, bg, need});
    };
    const halo = (e) => {
      const s = getComputedStyle(e);
      return s.paintOrder.startsWith('stroke') && parseFloat(s.strokeWidth) >= 2 && opaque(s.stroke)
        ? [s.stroke] : null;
    };
    for (const shape of svg.querySelectorAll('.node .shape')) {
      if (!visible(shape)) continue;
      const s = getComputedStyle(shape);
      add('node outline', shape, s.stroke, behind(shape.getBoundingClientRect()), 3);
      const label = shape.parentElement.querySelector('.node-label');
      if (label && visible(label)) {
        const fills = halo(label) || paints(s.fill);
        add('node label', shape, getComputedStyle(label).fill, fills, 4.5);
      }
      if (s.fill.startsWith('url(')) {
        const [ground, ...lines] = paints(s.fill);
        for (const line of lines) add('hatch lines', shape, line, [ground], 3);
      }
    }
    for (const line of svg.querySelectorAll('.edge .edge-line')) {
      if (!visible(line)) continue;
      add('edge', line, getComputedStyle(line).stroke, behind(line.getBoundingClientRect()), 3);
    }
    for (const text of svg.querySelectorAll('.leaf-value, .edge-prob')) {
      if (!visible(text) || !text.textContent) continue;
      const what = text.classList.contains('leaf-value') ? 'leaf value' : 'probability';
      add(what, text, getComputedStyle(text).fill, halo(text) || behind(text.getBoundingClientRect()), 4.5);
    }
    for (const pill of svg.querySelectorAll('.node .mark-pill')) {
      if (!visible(pill)) continue;
      const s = getComputedStyle(pill);
      add('mark pill outline', pill, s.stroke, behind(pill.getBoundingClientRect()), 3);
      const mark = pill.parentElement.querySelector('.mark');
      if (mark && mark.textContent) add('mark', pill, getComputedStyle(mark).fill, [s.fill], 4.5);
    }
    for (const mark of svg.querySelectorAll('.node.internal .mark')) {
      if (!visible(mark) || !mark.textContent) continue;
      add('mark', mark, getComputedStyle(mark).fill, halo(mark) || behind(mark.getBoundingClientRect()), 4.5);
    }
    for (const note of svg.querySelectorAll('.note')) {
      if (!visible(note) || !note.textContent.trim()) continue;
      const bgs = halo(note) || behind(note.getBoundingClientRect());
      for (const part of [note, ...note.querySelectorAll('tspan')]) {
        if (part.textContent.trim()) add('note', part, getComputedStyle(part).fill, bgs, 4.5);
      }
    }
    for (const ring of svg.querySelectorAll('.node:focus > .focus-ring')) {
      add('focus ring', ring, getComputedStyle(ring).stroke, behind(ring.getBoundingClientRect()), 3);
    }
  }
  for (const tag of document.querySelectorAll('.tree-rows .row-label')) {
    if (!visible(tag)) continue;
    add_html('row label', tag, getComputedStyle(tag).color, htmlBg(tag), 4.5);
  }
  for (const input of document.querySelectorAll('.node-input input')) {
    if (!visible(input)) continue;
    add_html('answer box border', input, getComputedStyle(input).borderTopColor,
      htmlBg(input.parentElement), 3);
  }
  for (const swatch of document.querySelectorAll('.replay-legend .swatch')) {
    if (!visible(swatch)) continue;
    add_html('legend swatch', swatch, getComputedStyle(swatch).borderTopColor,
      htmlBg(swatch.parentElement), 3);
  }
  function add_html(what, e, fg, bg, need) {
    out.push({what, player: '', state: [...e.classList].join(' ') || 'normal', fg, bg, need});
  }
  return out;
}"""

# The keyboard focus ring of the focused HTML control, against what is around it.
FOCUS_RING = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  if (e.querySelector(':scope > .focus-ring')) return {tree: true};
  const s = getComputedStyle(e);
  let bg = 'rgb(255, 255, 255)';
  for (let x = e.parentElement; x; x = x.parentElement) {
    const c = getComputedStyle(x).backgroundColor;
    if (c && c !== 'transparent' && !/rgba\\([^)]*,\\s*0\\)$/.test(c)) { bg = c; break; }
  }
  const what = e.getAttribute('aria-label') || e.textContent.trim() || e.tagName;
  return {what: what.slice(0, 50), fg: s.outlineColor, bg, on: s.outlineStyle !== 'none'};
}"""


def _channels(css: str) -> tuple[float, float, float]:
    found = re.findall(r"[\d.]+", css)
    if len(found) < 3:
        raise ValueError(f"not a colour: {css!r}")
    red, green, blue = (float(x) for x in found[:3])
    return red, green, blue


def luminance(css: str) -> float:
    """WCAG 2.1's relative luminance of an `rgb(...)` colour."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = _channels(css)
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def ratio(first: str, second: str) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def hex_of(css: str) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in _channels(css))


def measure(page: Any) -> list[dict[str, Any]]:
    """Every pair on the page now, each with its ratio."""
    pairs = page.evaluate(MEASURE)
    for pair in pairs:
        pair["ratio"] = ratio(pair["fg"], pair["bg"])
    return pairs


def failures(pairs: list[dict[str, Any]]) -> list[str]:
    """The pairs below what they need, in words (one line per distinct pair)."""
    seen = set()
    out = []
    for p in pairs:
        if p["ratio"] + 1e-9 >= p["need"]:
            continue
        line = (
            f"{p['what']} ({p['player'] or '-'}, {p['state']}): {hex_of(p['fg'])} on "
            f"{hex_of(p['bg'])} is {p['ratio']:.2f}:1, needs {p['need']}:1"
        )
        if line not in seen:
            seen.add(line)
            out.append(line)
    return out
