// The paper exam's print page: each unfinished run's progress, asked again every second until
// the worker is done, then its files.

import { getJSON } from "./api.js";
import { h } from "./dom.js";

async function follow(row) {
  for (;;) {
    let run;
    try {
      run = await getJSON(row.dataset.statusUrl);
    } catch {
      return;
    }
    const cell = row.querySelector("[data-role=status]");
    row.dataset.status = run.status;
    if (run.status === "done") {
      cell.textContent = "done";
      row.querySelector("[data-role=files]").replaceChildren(...Object.entries(run.files).flatMap(
        ([name, url], i) => [i ? " · " : "", h("a", { href: url, download: true, text: name })]));
      return;
    }
    if (run.status === "failed") {
      cell.textContent = `failed: ${run.error}`;
      return;
    }
    const progress = run.progress || {};
    const bar = cell.querySelector("progress");
    if (bar) {
      bar.max = progress.total || 1;
      bar.value = progress.done || 0;
    }
    const phase = cell.querySelector("[data-role=phase]");
    const words = { queued: "waiting for a worker", sheets: "making the sheets", render: "drawing the PDFs", join: "joining the PDFs", store: "storing the files", files: "writing the files" };
    if (phase) phase.textContent = `${words[progress.phase] || run.status}${progress.total ? ` (${progress.done} of ${progress.total})` : ""}`;
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
  }
}

for (const row of document.querySelectorAll("tr[data-run]")) {
  if (row.dataset.status !== "done" && row.dataset.status !== "failed") follow(row);
}
