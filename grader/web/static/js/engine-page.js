// The results page of an engine submission: polls the API every second while queued or
// running (tests n of m, game n of m), then draws the verdict table, the search-time chart
// and the games, each of which opens in the board replay viewer.

import { getJSON } from "./api.js";
import { Replay } from "./board-view.js";

const SVG = "http://www.w3.org/2000/svg";
const page = JSON.parse(document.getElementById("engine-data").textContent);
const $ = (role) => document.querySelector(`[data-role="${role}"]`);

function cell(text, className = "") {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function showProgress(data) {
  $("status").textContent = data.status;
  $("queue").textContent = data.status === "queued" && data.queue_position !== null
    ? `(${data.queue_position} ahead in the queue)` : "";
  const p = data.progress || {};
  const running = data.status === "running" && p.tests_total;
  $("progress").hidden = !running;
  if (running) {
    $("tests-text").textContent = `${p.tests_done} of ${p.tests_total}`;
    $("tests-bar").max = p.tests_total;
    $("tests-bar").value = p.tests_done;
    $("games-text").textContent = `${p.games_done || 0} of ${p.games_total || 0}`;
    $("games-bar").max = Math.max(1, p.games_total || 0);
    $("games-bar").value = p.games_done || 0;
    $("label").textContent = p.label || "";
  }
  const error = $("error");
  error.hidden = !data.error;
  error.textContent = data.error || "";
}

/** A round number at or above `value` (1, 2 or 5 times a power of ten), for the axis's top. */
function niceMax(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= value) ?? 10 * power;
}

function drawChart(rows) {
  const box = $("chart");
  if (!rows.length) {
    box.textContent = "This suite has no timing test.";
    return;
  }
  // The legend has its own row above the plot, so no bar can reach it.
  const width = 560;
  const height = 260;
  const left = 64;
  const top = 34;
  const bottom = 40;
  const plot = height - bottom - top;
  const max = niceMax(Math.max(...rows.flatMap((r) => [r.cpu, r.reference_cpu]), 1e-3));
  const slot = (width - left - 10) / rows.length;
  const bar = Math.max(4, slot / 2 - 4);
  const scale = (v) => plot * (v / max);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "search CPU seconds per depth, yours and the reference's");
  const add = (name, attrs, text) => {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  // The y axis: a scale in seconds with grid lines at each quarter.
  const digits = max >= 1 ? 1 : Math.min(4, 1 - Math.floor(Math.log10(max)));
  for (let i = 0; i <= 4; i += 1) {
    const value = (max * i) / 4;
    const y = height - bottom - scale(value);
    add("line", { x1: left, y1: y, x2: width - 4, y2: y, class: i ? "grid" : "axis" });
    add("text", { x: left - 6, y: y + 4, class: "tick y-tick", "text-anchor": "end" },
      `${value.toFixed(digits)} s`);
  }
  add("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "axis" });
  add("text", { x: 12, y: top + plot / 2, class: "tick axis-label", "text-anchor": "middle",
    transform: `rotate(-90 12 ${top + plot / 2})` }, "CPU seconds");
  rows.forEach((r, i) => {
    const x = left + i * slot + 2;
    const mine = add("rect", { x, y: height - bottom - scale(r.cpu), width: bar,
      height: scale(r.cpu), class: "mine" });
    mine.append(Object.assign(document.createElementNS(SVG, "title"),
      { textContent: `you: ${r.cpu.toFixed(3)} s` }));
    const ref = add("rect", { x: x + bar + 2, y: height - bottom - scale(r.reference_cpu),
      width: bar, height: scale(r.reference_cpu), class: "reference" });
    ref.append(Object.assign(document.createElementNS(SVG, "title"),
      { textContent: `reference: ${r.reference_cpu.toFixed(3)} s` }));
    add("text", { x, y: height - bottom + 14, class: "tick" }, `d${r.depth}`);
    add("text", { x, y: height - bottom + 28, class: "tick" }, r.position.slice(0, 10));
  });
  add("rect", { x: left, y: 8, width: 12, height: 12, class: "mine legend" });
  add("text", { x: left + 16, y: 18, class: "tick" }, "you");
  add("rect", { x: left + 60, y: 8, width: 12, height: 12, class: "reference legend" });
  add("text", { x: left + 76, y: 18, class: "tick" }, "reference");
  box.replaceChildren(svg);
}

async function openGame(number) {
  const game = await getJSON(page.game_url_template.replace("{n}", String(number)));
  const viewer = $("viewer");
  viewer.hidden = false;
  $("viewer-title").textContent = `Replay: ${game.name || `game ${number + 1}`} (${game.result})`;
  $("download-pdn").href = page.pdn_url_template.replace("{n}", String(number));
  new Replay(viewer, game);
  viewer.scrollIntoView({ block: "nearest" });
}

function showResults(data) {
  const s = data.summary;
  $("results").hidden = false;
  $("score").textContent = `Score: ${data.score} / ${data.max_score}`;
  $("elo").textContent = s.elo && s.elo.games ? `Elo against the ladder: ${s.elo.text}` : "";
  $("summary").textContent = data.results ? data.results.output : "";
  const body = $("verdicts").querySelector("tbody");
  // Identical failures come grouped (one row naming every test that failed the same way).
  body.replaceChildren(...(s.rows || s.tests).map((t) => {
    const tr = document.createElement("tr");
    tr.className = t.verdict === "passed" ? "passed" : "failed";
    const names = t.names || [t.name];
    const name = cell(names.length > 1 ? `${names.length} tests failed the same way` : t.name);
    if (names.length > 1) {
      name.dataset.role = "group";
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "which";
      const list = document.createElement("ul");
      list.append(...names.map((n) => { const li = document.createElement("li"); li.textContent = n; return li; }));
      details.append(summary, list);
      name.append(details);
    }
    tr.append(name, cell(t.verdict, "verdict"), cell(`${t.score} / ${t.max_score}`),
      cell(t.cpu.toFixed(2)), cell(t.wall.toFixed(2)));
    const why = cell("");
    const pre = document.createElement("pre");
    pre.textContent = t.output || "";
    why.append(pre);
    tr.append(why);
    return tr;
  }));
  drawChart(s.timing);
  const games = $("games").querySelector("tbody");
  games.replaceChildren(...s.games.map((g) => {
    const tr = document.createElement("tr");
    tr.append(cell(g.name), cell(g.opponent || ""), cell(g.colour || ""), cell(g.result || ""),
      cell(String(g.plies ?? "")));
    const td = document.createElement("td");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Replay";
    button.dataset.game = String(g.number);
    button.addEventListener("click", () => openGame(g.number));
    td.append(button);
    tr.append(td);
    return tr;
  }));
}

async function poll() {
  let data;
  try {
    data = await getJSON(page.submission_url);
  } catch (error) {
    $("error").hidden = false;
    $("error").textContent = `could not reach the server: ${error.message}`;
    setTimeout(poll, 3000);
    return;
  }
  showProgress(data);
  if (data.status === "queued" || data.status === "running") {
    setTimeout(poll, 1000);
  } else if (data.status === "done" && data.summary) {
    showResults(data);
  }
}

poll();
