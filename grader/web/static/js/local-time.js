// Every page: a date shown in a course's time zone (<time data-zone>) also gets the reader's own
// local time beside it, where the browser's zone is another one; the words the server wrote
// stay as they are (true in the course's zone), this only adds.

const zoneOf = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

// As the server writes a date (zones.words): "Mon 15 Mar 2027, 04:59 CET".
function format(date, zone) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: zone,
    timeZoneName: "short",
  }).formatToParts(date).map((part) => [part.type, part.value]));
  const { weekday, day, month, year, hour, minute, timeZoneName } = parts;
  return `${weekday} ${day} ${month} ${year}, ${hour}:${minute} ${timeZoneName}`;
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

addLocalTimes();
