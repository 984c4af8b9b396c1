// The results page of an engine submission: polls the API every second while queued or
// running (tests n of m, game n of m), then draws the verdict table and the games, each of
// which opens in the game replay viewer, and puts in the search-time chart the server draws
// (web/charts.py; the page has it already when it was graded before the page opened).

import { getJSON } from "./api.js";
import { GameReplay } from "./board-view.js";
import { h } from "./dom.js";

const page = JSON.parse(document.getElementById("engine-data").textContent);
const $ = (role) => document.querySelector(`[data-role="${role}"]`);

function cell(text, className = null) {
  return h("td", { class: className, text });
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

async function showChart() {
  const box = $("chart");
  if (box.childElementCount) return; // drawn with the page
  let response;
  try {
    response = await fetch(page.timing_url, { credentials: "same-origin" });
  } catch {
    return; // the rest of the results stand without it
  }
  if (!response.ok) return;
  const drawn = new DOMParser().parseFromString(await response.text(), "text/html");
  box.replaceChildren(...drawn.body.childNodes);
}

async function openGame(number) {
  const game = await getJSON(page.game_url_template.replace("{n}", String(number)));
  const viewer = $("viewer");
  viewer.hidden = false;
  $("viewer-title").textContent = `Replay: ${game.name || `game ${number + 1}`} (${game.result})`;
  $("download-pdn").href = page.pdn_url_template.replace("{n}", String(number));
  new GameReplay(viewer, game);
  viewer.scrollIntoView({ block: "nearest" });
}

async function showResults(data) {
  const s = data.summary;
  await showChart();
  $("results").hidden = false;
  $("score").textContent = `Score: ${data.score} / ${data.max_score}`;
  $("elo").textContent = s.elo && s.elo.games ? `Elo against the ladder: ${s.elo.text}` : "";
  $("summary").textContent = data.results ? data.results.output : "";
  const body = $("verdicts").querySelector("tbody");
  // Identical failures come grouped (one row naming every test that failed the same way).
  body.replaceChildren(...(s.rows || s.tests).map((t) => {
    // A test worth 0 points (an optional one) is not graded: neither passed nor failed.
    const ungraded = t.max_score === 0;
    const tr = h("tr", { class: ungraded ? "ungraded" : t.verdict === "passed" ? "passed" : "failed" });
    const names = t.names || [t.name];
    const name = cell(names.length > 1 ? `${names.length} tests failed the same way` : t.name);
    if (names.length > 1) {
      name.dataset.role = "group";
      name.append(h("details", {}, h("summary", { text: "which" }),
        h("ul", {}, ...names.map((n) => h("li", { text: n })))));
    }
    const verdict = ungraded ? `not graded (${t.verdict})` : t.verdict;
    tr.append(name, cell(verdict, "verdict"), cell(`${t.score} / ${t.max_score}`),
      cell(t.cpu.toFixed(2)), cell(t.wall.toFixed(2)));
    tr.append(h("td", {}, h("pre", { text: t.output || "" })));
    return tr;
  }));
  const games = $("games").querySelector("tbody");
  games.replaceChildren(...s.games.map((g) => {
    const button = h("button", { type: "button", "data-game": g.number, text: "Replay" });
    button.addEventListener("click", () => openGame(g.number));
    return h("tr", {}, cell(g.name), cell(g.opponent || ""), cell(g.colour || ""),
      cell(g.result || ""), cell(String(g.plies ?? "")), h("td", {}, button));
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
  // The results (the chart fetched too) are in before the status says "done".
  if (data.status === "done" && data.summary) await showResults(data);
  showProgress(data);
  if (data.status === "queued" || data.status === "running") setTimeout(poll, 1000);
}

poll();
