// An 8x8 checkers board drawn as SVG from a FEN ("B:W21,22,K5:B1,2"), and a replay viewer
// that steps through a game's plies (each ply's FEN comes from the server, computed with
// grader.checkers, so the positions are exact). Black starts on 1-12 at the top.

import { h, svgEl } from "./dom.js";

const CELL = 40;

export function squareXY(square) {
  const row = Math.floor((square - 1) / 4);
  const col = 2 * ((square - 1) % 4) + (row % 2 === 0 ? 1 : 0);
  return { row, col };
}

export function parseFen(fen) {
  const pieces = new Map(); // square -> "b", "w", "B", "W"
  const parts = fen.trim().replace(/\.$/, "").split(":");
  const turn = parts[0].trim().toUpperCase();
  for (const field of parts.slice(1)) {
    const text = field.trim();
    if (!text) continue;
    const colour = text[0].toLowerCase();
    for (let item of text.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === "K" || item[0] === "k";
      if (king) item = item.slice(1);
      const [low, high] = item.includes("-") ? item.split("-").map(Number) : [Number(item), Number(item)];
      for (let s = low; s <= high; s += 1) pieces.set(s, king ? colour.toUpperCase() : colour);
    }
  }
  return { turn, pieces };
}

export class BoardView {
  constructor(container) {
    this.container = container;
  }

  // Draw `fen`; `move` ("11-15", "22x15x8") marks its squares.
  show(fen, move = null) {
    const { pieces } = parseFen(fen);
    const marked = new Set(move ? move.split(/[-x]/).map(Number) : []);
    const svg = svgEl("svg", { viewBox: `0 0 ${8 * CELL} ${8 * CELL}`, role: "img", class: "board",
      "aria-label": `board: ${fen}` });
    for (let row = 0; row < 8; row += 1) {
      for (let col = 0; col < 8; col += 1) {
        const dark = (row + col) % 2 === 1;
        svg.append(svgEl("rect", { x: col * CELL, y: row * CELL, width: CELL, height: CELL,
          class: dark ? "dark" : "light" }));
      }
    }
    for (let square = 1; square <= 32; square += 1) {
      const { row, col } = squareXY(square);
      const x = col * CELL;
      const y = row * CELL;
      const cell = svgEl("g", { "data-square": square });
      if (marked.has(square)) {
        cell.append(svgEl("rect", { x, y, width: CELL, height: CELL, class: "moved" }));
      }
      cell.append(svgEl("text", { x: x + 2, y: y + 12, class: "number", text: square }));
      const piece = pieces.get(square);
      if (piece) {
        const colour = piece.toLowerCase() === "b" ? "black" : "white";
        const king = piece === piece.toUpperCase();
        cell.append(svgEl("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.38,
          class: `piece ${colour}${king ? " king" : ""}`, "data-piece": piece,
          "data-square": square }));
        if (king) {
          cell.append(svgEl("text", { x: x + CELL / 2, y: y + CELL / 2 + 5,
            class: `crown ${colour}`, text: "K" }));
        }
      }
      svg.append(cell);
    }
    this.container.replaceChildren(svg);
  }
}

// A game's replay: the board, a move list, and first/back/forward/last buttons (and arrow keys).
export class GameReplay {
  constructor(root, game) {
    this.root = root;
    this.game = game;
    this.ply = 0;
    this.board = new BoardView(root.querySelector('[data-role="board"]'));
    this.counter = root.querySelector('[data-role="ply"]');
    this.moves = root.querySelector('[data-role="moves"]');
    this.moves.replaceChildren(...game.plies.slice(1).map((p) => {
      // Black moves first: odd plies are Black's, numbered as in a PDN move list.
      const button = h("button", { type: "button", class: "link move", "data-ply": p.ply,
        text: p.ply % 2 === 1 ? `${(p.ply + 1) / 2}. ${p.move}` : `… ${p.move}` });
      button.addEventListener("click", () => this.go(p.ply));
      return h("li", {}, button);
    }));
    for (const [action, step] of Object.entries({
      first: () => 0, back: () => this.ply - 1, forward: () => this.ply + 1, last: () => this.last,
    })) {
      root.querySelector(`[data-action="${action}"]`).onclick = () => this.go(step());
    }
    root.onkeydown = (event) => {
      if (event.key === "ArrowLeft") this.go(this.ply - 1);
      if (event.key === "ArrowRight") this.go(this.ply + 1);
    };
    this.go(0);
  }

  get last() {
    return this.game.plies.length - 1;
  }

  go(ply) {
    this.ply = Math.max(0, Math.min(this.last, ply));
    const current = this.game.plies[this.ply];
    this.board.show(current.fen, current.move);
    this.counter.textContent = `${this.ply} / ${this.last}`;
    for (const button of this.moves.querySelectorAll("button.move")) {
      const on = Number(button.dataset.ply) === this.ply;
      button.classList.toggle("current", on);
      if (on) {
        button.setAttribute("aria-current", "step");
        // The list follows the game: the current move stays in view as the board steps.
        button.scrollIntoView?.({ block: "nearest", inline: "nearest" });
      } else button.removeAttribute("aria-current");
    }
    this.root.querySelector('[data-action="back"]').disabled = this.ply === 0;
    this.root.querySelector('[data-action="first"]').disabled = this.ply === 0;
    this.root.querySelector('[data-action="forward"]').disabled = this.ply === this.last;
    this.root.querySelector('[data-action="last"]').disabled = this.ply === this.last;
  }
}
