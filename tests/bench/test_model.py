"""bench/model: the deadline's queueing model, checked where a closed form holds (M/M/1 and
M/M/c, Erlang C: Kleinrock, Queueing Systems vol. 1, sections 3.2 and 3.5; the first runs of
two-run gradings, Cobham's non-preemptive priority queue: Kleinrock vol. 2, section 3.6), then
on the cases a deadline brings (a rush, a first verdict, scaled service times)."""

import math
import random

import pytest

from bench.deadline import arrivals
from bench.model import Fitted, erlang_c, needed, predict, simulate, simulate_two_runs
from tests.bench.bench_support import run_bench


def poisson(rate: float, count: int, rng: random.Random) -> list[float]:
    now, times = 0.0, []
    for _ in range(count):
        now += rng.expovariate(rate)
        times.append(now)
    return times


def waits(arrival_rate: float, service_rate: float, servers: int, count: int = 200_000):
    """Each arrival's wait in the queue (sojourn less its own service), simulated."""
    rng = random.Random(51)
    times = poisson(arrival_rate, count, rng)
    services = [rng.expovariate(service_rate) for _ in range(count)]
    done = simulate(times, [(s, s) for s in services], servers)
    return [whole - s for (_, whole), s in zip(done, services, strict=True)][count // 10 :]


def test_erlang_c_matches_the_published_values():
    # M/M/1: an arrival waits with probability rho (Kleinrock eq. 3.5's P[N >= 1])
    assert erlang_c(1, 0.8) == pytest.approx(0.8)
    # 3 servers offered 2 erlangs: C = 4/9 (Erlang C tables; 4 / (1 + 2 + 2 + 4))
    assert erlang_c(3, 2.0) == pytest.approx(4 / 9)


def test_mm1_mean_wait_is_rho_over_mu_minus_lambda():
    # lambda 0.8, mu 1: W = rho / (mu - lambda) = 4 s (Kleinrock eq. 3.26 less the service)
    found = waits(0.8, 1.0, 1)
    assert sum(found) / len(found) == pytest.approx(4.0, rel=0.05)


def test_mmc_matches_erlang_c_in_the_mean_the_share_that_waits_and_the_tail():
    # 3 servers, lambda 2, mu 1: P(wait) = C = 4/9; mean wait C / (c mu - lambda) = 4/9 s;
    # P(wait > t) = C exp(-(c mu - lambda) t), so the 95th percentile is ln(C / 0.05) s
    found = waits(2.0, 1.0, 3)
    c = erlang_c(3, 2.0)
    assert sum(w > 1e-12 for w in found) / len(found) == pytest.approx(c, rel=0.03)
    assert sum(found) / len(found) == pytest.approx(c / (3 - 2.0), rel=0.05)
    assert sorted(found)[int(0.95 * len(found))] == pytest.approx(math.log(c / 0.05), rel=0.05)


def test_simulate_serves_first_come_first_served_on_the_first_free_slot():
    # two slots; the third upload waits for the first slot (free at 10), the fourth for the
    # second (free at 12); its first verdict comes 1 s into its grading
    done = simulate([0.0, 2.0, 3.0, 4.0], [(10.0, 1.0)] * 4, 2)
    assert done == [(1.0, 10.0), (1.0, 10.0), (8.0, 17.0), (9.0, 18.0)]


def test_two_runs_put_every_waiting_first_run_before_any_rest():
    # one slot: each upload's first run (2 s) as soon as the slot frees, the rests (8 s) after,
    # in the order their first runs ended; one run would give (2, 10), (11, 19), (20, 28)
    assert simulate_two_runs([0.0, 1.0, 2.0], [(10.0, 2.0)] * 3, 1) == [
        (2.0, 14.0),
        (3.0, 21.0),
        (4.0, 28.0),
    ]
    # two slots: the second takes the first upload's rest while no first run waits; the other
    # first runs go on the first slot as they come, their rests after
    assert simulate_two_runs([0.0, 2.0, 3.0, 4.0], [(10.0, 1.0)] * 4, 2) == [
        (1.0, 10.0),
        (1.0, 12.0),
        (1.0, 16.0),
        (1.0, 19.0),
    ]


def test_first_runs_wait_as_the_top_class_of_a_priority_queue():
    # Poisson uploads (lambda 0.3), first runs Exp(2), rests Exp(1), one slot: a first run waits
    # W1 = R / (1 - rho1), R = sum of lambda E[S^2] / 2 over both runs = 0.3 (2/4 + 2/1) / 2
    # (Cobham 1954), whatever order the rests go in behind them
    rng = random.Random(51)
    count, rate = 200_000, 0.3
    times = poisson(rate, count, rng)
    firsts = [rng.expovariate(2.0) for _ in range(count)]
    services = [(f + rng.expovariate(1.0), f) for f in firsts]
    done = simulate_two_runs(times, services, 1)
    waited = [first - f for (first, _), f in zip(done, firsts, strict=True)][count // 10 :]
    residual = rate * (2 / 2.0**2 + 2 / 1.0**2) / 2
    assert sum(waited) / len(waited) == pytest.approx(residual / (1 - rate / 2.0), rel=0.05)


def test_a_fitted_run_takes_its_grading_and_first_verdict_and_scales():
    run = {
        "took": [100.0, 12.0, 5.0],
        "grading": [99.0, 6.0, 5.0],
        "first": [50.0, 7.0, 0.5],
        "machines": 1,
        "slots": 1,
    }
    # the machine's first grading (its cache cold) is left out; the next waited 6 s, so its
    # first verdict came 1 s into its grading; the last one's 0.5 s
    fitted = Fitted.from_run(run)
    assert fitted.pairs == [(6.0, 1.0), (5.0, 0.5)]
    assert Fitted.from_run(run, scale_to=11.0).pairs == [(12.0, 2.0), (10.0, 1.0)]
    # code that grades in two runs: an upload's grading time holds its wait between them
    with pytest.raises(ValueError, match="one-run code"):
        Fitted.from_run({**run, "two_runs": True})


def test_more_machines_never_make_the_rush_slower_and_needed_finds_the_fewest():
    fitted = Fitted([(8.0, 1.0), (9.0, 1.5), (12.0, 2.0)])
    times = arrivals(300, 3600.0)
    p95 = [predict(fitted, times, m, replications=5)["whole_p95"] for m in range(1, 5)]
    assert p95 == sorted(p95, reverse=True) and p95[0] > p95[-1]
    assert needed(lambda m: [500.0, 90.0, 40.0, 20.0][m - 1], most=4) == 3
    assert needed(lambda m: 500.0, most=4) is None


@pytest.mark.slow
def test_the_model_runs_quick_on_the_measured_runs():
    out = run_bench("model", "--quick", timeout=600)
    assert "measured uploads from deadline-machines.json" in out
    rows = [line for line in out.splitlines() if line.startswith(("| 300 |", "| 1,000 |"))]
    assert len(rows) == 2, out
