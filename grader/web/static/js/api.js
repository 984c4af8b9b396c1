// Small fetch helpers for the JSON API: same-origin cookies, extra headers (the page's CSRF
// token), errors as ApiError with the server's message.

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

async function request(method, url, { body, headers: extra = {} } = {}) {
  const headers = { Accept: "application/json", ...extra };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data && data.error) || `${response.status} ${response.statusText}`;
    throw new ApiError(message, response.status, data);
  }
  return data;
}

export function getJSON(url) {
  return request("GET", url);
}

export function postJSON(url, body, headers = {}) {
  return request("POST", url, { body, headers });
}
