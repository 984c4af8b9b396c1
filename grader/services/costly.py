"""Costly work, one request at a time: the few requests whose bounded work is still large (a
tree generated under constraints, the ordering optimum of a big tree, grading a tree of
hundreds of nodes, the editor's preview) take one of the server's `GRADER_COSTLY_SLOTS` permits; when
none is free the request is refused at once (`Busy`, a 503 with Retry-After) instead of
waiting, so costly requests never hold every worker and everyone else's requests still find
one free.

The permits are file locks in the instance folder: every gunicorn worker of the host shares them,
and a worker that dies releases its lock with its file descriptor.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

from flask import current_app

from grader.gametree import KINDS, Tree
from grader.ratelimits import retry_after
from grader.services import Busy, RateLimited

COSTLY_LEAVES = 256  # a generated tree this large costs milliseconds per candidate
COSTLY_NODES = 512  # grading and explaining a typed tree this large costs tens of milliseconds
COSTLY_DP_SIZE = 100_000  # the ordering optimum's states: tens of milliseconds and more


def generation_is_costly(branching: int, depth: int, constrained: bool) -> bool:
    return constrained and branching**depth >= COSTLY_LEAVES


class GradingFacts(TypedDict):
    node_count: int
    dp_size: int | None  # the ordering optimum's states, for a kind graded by it


def grading_facts(kind: str, tree: Tree) -> GradingFacts:
    """What `grading_is_costly` reads, stored with an exercise when its tree is stored."""
    return {
        "node_count": tree.node_count(),
        "dp_size": KINDS[kind].optimum_states(tree),
    }


def grading_is_costly(node_count: int, dp_size: int | None) -> bool:
    """From the exercise's stored facts, so a refusal never builds the tree (``dp_size`` is
    None for a kind graded without the ordering optimum)."""
    return node_count >= COSTLY_NODES or (dp_size is not None and dp_size > COSTLY_DP_SIZE)


def _limit() -> str:
    return str(current_app.config["GRADER_COSTLY_LIMIT"])


def _throttled(what: str, wait: int) -> RateLimited:
    return RateLimited(
        f"too many costly requests ({what}) from this account: at most "
        f"{_limit()}; nothing was stored, try "
        f"again in {wait} s",
        wait,
    )


@contextlib.contextmanager
def permit(what: str, costly: bool = True, account: int | None = None) -> Iterator[None]:
    """Holds a permit for costly work for the block, one of the host's `GRADER_COSTLY_SLOTS`
    (nothing when not `costly`); RateLimited when `account` has had its share of costly work
    (`GRADER_COSTLY_LIMIT`), Busy when every permit is taken. Only work that got a permit counts
    against the account."""
    if not costly:
        yield
        return
    key = f"account:{account}"
    if account is not None and (wait := retry_after(_limit(), "costly", key, hit=False)):
        raise _throttled(what, wait)
    folder = Path(current_app.instance_path)
    for number in range(int(current_app.config["GRADER_COSTLY_SLOTS"])):
        fd = os.open(folder / f"costly-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            if account is not None and (wait := retry_after(_limit(), "costly", key, hit=True)):
                raise _throttled(what, wait)  # another worker took the last one meanwhile
            yield
        finally:
            os.close(fd)  # releases the lock
        return
    raise Busy(
        f"the server is busy with other costly requests ({what}); nothing was stored, "
        "try again in a moment"
    )
