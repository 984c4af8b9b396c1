"""Tries to read what it must not: /etc/shadow, the harness's files, the environment and the
files named in targets.txt beside it (the test writes the paths of a secret and of harness
files there). Whatever it reads it returns as moves, prints and raises, so that a leak would
show in the results. With the sandbox it reads nothing and its moves are wrong (WA)."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = [
    "/etc/shadow",
    "/etc/passwd",
    "/root/.bashrc",
    "/proc/1/environ",
    "/proc/self/environ",
    "/work/main/grader/harness/suite.py",
    "/work/main/exercises/checkers/suite/quick.json",
    "../../etc/shadow",
]


def targets():
    extra = []
    try:
        with open(os.path.join(HERE, "targets.txt")) as handle:
            extra = [line.strip() for line in handle if line.strip()]
    except OSError:
        pass
    return TARGETS + extra


def loot():
    found = []
    for path in targets():
        try:
            with open(path, errors="replace") as handle:
                found.append(handle.read())
        except OSError as exc:
            found.append(f"could not read {path}: {type(exc).__name__}")
    found.append(repr(sorted(os.environ.items())))
    for folder in ("/", "/tmp", "/proc/1/root", "/proc/1/cwd"):
        try:
            found.append(repr(os.listdir(folder)))
        except OSError as exc:
            found.append(f"could not list {folder}: {type(exc).__name__}")
    return found


def legal_moves(fen):
    found = loot()
    print("\n".join(found))
    return found


def search(fen, depth):
    found = loot()
    raise RuntimeError("\n".join(found))


def choose_move(fen, time_left):
    return "\n".join(loot())
