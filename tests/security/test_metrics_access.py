"""`/metrics` tells how busy the service is and how many students are at work: it answers only
the addresses the operator allows (loopback by default) or the operator's bearer token; anyone
else gets 404, as if it did not exist, and each refusal counts against the address like a failed
sign-in."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

OUTSIDE = {"REMOTE_ADDR": "203.0.113.7"}


def _families(response) -> dict[str, object]:
    return {
        family.name: family for family in text_string_to_metric_families(response.get_data(True))
    }


def test_loopback_reads_the_figures_in_prometheus_text_format(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    families = _families(response)
    for name in (
        "grader_queue_depth",
        "grader_queue_oldest_age_seconds",
        "grader_jobs_running",
        "grader_workers_alive",
        "grader_worker_slots",
        "grader_engine_page_visitors",
        "grader_grading_seconds",
        "grader_desired_workers",
    ):
        assert name in families, name
    desired = families["grader_desired_workers"]
    assert [sample.value for sample in desired.samples] == [1.0]


def test_another_address_gets_not_found_and_the_token_opens_it(app, client):
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 404
    app.config["GRADER_METRICS_TOKEN"] = "s3cret-scrape-token"
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 404
    wrong = {"Authorization": "Bearer s3cret-scrape-tokeN"}
    assert client.get("/metrics", environ_base=OUTSIDE, headers=wrong).status_code == 404
    right = {"Authorization": "Bearer s3cret-scrape-token"}
    assert client.get("/metrics", environ_base=OUTSIDE, headers=right).status_code == 200
    # No token set: an empty bearer opens nothing.
    app.config["GRADER_METRICS_TOKEN"] = ""
    empty = {"Authorization": "Bearer "}
    assert client.get("/metrics", environ_base=OUTSIDE, headers=empty).status_code == 404


def test_an_operator_can_allow_a_network_and_close_loopback(app, client):
    app.config["GRADER_METRICS_ALLOW"] = "203.0.113.0/24"
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 200
    assert client.get("/metrics").status_code == 404  # loopback is no longer on the list
    app.config["GRADER_METRICS_ALLOW"] = ""
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 404


def test_guessing_the_token_is_throttled_by_address(app, client):
    app.config["GRADER_LOGIN_LIMIT_ADDRESS"] = "3 per 15 minutes"
    app.config["GRADER_METRICS_TOKEN"] = "s3cret-scrape-token"
    guesses = [
        client.get(
            "/metrics", environ_base=OUTSIDE, headers={"Authorization": f"Bearer guess{n}"}
        ).status_code
        for n in range(4)
    ]
    assert guesses == [404, 404, 404, 429]
    right = {"Authorization": "Bearer s3cret-scrape-token"}
    refused = client.get("/metrics", environ_base=OUTSIDE, headers=right)
    assert refused.status_code == 429 and b"grader_" not in refused.data
    assert client.get("/metrics").status_code == 200  # another address is not held up
