// The results page of an engine submission: polls the API every second while queued or
// running (tests n of m, game n of m), then draws what to fix first (the failed tests grouped
// by the mistake or verdict they share, services/engines/results.py: each test's position, what came
// back and what was expected), the passed tests folded to one line per kind, and the games,
// each of which opens in the game replay viewer; the search-time chart is the server's
// (web/charts.py; the page has it already when it was graded before the page opened).

import { getJSON } from "./api.js";
import { GameReplay } from "./board-view.js";
import { h } from "./dom.js";
import { outcomeWords } from "./game-outcome.js";
import { firstVerdictWords, queueWords } from "./upload-words.js";

const page = JSON.parse(document.getElementById("engine-data").textContent);
const $ = (role) => document.querySelector(`[data-role="${role}"]`);

function cell(text, className = null) {
  return h("td", { class: className, text });
}

function showProgress(data) {
  $("status").textContent = data.status;
  $("queue").textContent = data.status === "queued" && data.queue_position !== null
    ? `(${queueWords(data.queue_position, data.estimated_seconds)})` : "";
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
  const first = $("first-verdict");
  first.hidden = !data.first_verdict;
  first.textContent = data.first_verdict ? firstVerdictWords(data.first_verdict) : "";
  const deferred = $("timing-deferred"); // the machine was busy: timed again later
  deferred.hidden = !data.timing_deferred;
  deferred.textContent = data.timing_deferred ? `${data.timing_deferred.words}.` : "";
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

async function openGame(number, colour) {
  const game = await getJSON(page.game_url_template.replace("{n}", String(number)));
  const viewer = $("viewer");
  viewer.hidden = false;
  const name = game.name || `game ${number + 1}`;
  $("viewer-title").textContent = `Replay: ${name}, ${outcomeWords(game.result, colour)}`;
  $("download-pdn").href = page.pdn_url_template.replace("{n}", String(number));
  new GameReplay(viewer, game);
  viewer.scrollIntoView({ block: "nearest" });
}

const points = (x) => String(Number((x ?? 0).toFixed(2)));

// A failed test's row: what it tests and where, what came back against what was expected (a
// line per wrong part; the verdict's first line where the answer never came), its points.
function failedRow(t) {
  const names = t.names || [t.name];
  const test = cell(names.length > 1 ? `${names.length} tests failed the same way` : t.test);
  if (names.length > 1) {
    test.dataset.role = "group";
    test.append(h("details", {}, h("summary", { text: "which" }),
      h("ul", {}, ...names.map((n) => h("li", { text: n })))));
  }
  const differs = t.differs || [];
  const got = h("td", { class: "got" }, ...(differs.length
    ? differs.map((d) => h("div", { text: `${d.what}: ${d.got}` }))
    : [h("div", { text: (t.output || t.verdict).split("\n")[0] })]));
  got.append(h("details", { class: "output" }, h("summary", { text: "full output" }),
    h("p", { class: "muted", text: `${t.verdict} · CPU ${t.cpu.toFixed(2)} s · wall ${t.wall.toFixed(2)} s` }),
    h("pre", { text: t.output || "" })));
  const expected = h("td", { class: "expected" }, ...(differs.length
    ? differs.map((d) => h("div", { text: `${d.what}: ${d.expected}` }))
    : [h("div", { class: "muted", text: "—" })]));
  return h("tr", { class: "failed" }, test, cell(names.length > 1 ? "" : t.position, "position"),
    got, expected, cell(`${points(t.score)} / ${points(t.max_score)}`, "num"));
}

function failedGroup(g) {
  return h("section", { class: "failed-group", "data-role": "failed-group",
    "data-code": g.code, "data-verdict": g.verdict },
  h("h4", { text: g.title }),
  g.about ? h("p", { text: g.about }) : "",
  h("p", { class: "muted", text: `${points(g.lost)} points lost · ${g.verdicts}` }),
  h("table", { class: "verdicts" },
    h("thead", {}, h("tr", {}, ...["Test", "Position", "Came back", "Expected", "Points"].map(
      (name) => h("th", { scope: "col", class: name === "Points" ? "num" : null, text: name })))),
    h("tbody", {}, ...g.rows.map(failedRow))));
}

// One line per test kind, "Move generation 13/13", that opens on the tests themselves.
function passedKind(k) {
  const line = [];
  if (k.graded) line.push(h("strong", { text: `${k.passed}/${k.graded}` }), " passed");
  if (k.ungraded.length) {
    line.push(`${k.graded ? "; " : ""}${k.ungraded.length} optional (worth 0 points), not graded`);
  }
  const items = [
    ...k.tests.map((t) => h("li", { text: t.score < t.max_score
      ? `${t.name}: ${points(t.score)} of ${points(t.max_score)} points` : t.name })),
    ...k.ungraded.map((t) => h("li", { text: `${t.name}: not graded (${t.verdict})` })),
  ];
  return h("li", { "data-kind": k.kind },
    h("details", {}, h("summary", {}, h("span", { class: "kind", text: k.title }), " ", ...line),
      h("ul", {}, ...items)));
}

async function showResults(data) {
  const s = data.summary;
  await showChart();
  $("results").hidden = false;
  $("score").textContent = `Score: ${data.score} / ${data.max_score}`;
  $("elo").textContent = s.elo && s.elo.games ? `Elo against the ladder: ${s.elo.text}` : "";
  $("summary").textContent = data.results ? data.results.output : "";
  $("failed").replaceChildren(...(s.failed.length ? s.failed.map(failedGroup)
    : [h("p", { text: "Nothing: every graded test passed." })]));
  $("passed").replaceChildren(...(s.passed.length ? s.passed.map(passedKind)
    : [h("li", { text: "No test passed." })]));
  const games = $("games").querySelector("tbody");
  games.replaceChildren(...s.games.map((g) => {
    const button = h("button", { type: "button", "data-game": g.number, text: "Replay" });
    button.addEventListener("click", () => openGame(g.number, g.colour));
    const colour = g.colour ? g.colour[0].toUpperCase() + g.colour.slice(1) : "";
    return h("tr", {}, cell(g.name), cell(g.opponent || ""), cell(colour),
      cell(outcomeWords(g.result, g.colour)), cell(String(g.plies ?? ""), "num"), h("td", {}, button));
  }));
  $("matches").querySelector("tbody").replaceChildren(...(s.matches || []).map((m) =>
    h("tr", {}, cell(m.opponent), cell(String(m.played), "num"), cell(String(m.games), "num"),
      cell(m.why))));
  document.dispatchEvent(new Event("tables-changed")); // page.js: scroll boxes, phone labels
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
