"""`/metrics`: the service's figures in Prometheus's text format, for an operator's Prometheus
or an autoscaler (KEDA) to scale the workers by (docs/deployment.md). Read from the database by
`services/metrics.py` at each scrape, so every web process answers the same. Open only to the
addresses in GRADER_METRICS_ALLOW or to GRADER_METRICS_TOKEN as a bearer token; anyone else gets
404, counted like a failed sign-in against the address."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric

from grader.ratelimits import guesses_by_address
from grader.services import metrics

bp = Blueprint("metrics", __name__)

#: The grading time's buckets, in seconds: an upload's quick suite takes tens of seconds, its
#: full suite a few minutes.
BUCKETS = (5.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 300.0, 600.0)


def allowed(address: str | None, authorization: str, networks: str, token: str) -> bool:
    """Whether a request from ``address`` with this Authorization header may read /metrics."""
    offered = authorization[7:].strip() if authorization.startswith("Bearer ") else ""
    if token and offered and hmac.compare_digest(offered.encode(), token.encode()):
        return True
    try:
        client = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(
        client in ipaddress.ip_network(network.strip(), strict=False)
        for network in networks.split(",")
        if network.strip()
    )


class _Figures:
    """The snapshot as Prometheus's metric families (a collector read once per scrape)."""

    def __init__(self, snapshot: metrics.Snapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        shot = self.snapshot
        depth = GaugeMetricFamily(
            "grader_queue_depth",
            "Jobs queued and not yet claimed, per class of work",
            labels=["work_class"],
        )
        running = GaugeMetricFamily(
            "grader_jobs_running",
            "Jobs a worker is running, per class of work",
            labels=["work_class"],
        )
        oldest = GaugeMetricFamily(
            "grader_queue_oldest_age_seconds",
            "How long the oldest queued job has waited (0: none queued), per class of work",
            labels=["work_class"],
        )
        for queue in shot.queues:
            depth.add_metric([queue.work_class], queue.queued)
            running.add_metric([queue.work_class], queue.running)
            oldest.add_metric([queue.work_class], queue.oldest_seconds)
        yield from (depth, running, oldest)
        yield GaugeMetricFamily("grader_workers_alive", "Workers seen lately", value=shot.workers)
        yield GaugeMetricFamily(
            "grader_worker_slots", "Grading slots of the workers alive", value=shot.slots
        )
        yield GaugeMetricFamily(
            "grader_engine_page_visitors",
            f"People who opened an engine slot's page in the last {metrics.VISITOR_MINUTES} minutes",
            value=shot.visitors,
        )
        grading = HistogramMetricFamily(
            "grader_grading_seconds",
            "Graded uploads' time from claim to result, per suite",
            labels=["suite"],
        )
        for suite, seconds in sorted(shot.grading_seconds.items()):
            buckets = [(str(bound), sum(1 for s in seconds if s <= bound)) for bound in BUCKETS]
            grading.add_metric([suite], [*buckets, ("+Inf", len(seconds))], sum(seconds))
        yield grading
        estimates = GaugeMetricFamily(
            "grader_desired_workers_estimate",
            "The workers each estimate of grader_desired_workers asks for",
            labels=["estimate"],
        )
        for name in ("queue", "current", "held", "pages"):
            estimates.add_metric([name], getattr(shot.estimates, name))
        yield estimates
        yield GaugeMetricFamily(
            "grader_desired_workers",
            "Workers the interactive queue needs now: the greatest estimate, rounded up",
            value=shot.estimates.desired,
        )


@bp.get("/metrics")
@guesses_by_address("metrics-guess")
def scrape() -> Any:
    config = current_app.config
    if not allowed(
        request.remote_addr,
        request.headers.get("Authorization", ""),
        config["GRADER_METRICS_ALLOW"],
        config["GRADER_METRICS_TOKEN"],
    ):
        abort(404)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Figures(metrics.snapshot()))
    return Response(generate_latest(registry), headers={"Content-Type": CONTENT_TYPE_LATEST})
