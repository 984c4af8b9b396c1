"""The results page's timing chart says what is true when it has nothing to draw: a suite with no
timing test says so; a suite whose timing tests the engine failed says that, never "no timing
test" (the starter engine's run, every test an RE, had it wrong)."""

from __future__ import annotations

import pytest

from tests.jobs.engine_support import engine_bytes


def _test(kind: str, name: str, rows: list | None = None) -> dict:
    return {
        "name": name,
        "kind": kind,
        "verdict": "RE" if rows is None else "passed",
        "score": 0.0,
        "max_score": 1.0,
        "cpu": 0.0,
        "wall": 0.0,
        "output": "",
        **({"extra": {"rows": rows}} if rows is not None else {}),
    }


@pytest.mark.parametrize(
    "tests, words",
    [
        ([_test("movegen", "Move generation: start")], "This suite has no timing test."),
        (
            [_test("timing", "Timing 5-6-7: opening-1"), _test("timing", "Timing 5-6-7: x")],
            "none of your 2 timing tests finished with the reference's answer (see their verdicts above)",
        ),
        (
            [
                _test(
                    "timing",
                    "Timing 5: opening-1",
                    [{"depth": 5, "cpu": 0.2, "reference_cpu": 0.1}],
                )
            ],
            "Search CPU seconds per depth",
        ),
    ],
)
def test_the_timing_chart_says_why_it_draws_nothing(app, client, auth, upload, tests, words):
    from grader.services.engines import leases

    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        assert leases.claim_submission(submission_id, "w1") is not None
        leases.write_result(
            submission_id, "w1", score=0.0, max_score=1.0, gradescope={}, rich={"tests": tests}
        )
    auth.login("student@example.com")
    chart = client.get(f"/engines/{submission_id}/timing").get_data(as_text=True)
    assert words in chart
    page = client.get(f"/engines/{submission_id}").get_data(as_text=True)
    assert words in page
    if "no timing test" not in words:
        assert "no timing test" not in page
