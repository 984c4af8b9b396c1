// Every page: wide tables scroll inside their own box, never the page sideways. A box that
// scrolls takes keyboard focus (arrow keys scroll it) and is named after its table.

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

function scrollBoxes() {
  for (const table of document.querySelectorAll("main table")) {
    let box = table.parentElement;
    if (!box.classList.contains("table-scroll")) {
      box = h("div", { class: "table-scroll" });
      table.replaceWith(box);
      box.append(table);
    }
    box.dataset.wrapped = "1";
  }
  focusable();
}

function focusable() {
  for (const box of document.querySelectorAll(".table-scroll")) {
    const table = box.querySelector("table");
    if (!table) continue;
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", `${named(table)} (scrolls sideways)`);
    } else if (box.tabIndex === 0) {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }
}

scrollBoxes();
window.addEventListener("resize", focusable);
// Pages that draw tables later (charts' data, results) ask again.
document.addEventListener("tables-changed", scrollBoxes);
