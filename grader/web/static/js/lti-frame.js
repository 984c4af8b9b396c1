// A launch inside the LMS's frame (grader/web/lti_frame.py): the OIDC state kept in the
// platform's storage by postMessage (1EdTech LTI Client-Side postMessages, Platform Storage:
// lti.put_data at the login, lti.get_data at the launch), or, without a storage target, a check
// that this frame may keep cookies. Where neither works: the "Open in a new window" button.

const WAIT_MS = 8000; // a platform that never answers

function fallback() {
  const box = document.getElementById("lti-new-window");
  if (box) box.hidden = false;
}

function storageFrame(target) {
  if (window.parent === window) return null;
  if (target === "_parent") return window.parent;
  try {
    return window.parent.frames[target] || null;
  } catch {
    return null;
  }
}

function ask(box, subject, extra, done) {
  const frame = storageFrame(box.dataset.target);
  if (!frame) return fallback();
  const id = `${subject}-${Math.random().toString(36).slice(2)}`;
  const timer = setTimeout(fallback, WAIT_MS);
  window.addEventListener("message", (event) => {
    const data = event.data;
    // Only the registered platform's origin answers (the page names it, from the registration).
    if (event.origin !== box.dataset.origin || !data || data.message_id !== id) return;
    if (data.subject !== `${subject}.response`) return;
    clearTimeout(timer);
    if (data.error) return fallback();
    done(data);
  });
  frame.postMessage({ subject, message_id: id, key: box.dataset.key, ...extra }, box.dataset.origin);
}

function cookiesKept() {
  const name = "lti-cookie-check";
  document.cookie = `${name}=1; path=/; max-age=60; SameSite=None; Secure`;
  const kept = document.cookie.split("; ").some((c) => c === `${name}=1`);
  document.cookie = `${name}=; path=/; max-age=0; SameSite=None; Secure`;
  return kept;
}

document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("lti-frame");
  if (!box) return;
  const mode = box.dataset.mode;
  if (mode === "put") {
    ask(box, "lti.put_data", { value: box.dataset.key }, () => window.location.replace(box.dataset.next));
  } else if (mode === "get") {
    ask(box, "lti.get_data", {}, (data) => {
      const form = document.getElementById("lti-confirm");
      form.elements.state.value = typeof data.value === "string" ? data.value : "";
      form.submit();
    });
  } else if (mode === "cookie") {
    if (cookiesKept()) window.location.replace(box.dataset.next);
    else fallback();
  }
});
