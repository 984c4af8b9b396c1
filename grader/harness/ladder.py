"""The games of a play group as matches, one a ladder opponent: each match stops once its
games are enough, and games of different matches are played at once.

A match is the group's games against one opponent, in the suite's order (ballot by ballot,
both colours). It is played one game at a time, so what it has played when it stops never
depends on how long other games took; matches run side by side, one game each at most, on
as many lanes (a lane: a grading slot and its engine process) as the runner has.

A match stops before its last game when all three hold, after a game:
- its SPRT (`sprt.Sprt`, the group's "sprt": Elo differences to the opponent, alpha, beta)
  has decided whether the engine is the stronger or the weaker, a forfeit counting as a loss;
- every game it played gave the same points: each played through (the game's points), or each
  forfeited (none). A match whose games differ on that plays on to its end, its points
  counted game by game;
- its games were forfeited, or its opponent is one the "sprt" lists as "lopsided" (or the
  "sprt" lists none): games whose results the Elo model all but knows beforehand (random and
  greedy, against an engine that plays checkers), which add almost nothing to the Elo's
  information. A match played through against any other opponent plays every game, as
  those are the games the Elo interval is made of.
The games it did not play are then credited as its played games were, each saying so; they
carry no result and the Elo is estimated from the games played. A group without "sprt" plays
every game.
"""

from __future__ import annotations

import concurrent.futures
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.sprt import Decision, Sprt, group_test
from grader.harness.verdicts import Verdict

# play(test, lane): the game's result, played on lane `lane` (0 .. lanes - 1), which no other
# game uses meanwhile.
PlayGame = Callable[[TestCase, int], TestResult]
# done(result): called in the caller's thread as each game ends (progress).
GameDone = Callable[[TestResult], None]


@dataclass
class Match:
    """One opponent's games and what became of them."""

    opponent: str
    tests: list[TestCase]
    sprt: Sprt | None
    lopsided: bool = True  # a match played through may stop early (see the module)
    results: list[TestResult] = field(default_factory=list)
    decision: Decision | None = None
    decided_at: int = 0  # the game after which its SPRT first decided (0: it has not)
    stopped: str = ""  # why it ended before its last game ("" when every game was played)

    @property
    def played(self) -> int:
        return len(self.results)

    @property
    def finished(self) -> bool:
        return bool(self.stopped) or self.played == len(self.tests)

    def record(self, result: TestResult) -> None:
        """A game's result; decide whether the match stops here."""
        self.results.append(result)
        if self.sprt is None:
            return
        wins = sum(points_of(r) == 1.0 for r in self.results)
        draws = sum(points_of(r) == 0.5 for r in self.results)
        self.decision = self.sprt.decide(wins, draws, self.played - wins - draws)
        if self.decision.accepted and not self.decided_at:
            self.decided_at = self.played
        if self.played == len(self.tests) or not self.decision.accepted:
            return
        if self.agreed and (self.lopsided or self.results[0].verdict is not Verdict.PASSED):
            self.stopped = self.decision.words()

    @property
    def agreed(self) -> bool:
        """Every game played gave the same points: each played through, or each forfeited."""
        return len({r.verdict is Verdict.PASSED for r in self.results}) == 1 and not any(
            r.verdict is Verdict.IE for r in self.results
        )

    def unplayed(self) -> list[TestResult]:
        """The results of the games a stopped match did not play, credited as its played
        games were."""
        if not self.stopped:
            return []
        first = self.results[0]
        through = first.verdict is Verdict.PASSED
        credit = (
            "credited as played through, as all "
            if through
            else f"charged as forfeited ({first.verdict.value}), as all "
        )
        words = (
            f"not played: the match against {self.opponent} was decided after "
            f"{self.played} of {len(self.tests)} games ({self.stopped}); "
            f"{credit}{self.played} games it played were"
        )
        return [
            result_of(
                test,
                first.verdict,
                words,
                test.points if through else 0.0,
                opponent=self.opponent,
                colour=test.params.get("colour", ""),
                ballot=test.params.get("ballot", 0),
                played=False,
            )
            for test in self.tests[self.played :]
        ]

    def summary(self) -> dict[str, Any]:
        """What the results page and the rich JSON say of the match."""
        decision = self.decision
        if self.stopped:
            why = f"stopped early, {self.stopped}"
        elif decision is not None and decision.accepted and not self.lopsided and self.agreed:
            why = f"every game played ({decision.words()}; its games inform the Elo)"
        elif decision is not None and decision.accepted and self.decided_at == len(self.tests):
            why = f"every game played ({decision.words()} only at its last game)"
        elif decision is not None and decision.accepted:
            why = f"every game played ({decision.words()}; its games differed in points)"
        elif decision is not None:
            why = f"every game played ({decision.words()})"
        else:
            why = "every game played (no sequential test)"
        return {
            "opponent": self.opponent,
            "games": len(self.tests),
            "played": self.played,
            "points": round(sum(points_of(r) or 0.0 for r in self.results), 4),
            "llr": None if decision is None else round(decision.llr, 3),
            "bounds": None
            if decision is None
            else [round(decision.lower, 3), round(decision.upper, 3)],
            "accepted": "" if decision is None else decision.accepted,
            "test": "" if self.sprt is None else self.sprt.words(),
            "why": why,
        }


@dataclass(frozen=True)
class KeptMatch:
    """A match an earlier run of the same upload played, as its `Match.summary()`: a retime
    of a deferred timing keeps the games that run played."""

    kept: dict[str, Any]

    @property
    def opponent(self) -> str:
        return str(self.kept["opponent"])

    @property
    def played(self) -> int:
        return int(self.kept["played"])

    def summary(self) -> dict[str, Any]:
        return dict(self.kept)


def points_of(result: TestResult) -> float | None:
    """A played game's points for the engine (a forfeit or a game not run: a loss)."""
    if result.extra.get("played") is False:
        return None
    value = result.extra.get("points")
    return float(value) if isinstance(value, int | float) else 0.0


def matches_of(tests: list[TestCase]) -> list[Match]:
    """A play group's tests as matches, one per opponent, in the order they first appear."""
    out: dict[str, Match] = {}
    for test in tests:
        opponent = str(test.params["opponent"])
        spec = test.params.get("sprt")
        if opponent not in out:
            sprt, listed = group_test(spec) if spec else (None, None)
            out[opponent] = Match(opponent, [], sprt, listed is None or opponent in listed)
        out[opponent].tests.append(test)
    return list(out.values())


def play_matches(
    tests: list[TestCase],
    play: PlayGame,
    lanes: int = 1,
    done: GameDone | None = None,
    close: Callable[[], None] | None = None,
) -> tuple[list[TestResult], list[Match]]:
    """Play a group's games as matches on `lanes` lanes: every test's result (a game played
    or one a stopped match credits), in the tests' order, and the matches. `close` ends the
    lanes' processes while the threads that started them live: bubblewrap dies with the
    thread that started it (--die-with-parent is the parent thread's death signal), and one
    killed so would leave its engine to init, unwaited and its CPU time uncounted."""
    matches = matches_of(tests)
    free: queue.SimpleQueue[int] = queue.SimpleQueue()
    for lane in range(max(1, lanes)):
        free.put(lane)

    def run(test: TestCase) -> TestResult:
        lane = free.get()
        try:
            return play(test, lane)
        finally:
            free.put(lane)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, lanes)) as pool:
        running: dict[concurrent.futures.Future[TestResult], Match] = {}

        def start_next(match: Match) -> None:
            if not match.finished:
                running[pool.submit(run, match.tests[match.played])] = match

        waiting = list(matches)
        while waiting and len(running) < max(1, lanes):
            start_next(waiting.pop(0))
        while running:
            finished, _ = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                match = running.pop(future)
                result = future.result()
                match.record(result)
                if done is not None:  # a stopped match's games not played are done too
                    for each in (result, *match.unplayed()):
                        done(each)
                if not match.finished:
                    waiting.append(match)
            while waiting and len(running) < max(1, lanes):
                start_next(waiting.pop(0))
        if close is not None:
            close()
    by_name = {r.name: r for match in matches for r in (*match.results, *match.unplayed())}
    return [by_name[t.name] for t in tests], matches
