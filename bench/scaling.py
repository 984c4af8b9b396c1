"""grader_desired_workers replayed on the deadline hour's trace: does the signal rise before the
queue does?

The arrivals are `bench.deadline`'s (300 uploads over the real hour, most in its last quarter);
each upload's grading takes the seconds given (`--grading-seconds`, or each upload's time from a
run saved by `bench.deadline --save`); `--slots` grading slots serve them first come first
served, as in the deadline run (one `grader worker --workers 2`). Each student is taken to open
the engine slot's page `--page-lead` minutes before uploading: no trace of page visits exists, so
that lead is an assumption, and the output says so.

Second by second, the replay computes what `/metrics` would say (`services.metrics`: the same
`desired_workers` and `peak_overlap`) and, as its peer, what a queue-length trigger would ask
for (KEDA's Redis list trigger with `listLength` = the slots a worker has: the messages waiting
divided by it). It prints when each first asks for more workers than there are, how far ahead
the signal is, and writes the hour as a PNG (`--png`): queue depth, the signal and the peer.

    .venv/bin/python -m bench.scaling --grading-seconds 8.3 --png docs/img/desired-workers.png

Arithmetic on a trace, not a run: it measures the rule, not the service.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import math
from pathlib import Path

from bench.deadline import arrivals
from grader.services.metrics import VISITOR_MINUTES, desired_workers, peak_overlap

EPOCH = dt.datetime(2026, 12, 4, 23, 0)


def replay(
    grading: list[float],
    *,
    hour: float,
    slots: int,
    page_lead: float,
    hold: float,
    headroom: float,
    uploads_per_visitor: float,
) -> list[dict[str, float]]:
    """The hour second by second: queued, running, the signal and the peer."""
    times = arrivals(len(grading), hour)
    free = [0.0] * slots
    starts, ends = [], []
    for arrival, seconds in zip(times, grading, strict=True):
        soonest = min(range(slots), key=free.__getitem__)
        start = max(arrival, free[soonest])
        free[soonest] = start + seconds
        starts.append(start)
        ends.append(start + seconds)
    visits = [arrival - page_lead * 60 for arrival in times]
    series = []
    for second in range(int(max(ends)) + 60):
        now = float(second)
        queued = sum(1 for a, s in zip(times, starts, strict=True) if a <= now < s)
        running = sum(1 for s, e in zip(starts, ends, strict=True) if s <= now < e)
        visitors = sum(
            1
            for v, a in zip(visits, times, strict=True)
            if v <= now and now - v < VISITOR_MINUTES * 60
        )
        spans = [
            (
                EPOCH + dt.timedelta(seconds=max(a, now - hold * 60)),
                EPOCH + dt.timedelta(seconds=e) if e <= now else None,
            )
            for a, e in zip(times, ends, strict=True)
            if a <= now and e >= now - hold * 60
        ]
        held = peak_overlap(spans, EPOCH + dt.timedelta(seconds=now))
        signal = desired_workers(
            ungraded=queued + running,
            running=running,
            held_ungraded=held,
            visitors=visitors,
            upload_seconds=sum(grading) / len(grading),
            slots_per_worker=slots,
            headroom=headroom,
            uploads_per_visitor=uploads_per_visitor,
        )
        peer = max(1, math.ceil(queued / slots))
        series.append(
            {
                "second": now,
                "queued": queued,
                "running": running,
                "visitors": visitors,
                "desired": signal.desired,
                "peer": peer,
            }
        )
    return series


def first_above(series: list[dict[str, float]], key: str, level: float) -> float | None:
    return next((row["second"] for row in series if row[key] > level), None)


def draw(series: list[dict[str, float]], path: Path, title: str) -> None:
    """The hour as a line chart: queue depth, grader_desired_workers and the queue trigger."""
    from PIL import Image, ImageDraw

    width, height, left, bottom, top, right = 1000, 480, 60, 50, 40, 20
    image = Image.new("RGB", (width, height), "white")
    pen = ImageDraw.Draw(image)
    end = series[-1]["second"]
    peak = max(max(row["queued"], row["desired"], row["peer"]) for row in series)
    scale_y = (height - top - bottom) / max(peak, 1)
    scale_x = (width - left - right) / end

    def point(second: float, value: float) -> tuple[float, float]:
        return left + second * scale_x, height - bottom - value * scale_y

    pen.line([point(0, 0), point(end, 0)], fill="black")
    pen.line([point(0, 0), point(0, peak)], fill="black")
    for minute in range(0, int(end // 60) + 1, 10):
        x, y = point(minute * 60, 0)
        pen.line([(x, y), (x, y + 5)], fill="black")
        pen.text((x - 8, y + 8), f"{minute}", fill="black")
    pen.text((width // 2 - 60, height - 20), "minutes into the hour", fill="black")
    for value in range(0, int(peak) + 1, max(1, int(peak) // 8)):
        x, y = point(0, value)
        pen.line([(x - 5, y), (x, y)], fill="black")
        pen.text((x - 30, y - 6), f"{value}", fill="black")
    # Colours of 3:1 contrast or more on white, told apart by dash as well as colour.
    lines = (("queued", "#005a9c", None), ("desired", "#b3261e", None), ("peer", "#3d3d3d", 6))
    for key, colour, dash in lines:
        points = [point(row["second"], row[key]) for row in series]
        for n, (a, b) in enumerate(itertools.pairwise(points)):
            if dash is None or (n // dash) % 2 == 0:
                pen.line([a, b], fill=colour, width=2)
    legend = (
        ("uploads queued (grader_queue_depth)", "#005a9c"),
        ("grader_desired_workers", "#b3261e"),
        ("queue-length trigger (peer, dashed)", "#3d3d3d"),
    )
    for n, (words, colour) in enumerate(legend):
        pen.line(
            [(left + 20, top + 10 + 16 * n), (left + 50, top + 10 + 16 * n)], fill=colour, width=3
        )
        pen.text((left + 58, top + 4 + 16 * n), words, fill="black")
    pen.text((left, 12), title, fill="black")
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=300)
    parser.add_argument("--hour", type=float, default=3600.0)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--grading-seconds", type=float, help="each upload's grading time")
    parser.add_argument("--from-run", type=Path, help="a bench.deadline --save file: its times")
    parser.add_argument("--page-lead", type=float, default=5.0, help="minutes (an assumption)")
    parser.add_argument("--hold", type=float, default=10.0)
    parser.add_argument("--headroom", type=float, default=1.5)
    parser.add_argument("--uploads-per-visitor", type=float, default=1.0)
    parser.add_argument("--png", type=Path)
    args = parser.parse_args(argv)
    if args.from_run:
        grading = json.loads(args.from_run.read_text())["this"]["grading"][: args.uploads]
    elif args.grading_seconds:
        grading = [args.grading_seconds] * args.uploads
    else:
        parser.error("give --grading-seconds or --from-run")
    series = replay(
        grading,
        hour=args.hour,
        slots=args.slots,
        page_lead=args.page_lead,
        hold=args.hold,
        headroom=args.headroom,
        uploads_per_visitor=args.uploads_per_visitor,
    )
    signal = first_above(series, "desired", 1)
    peer = first_above(series, "peer", 1)
    queue = first_above(series, "queued", args.slots)
    print(
        f"{args.uploads} uploads, {sum(grading) / len(grading):.1f} s of grading each on average, "
        f"{args.slots} slots; each student on the page {args.page_lead:g} min before uploading "
        "(an assumption: no trace of page visits exists)"
    )
    print(
        f"max queued: {max(row['queued'] for row in series)}; max desired workers: {max(row['desired'] for row in series)}"
    )
    for name, second in (
        ("grader_desired_workers first asks for a 2nd worker", signal),
        ("the queue-length trigger (peer) first asks for a 2nd worker", peer),
        (f"the queue first holds more than {args.slots} uploads", queue),
    ):
        print(f"{name}: " + ("never" if second is None else f"minute {second / 60:.1f}"))
    if signal is not None and peer is not None:
        print(f"the signal leads the peer by {(peer - signal) / 60:.1f} minutes")
    if args.png:
        draw(
            series,
            args.png,
            f"The deadline hour replayed: {args.uploads} uploads, {args.slots} slots",
        )
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
