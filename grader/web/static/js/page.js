// Every page: wide tables scroll inside their own box, never the page sideways; a box that
// scrolls says so (a cue above it), takes keyboard focus (arrow keys scroll it) and is named
// after its table. Tables of more than two columns carry each column's header on their cells
// (data-label), which phones show beside the value when a row becomes a stacked card
// (style.css); a table with class "matrix" (a crosstable) stays a grid. A cell's line breaks
// only between words (style.css); a browser also breaks after a hyphen, which is right in a
// compound ("alpha-/beta") but not in a sign, a date or a move ("α -/inf", "2026-/W48",
// "(-/beta,", "9-/13"), so such a word is kept on one line.

import { h } from "./dom.js";

function named(table) {
  const caption = table.querySelector("caption")?.textContent.trim();
  if (caption) return caption;
  let before = table.parentElement;
  while (before && before !== document.body) {
    for (let el = before.previousElementSibling; el; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) return el.textContent.trim();
    }
    before = before.parentElement;
  }
  return "Table";
}

// A header cell's words without its muted notes ("Total /4" is "Total").
function headerText(th) {
  const copy = th.cloneNode(true);
  copy.querySelectorAll(".muted, .sr-only").forEach((note) => note.remove());
  return copy.textContent.replace(/\s+/g, " ").trim();
}

// Per column, the words of the header cells above it (rowspan and colspan honoured).
function columnLabels(thead) {
  const grid = [];
  [...thead.rows].forEach((row, r) => {
    grid[r] ||= [];
    let c = 0;
    for (const th of row.cells) {
      while (grid[r][c] !== undefined) c += 1;
      for (let dr = 0; dr < th.rowSpan; dr += 1) {
        grid[r + dr] ||= [];
        for (let dc = 0; dc < th.colSpan; dc += 1) grid[r + dr][c + dc] = th;
      }
      c += th.colSpan;
    }
  });
  const width = Math.max(0, ...grid.map((row) => row.length));
  return Array.from({ length: width }, (_, c) => [...new Set(grid.map((row) => row[c]))]
    .filter(Boolean).map(headerText).filter(Boolean).join(" · "));
}

function label(table) {
  if (!table.tHead || table.classList.contains("matrix")) return;
  const labels = columnLabels(table.tHead);
  if (labels.length <= 2) return;
  table.classList.add("stacks");
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      let c = 0;
      for (const cell of row.cells) {
        const text = cell.colSpan === 1 && cell.tagName === "TD" ? labels[c] : "";
        if (text) cell.dataset.label = text;
        else delete cell.dataset.label;
        c += cell.colSpan;
      }
    }
  }
}

// A hyphen that is not between two letters: a sign, a date, a move, a range.
const SIGNED = /(^|[^\p{L}])-|-(?!\p{L})/u;

function keepWhole(cell) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (SIGNED.test(node.data) && !node.parentElement.closest("pre, .nowrap")) nodes.push(node);
  }
  for (const node of nodes) {
    const parts = node.data.split(/(\S+)/);
    node.replaceWith(...parts.map((part) => (SIGNED.test(part)
      ? h("span", { class: "nowrap", text: part }) : part)));
  }
}

function scrollBoxes() {
  for (const table of document.querySelectorAll("main table")) {
    let box = table.parentElement;
    if (!box.classList.contains("table-scroll")) {
      box = h("div", { class: "table-scroll" });
      table.replaceWith(box);
      box.append(table);
    }
    box.dataset.wrapped = "1";
    table.querySelectorAll("td, th").forEach(keepWhole);
    label(table);
  }
  focusable();
}

function focusable() {
  for (const box of document.querySelectorAll(".table-scroll")) {
    const table = box.querySelector("table");
    if (!table) continue;
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    let cue = box.previousElementSibling?.classList.contains("scroll-cue")
      ? box.previousElementSibling : null;
    if (scrolls) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", `${named(table)} (scrolls sideways)`);
      // The region's name says it to a screen reader; the cue says it to the eye.
      cue ||= h("p", { class: "scroll-cue", "aria-hidden": "true",
        text: "More columns: scroll the table sideways →" });
      box.before(cue);
    } else {
      cue?.remove();
      if (box.tabIndex === 0) {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
  }
}

scrollBoxes();
window.addEventListener("resize", focusable);
// Pages that draw tables later (charts' data, results) ask again.
document.addEventListener("tables-changed", scrollBoxes);
