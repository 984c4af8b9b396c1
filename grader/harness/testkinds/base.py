"""The registry of test kinds, as CTFd registers its challenge types: each kind is a class with
a name, how a suite's group of that kind expands into tests, and how one test runs on a started
engine process. Adding a kind is one module with one class decorated by `register`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from grader.harness.cases import TestCase, TestResult
from grader.harness.references import References
from grader.harness.sandbox import EngineProcess


@dataclass(frozen=True)
class Group:
    """One group of a suite file (its JSON object), with the suite's named positions."""

    spec: dict[str, Any]
    positions: dict[str, dict[str, str]]

    @property
    def kind(self) -> str:
        return str(self.spec["kind"])

    @property
    def points(self) -> float:
        return float(self.spec.get("points", 1))

    @property
    def visibility(self) -> str:
        return str(self.spec.get("visibility", "visible"))

    def fen(self, position: str) -> str:
        return self.positions[position]["fen"]

    def case(
        self, name: str, *, cpu: float | None = None, wall: float | None = None, **params: Any
    ) -> TestCase:
        """A test of this group: its points and visibility, the group's limits unless given."""
        return TestCase(
            name,
            self.kind,
            self.points,
            params,
            float(self.spec.get("cpu", 5)) if cpu is None else cpu,
            float(self.spec.get("wall", 10)) if wall is None else wall,
            self.visibility,
        )

    def windows(self) -> list[tuple[tuple[int, int], str]]:
        """The group's root windows, as offsets from the contract's value v, each with its
        words: "null_windows": [o, ...] is (v + o, v + o + 1); "windows": [[lo, hi], ...] is
        (v + lo, v + hi), a narrow window. None: the full window only."""
        out = [
            ((int(o), int(o) + 1), f"null window at value{int(o):+d}")
            for o in self.spec.get("null_windows", ())
        ]
        for lo, hi in self.spec.get("windows", ()):
            if int(lo) >= int(hi):
                raise ValueError(f"a window needs lo < hi, got [{lo}, {hi}]")
            out.append(((int(lo), int(hi)), f"window (value{int(lo):+d}, value{int(hi):+d})"))
        return out


class TestKind:
    """One kind of test. Subclasses set `name` (the suite files' "kind") and define `expand`
    and `run`; `register` puts one instance in TEST_KINDS."""

    __test__ = False

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""  # what the results page calls its tests ("Move generation")
    games: ClassVar[int] = 0  # the games one test of this kind plays (progress counts them)
    # Whether the engine process may serve the group's next test after one of this kind
    # passed: not where the engine starts processes of its own that may outlive the call.
    reuses_process: ClassVar[bool] = True
    # Whether a group of this kind starts in a process of its own, not the one the groups
    # before it passed in: where what an earlier group left in the process (its heap, its
    # caches) would change what the test measures.
    fresh_group: ClassVar[bool] = False
    # Whether its tests say whether the engine is right (its moves, its search) rather than how
    # fast or how strong it is: a suite's leading tests of such kinds make the first verdict,
    # shown while the rest (timing, games) still run.
    correctness: ClassVar[bool] = False
    # Whether its tests run alone on the machine (`sandbox.machine_window`): where what they
    # measure moves with the work in the other grading slots (the caches and the memory bus
    # that cores share), as a CPU time does.
    alone: ClassVar[bool] = False

    def expand(self, group: Group) -> list[TestCase]:
        """The tests of one group of a suite file."""
        raise NotImplementedError

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        """Run one test on a started engine process, the reference's answers from `refs`."""
        raise NotImplementedError


TEST_KINDS: dict[str, TestKind] = {}

K = TypeVar("K", bound=type[TestKind])


def register(kind: K) -> K:
    """A class decorator: the kind's one instance, under its name, in TEST_KINDS."""
    if not kind.name or kind.name in TEST_KINDS:
        raise ValueError(f"a test kind needs a name of its own, got {kind.name!r}")
    if not kind.title:
        raise ValueError(f"the test kind {kind.name!r} needs a title")
    TEST_KINDS[kind.name] = kind()
    return kind


def describe(value: Any) -> str:
    """A value an engine returned, named by its type, for a PROTOCOL message."""
    return f"{type(value).__name__} {short(str(value), 40)}"


def short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def differ(what: str, got: Any, expected: str) -> dict[str, str]:
    """One wrong part of an answer, as a result's `extra["differs"]` lists it for the results
    page: what it is, what came back, what was expected."""
    return {"what": what, "got": str(got), "expected": expected}
