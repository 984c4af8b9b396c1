// The exercise page: the tree with the inputs its kind asks for (the kind's own module,
// kinds/<kind>.js), submitting, the result drawn on the tree, and the replay of the reference
// search once the server sends it.

import { ApiError, getJSON, postJSON } from "./api.js";
import { h } from "./dom.js";
import { Refusal, loadKind } from "./kinds/kind.js";
import { SearchReplay } from "./search-replay.js";
import { buildTree } from "./tree-model.js";
import { TreeView } from "./tree-view.js";

/**
 * Mount the page in `root`, which holds [data-role=tree|hint|extra|submit|status|result|replay]
 * elements, and names its kind's module in data-kind-module. exercise: the API's exercise object.
 * urls: {attempts, listAttempts, attempt(id), headers (sent with the POST), replayAllowed,
 * isOwner, preview (a search to watch before answering)}. Resolves once the page is mounted.
 */
export async function mountExercise(root, exercise, urls) {
  const $ = (role) => root.querySelector(`[data-role="${role}"]`);
  const kind = await loadKind(root);
  const tree = buildTree(exercise.tree, exercise.players);
  const statusLine = $("status");
  const page = {
    tree,
    conventions: exercise.conventions,
    extra: $("extra"),
    status: (text) => { statusLine.textContent = text; },
  };
  let keyNote = () => "";
  let ui = null;
  // A graded node's verdict, as the drawing shows it (its colour and its ✓ or ✗).
  const graded = (path) => {
    const classes = page.view?.node(path)?.classList;
    if (!classes) return "";
    const first = classes.contains("first-wrong") ? "first wrong node" : "";
    const verdict = classes.contains("wrong") ? "wrong" : classes.contains("right") ? "right" : "";
    return [verdict, first].filter(Boolean).join(", ");
  };
  const view = new TreeView($("tree"), tree, {
    ...kind.spacing,
    title: `Game tree of exercise ${exercise.id}`,
    onActivate: (path) => ui?.activate(path),
    describe: (path) => [ui?.describe(path), graded(path), keyNote(path)].filter(Boolean).join(", "),
  });
  view.host.classList.add("interactive");
  page.view = view;
  // The page's skip link lands on the tree's node in hand, where the arrow keys work.
  const skip = document.querySelector(`a[data-role="skip-link"][href="#${CSS.escape($("tree").id || "-")}"]`);
  skip?.addEventListener("click", (event) => {
    event.preventDefault();
    view.focus(view.focused);
  });
  ui = kind.create(page);
  $("hint").textContent = ui.hint;
  view.refreshLabels();

  const result = $("result");
  const replayBox = $("replay");
  let replay = null;
  let firstWrong = null;
  // The reference search (the replay) is the exercise's, the same for every attempt: an
  // attempt's response leaves it out, so the page reads it once, from the attempt itself.
  let reference = null;

  /** The attempt with the reference search, where its solution may be shown and replayed. */
  async function withReference(attempt) {
    const solution = attempt.solution;
    if (!solution || solution.replays || urls.replayAllowed === false) return attempt;
    if (solution.search) reference = solution.search;
    else if (!reference && urls.attempt) {
      reference = (await getJSON(urls.attempt(attempt.attempt_id)).catch(() => null))?.solution?.search ?? null;
    }
    return reference ? { ...attempt, solution: { ...solution, search: reference } } : attempt;
  }

  /** Bring the first wrong node into view, in the tree and on the page. */
  function showFirstWrong() {
    if (firstWrong === null) return;
    view.reveal(firstWrong, { force: true });
    view.node(firstWrong).scrollIntoView?.({ block: "center", inline: "nearest" });
  }

  function clearResult() {
    view.clearClass("right", "wrong", "first-wrong");
    if (!ui.ownsMarks) for (const path of tree.bfs) view.setMark(path, "");
    for (const el of root.querySelectorAll(".node-input")) el.classList.remove("right", "wrong");
    for (const el of root.querySelectorAll(".node-input .expected")) el.remove();
    keyNote = () => "";
  }
  // The answer changed since the result: its marks on the tree go (the result's words stay).
  page.stale = () => {
    clearResult();
    firstWrong = null;
    view.refreshLabels();
  };

  function showAttempt(attempt) {
    clearResult();
    if (ui.ownsMarks) ui.draw();
    // What lateness cost (slip days spent, a penalty): the server's words, held or not.
    const late = attempt.late_words
      ? h("p", { class: "late", "data-role": "late-spent", text: attempt.late_words }) : "";
    if (attempt.score === null) { // held until the assignment's release: the server's words
      result.replaceChildren(h("h2", { text: "Result" }),
        h("p", { class: "held", "data-role": "held", text: attempt.held_words }), late);
      result.hidden = false;
      return;
    }
    const percent = Math.round(attempt.score * 100);
    const parts = Object.entries(attempt.parts || {})
      .map(([k, v]) => `${k.replace("_", " ")} ${typeof v === "number" ? `${Math.round(v * 100)}%` : v}`);
    const items = [
      h("p", { class: `score ${attempt.score >= 1 ? "full" : "partial"}`, "data-role": "score" },
        h("strong", { text: "Score: " }), `${attempt.score.toFixed(2)} (${percent}%)`,
        parts.length ? h("span", { class: "parts", text: ` — share right: ${parts.join(", ")}` }) : ""),
    ];
    // How the score came about: the errors counted and the rule (the server's words).
    if (late) items.push(late);
    if (attempt.scoring_words) {
      items.push(h("p", { class: "scoring", "data-role": "scoring" },
        h("strong", { text: "How it was scored: " }), attempt.scoring_words));
    }
    if (attempt.diagnosis_text) {
      items.push(h("p", { class: "diagnosis", "data-role": "diagnosis" },
        h("strong", { text: "Diagnosis: " }), attempt.diagnosis_text));
    }
    // Steps name places in the replay: without the replay, the nodes alone say where.
    const locked = !(attempt.solution && attempt.solution.search && urls.replayAllowed !== false);
    const words = (text) => (locked ? text.replace(/ \(step \d+\)/g, "") : text);
    const others = (attempt.feedback || []).filter((f) => f !== attempt.diagnosis_text
      && f !== attempt.first_wrong?.message).map(words);
    if (others.length) items.push(h("ul", { class: "feedback" }, ...others.map((f) => h("li", { text: f }))));
    const wrong = attempt.first_wrong;
    if (wrong) {
      const where = h("p", { class: "first-wrong", "data-role": "first-wrong" },
        h("strong", { text: locked ? `First wrong node: ${wrong.label}` : `First wrong step, at ${wrong.label}` }),
        !locked && wrong.step !== null && wrong.step !== undefined ? ` (step ${wrong.step})` : "",
        `: ${words(wrong.message)}`);
      items.push(where);
    }
    const solution = attempt.solution;
    if (solution && solution.key) keyNote = ui.grade(solution.key, attempt.answer) || (() => "");
    else if (attempt.score < 1) {
      items.push(h("p", { class: "muted", "data-role": "no-key",
        text: `The key and the replay are shown ${exercise.solution_when}.` }));
    }
    if (wrong && tree.nodes.has(wrong.path)) {
      // Where the search first departs from the answer (often a cut node, itself right).
      view.setClass(wrong.path, "first-wrong", true);
      if (!view.node(wrong.path).querySelector(".mark").textContent) view.setMark(wrong.path, "!");
    }
    firstWrong = wrong && tree.nodes.has(wrong.path) ? wrong.path : null;
    result.replaceChildren(h("h2", { text: "Result" }), ...items);
    result.hidden = false;
    view.refreshLabels();
    if (solution && urls.replayAllowed !== false) {
      if (solution.replays) openOrderReplays(solution.replays, wrong);
      else if (solution.search) openReplay(solution.search, wrong);
    }
  }

  // Best order: the search of the student's order and of the best one, on the same drawing.
  function openOrderReplays(replays, wrong) {
    let picker = replayBox.querySelector("[data-replay=orders]");
    if (!picker) {
      picker = h("div", { class: "replay-orders", "data-replay": "orders", role: "group",
        "aria-label": "Which order to replay" });
      replayBox.querySelector("h2").after(picker);
    }
    const buttons = [["yours", "Your order"], ["best", "The best order"]].map(([name, text]) =>
      h("button", { type: "button", "data-order": name, "aria-pressed": "false",
        text: `${text} (${replays[name].leaf_order.length} leaves)` }));
    picker.replaceChildren(...buttons);
    const show = (name) => {
      for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.order === name));
      openReplay(replays[name], name === "yours" ? wrong : null);
    };
    for (const b of buttons) b.addEventListener("click", () => show(b.dataset.order));
    show("yours");
  }

  function openReplay(search, wrong) {
    replayBox.hidden = false;
    const stage = replayBox.querySelector("[data-replay=tree]");
    const controls = replayBox.querySelector("[data-replay=controls]");
    const leaves = tree.bfs.filter((p) => tree.nodes.get(p).leaf).length;
    // The notes' room beside each node is kept by the layout (SearchReplay sets it).
    const replayView = new TreeView(stage, tree, { leafGap: leaves > 27 ? 44 : 52, rowGap: 84,
      title: "Replay of the reference search" });
    replayView.host.classList.add("replay-tree");
    // Best order: `search` is the answer's (or the best) order mapped onto this drawing.
    replay?.destroy();
    replay = new SearchReplay(replayView, tree, search, controls);
    const jump = replayBox.querySelector("[data-replay=first-wrong]");
    if (jump) {
      jump.hidden = !(wrong && wrong.step !== null && wrong.step !== undefined);
      jump.onclick = () => { replay.pause(); replay.show(wrong.step); };
    }
  }

  // Practice: the replay can be watched before answering (nothing is graded here).
  $("watch")?.addEventListener("click", () => {
    if (!urls.preview) return;
    openReplay(urls.preview, null);
    replayBox.scrollIntoView?.({ block: "start" });
    replayBox.querySelector("[data-replay=play]")?.focus();
  });

  /** The box at fault marked (aria-invalid, and the page's style for it); null: none is. */
  function markInvalid(input) {
    for (const box of root.querySelectorAll("[aria-invalid=true]")) box.removeAttribute("aria-invalid");
    if (input) input.setAttribute("aria-invalid", "true");
  }
  // Typing in a box marked at fault takes the mark away.
  root.addEventListener("input", (e) => {
    if (e.target.getAttribute?.("aria-invalid") === "true") e.target.removeAttribute("aria-invalid");
  });

  /** An answer not graded: the words in the status line, the box at fault marked and focused,
   * and the last result off the screen (it was about another answer). */
  function refuse(words, input) {
    page.status(words);
    markInvalid(input);
    clearResult();
    firstWrong = null;
    result.replaceChildren();
    result.hidden = true;
    view.refreshLabels();
    input?.focus();
  }

  // Graded work with a limit: once every attempt is used, Submit says so and stays off.
  const used = { count: exercise.attempts_used };
  function limitReached() {
    const allowed = exercise.attempts_allowed;
    if (exercise.practice || allowed === null || allowed === undefined || used.count < allowed) return false;
    const button = $("submit");
    if (button) {
      button.disabled = true;
      button.setAttribute("aria-describedby", "attempts-done");
    }
    if (!root.querySelector("#attempts-done")) {
      button?.after(h("span", { id: "attempts-done", class: "attempts-done", "data-role": "attempts-done",
        text: `You have used all ${allowed} attempts; the best one counts.` }));
    }
    return true;
  }
  limitReached();

  // An answer is kept in this browser from Submit until it is graded or refused on its merits,
  // so a session that ended meanwhile loses nothing: after signing in it is back in the boxes.
  const unsentKey = `grader:unsent:${urls.attempts}`;
  const unsent = {
    keep(answer) { try { localStorage.setItem(unsentKey, JSON.stringify(answer)); } catch { /* storage off */ } },
    read() { try { return JSON.parse(localStorage.getItem(unsentKey) || "null"); } catch { return null; } },
    forget() { try { localStorage.removeItem(unsentKey); } catch { /* storage off */ } },
  };

  /** Signed out (the session ended): the refusal in words, sign-in offered in place (back to this
   * page), and the header no longer offering to log out. */
  function signedOut() {
    refuse("Not graded: you are signed out (your session ended). Your answer is kept in this "
      + "browser; sign in again and it is back in the boxes.", null);
    const next = encodeURIComponent(location.pathname + location.search);
    const link = h("a", { href: `${root.dataset.loginUrl || "/login"}?next=${next}`, "data-role": "sign-in",
      text: "Sign in again" });
    root.querySelector("[data-role=sign-in]")?.remove();
    statusLine.after(link);
    const logout = document.querySelector('header form[action$="/logout"]');
    if (logout) logout.replaceWith(h("a", { href: link.href, text: "Log in" }));
    link.focus();
  }

  $("submit")?.addEventListener("click", async () => {
    let answer;
    try {
      answer = ui.answer();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      refuse(error.message, error.input);
      return;
    }
    unsent.keep(answer);
    markInvalid(null);
    const button = $("submit");
    button.disabled = true;
    page.status("Submitting…");
    try {
      // The body is the answer, or what a page adds to it (a paper sheet's entry: its version).
      const attempt = await postJSON(urls.attempts, urls.body ? urls.body(answer) : { answer }, urls.headers);
      used.count += 1;
      unsent.forget();
      page.status("Submitted.");
      showAttempt(await withReference(attempt));
      if (firstWrong !== null) showFirstWrong();
      else result.scrollIntoView?.({ block: "nearest" });
      // Focus goes to the result (the button is off while the answer is sent); its region
      // announces it.
      result.focus({ preventScroll: true });
      root.dispatchEvent(new CustomEvent("attempt", { detail: attempt }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) signedOut();
      else {
        unsent.forget(); // refused on its merits, said here: nothing to bring back later
        refuse(error instanceof ApiError ? `Not graded: ${error.message}` : String(error), null);
      }
    } finally {
      button.disabled = false;
      limitReached();
    }
  });

  // The latest attempt, if any, so a reload shows the result and the replay again (the list
  // leaves solutions out; the attempt itself has it where it may be shown).
  if (urls.listAttempts) {
    (async () => {
      const data = await getJSON(urls.listAttempts);
      const latest = data?.attempts?.[0];
      if (!latest) return;
      const full = await withReference(urls.attempt ? await getJSON(urls.attempt(latest.attempt_id)) : latest);
      if (!root.dataset.answered) {
        ui.restore(full.answer);
        showAttempt(full);
      }
    })().catch(() => {});
  }
  root.addEventListener("attempt", () => { root.dataset.answered = "1"; });
  // An answer Submit could not send: back in the boxes (in place of the latest attempt's).
  const kept = unsent.read();
  if (kept) {
    try {
      ui.restore(kept);
      root.dataset.answered = "1";
      page.status("Your answer from before you were signed out is back in the boxes: Submit sends it.");
    } catch {
      unsent.forget(); // not an answer to this exercise any more
    }
  }
  return { view, ui, showAttempt };
}
