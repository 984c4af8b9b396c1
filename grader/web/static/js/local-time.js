// Every page: a date shown in a course's time zone (<time data-zone>) also gets the reader's own
// local time beside it, where the browser's zone is another one; the words the server wrote
// stay as they are (true in the course's zone), this only adds.

const zoneOf = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

// A zone's name as people know it at that instant: its letters where they are in use ("PST",
// "CET"), else its name in words ("India Standard Time"), never "GMT-8" or "GMT+5:30".
export function zoneWords(date, zone) {
  const named = (locale, style) => new Intl.DateTimeFormat(locale, {
    timeZone: zone, timeZoneName: style,
  }).formatToParts(date).find((part) => part.type === "timeZoneName").value;
  for (const locale of ["en-US", "en-GB"]) {
    const short = named(locale, "short");
    if (!/^(GMT|UTC)[+-]/.test(short)) return short;
  }
  return named("en-US", "long");
}

// As the server writes a date (zones.words): "Mon 15 Mar 2027, 04:59 CET".
export function format(date, zone) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: zone,
  }).formatToParts(date).map((part) => [part.type, part.value]));
  const { weekday, day, month, year, hour, minute } = parts;
  return `${weekday} ${day} ${month} ${year}, ${hour}:${minute} ${zoneWords(date, zone)}`;
}

export function addLocalTimes(root = document) {
  const mine = zoneOf();
  for (const time of root.querySelectorAll("time[data-zone]")) {
    if (!mine || time.dataset.zone === mine || time.dataset.localAdded) continue;
    const date = new Date(time.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    // Only where the two zones give another wall-clock time at that instant.
    if (format(date, mine) === format(date, time.dataset.zone)) continue;
    const note = document.createElement("span");
    note.className = "muted local-time";
    note.textContent = ` (your time: ${format(date, mine)}, ${mine})`;
    time.after(note);
    time.dataset.localAdded = "1";
  }
}

if (typeof document !== "undefined") addLocalTimes();
