"""`python -m bench.integrity`: the engine similarity check on a large class.

300 students (``--students``) each hand in an engine of about 15 KB (``--kb``) through the real
intake (the archive policy, the blob store, a migrated SQLite database in a temporary folder);
a few of them copy another's, disguised. The check runs through the worker's job body
(`grader.jobs.run_integrity`: the blobs read, fingerprinted, every pair compared, the figures
cached and the result written), once from nothing and once again (every pair read back from
the cache). The aim: under 2 minutes on this 2-core machine.

The peer, measured in the same run on the same files: copydetect's own `CopyDetector` (the
library's command-line path) over a folder of the 300 files with the starter engine as its
boilerplate, without its HTML report.

The engines are made from the Python of this repository: each student gets top-level
functions drawn at random from grader/ and the sample engines, with every name the file
defines renamed their own way, so students share some code (as a class does: the same
algorithms) without being copies.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import keyword
import os
import random
import re
import resource
import shutil
import tempfile
import textwrap
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "tests" / "harness" / "engines"  # the sample engines
STARTER = ROOT / "exercises" / "checkers" / "template" / "engine.py"
PASSWORD = "bench horse battery staple"
BUILTINS = {*dir(builtins), "self", "cls"}


# A line and its end as `ast` splits source (\r\n, \r or \n; not str.splitlines' others).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _segment(lines: list[str], node: ast.stmt) -> str:
    """`ast.get_source_segment` of a node from its file's lines split once (the function
    splits the whole file again for each node)."""
    assert node.end_lineno is not None and node.end_col_offset is not None
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset : node.end_col_offset].decode()
    return "".join(
        [
            lines[first].encode()[node.col_offset :].decode(),
            *lines[first + 1 : last],
            lines[last].encode()[: node.end_col_offset].decode(),
        ]
    )


def _functions() -> list[str]:
    """Every top-level function of grader/ and the sample engines that compiles on its own."""
    found = []
    sources = [*sorted((ROOT / "grader").rglob("*.py")), *sorted(ENGINES.glob("*.py"))]
    for path in sources:
        text = path.read_text()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = _LINE.findall(text)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.decorator_list:
                segment = _segment(lines, node)
                if segment and 200 < len(segment) < 4000:
                    found.append(textwrap.dedent(segment))
    return found


def _renamed(source: str, rng: random.Random) -> str:
    names: dict[str, str] = {}
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and not keyword.iskeyword(token.string):
            if token.string in BUILTINS:
                out.append(token)
                continue
            if token.string not in names:
                names[token.string] = f"{token.string[:3]}_{rng.randrange(10**6)}"
            token = token._replace(string=names[token.string])
        out.append(token)
    return tokenize.untokenize(out)


def engines(students: int, kb: int, seed: int = 26) -> list[str]:
    """Each student's engine: random functions of the pool up to `kb` KB, renamed their way;
    every 30th student hands in the previous student's engine with its names changed."""
    rng = random.Random(seed)
    pool = _functions()
    made: list[str] = []
    for n in range(students):
        if n % 30 == 29:
            made.append(_renamed(made[-1], rng))
            continue
        parts, size = [], 0
        while size < kb * 1024 - 1500:  # the last function overshoots by 1.5 KB on average
            function = rng.choice(pool)
            parts.append(function)
            size += len(function) + 2
        made.append(_renamed("\n\n".join(parts) + "\n", rng))
    for text in made:
        compile(text, "engine.py", "exec")
    return made


class Class:
    """A migrated database with a course, an engine slot and its students' uploads."""

    def __init__(self, folder: Path, works: list[str]) -> None:
        os.environ.update(
            {
                "GRADER_INSTANCE_PATH": str(folder / "instance"),
                "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
                "GRADER_SECRET_KEY": "bench",
            }
        )
        from bench import migrate
        from grader import create_app
        from grader.extensions import db
        from grader.services import accounts
        from grader.services.courses import courses, invites, roster
        from grader.services.engines import submissions

        self.app = create_app(
            {"GRADER_ARGON2": {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}}
        )
        with self.app.app_context():
            migrate(self.app)
            accounts.create_user("teacher@bench.example.com", PASSWORD, "instructor")
            course = courses.create_course("Bench", "teacher@bench.example.com")
            assignment = courses.create_assignment(course.id, "intro")
            self.assignment_id = assignment.id
            self.index = submissions.add_engine_slot(assignment.id).index
            db.session.expire_all()  # the assignment as loaded before its engine slot
            for n, text in enumerate(works):
                user = accounts.create_user(f"s{n}@bench.example.com", PASSWORD)
                roster.add_member(None, course.id, user.email)
                invites.accept_as(user, course.id)  # a member once the account accepts
                submissions.upload(user, assignment.id, self.index, text.encode(), "engine.py")

    def check(self) -> tuple[float, float, dict]:
        """One similarity check through the job body: wall seconds, CPU seconds, result."""
        from grader.extensions import db
        from grader.jobs import run_integrity
        from grader.models import IntegrityCheck
        from grader.services.integrity import engines as similarity

        with self.app.app_context():
            check = similarity.request_check(None, self.assignment_id, self.index, wake=False)
            cpu, wall = time.process_time(), time.perf_counter()
            outcome = run_integrity(check.id, "bench")
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            assert outcome == "done", outcome
            db.session.expire_all()
            result = db.session.get_one(IntegrityCheck, check.id).result or {}
            db.session.remove()
        return wall, cpu, result


def peer(folder: Path, works: list[str]) -> tuple[float, float]:
    """copydetect's CopyDetector on the same files: wall and CPU seconds."""
    from copydetect import CopyDetector

    files = folder / "files"
    boiler = folder / "boilerplate"
    files.mkdir()
    boiler.mkdir()
    shutil.copy(STARTER, boiler / "engine.py")
    for n, text in enumerate(works):
        (files / f"s{n:03d}").mkdir()
        (files / f"s{n:03d}" / "engine.py").write_text(text)
    detector = CopyDetector(
        test_dirs=[str(files)],
        boilerplate_dirs=[str(boiler)],
        extensions=["py"],
        display_t=0.5,
        silent=True,
        autoopen=False,
    )
    cpu, wall = time.process_time(), time.perf_counter()
    detector.run()
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.integrity")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--kb", type=int, default=15, help="each engine's size")
    parser.add_argument("--quick", action="store_true", help="30 students of 4 KB, a smoke run")
    args, _ = parser.parse_known_args(argv)
    # The smallest class with a planted copy (every 30th student's), its engines small.
    students, kb = (30, 4) if args.quick else (args.students, args.kb)
    works = engines(students, kb)
    mean_kb = sum(len(w) for w in works) / len(works) / 1024
    print(
        f"machine: {os.cpu_count()} cores; {students} engines of {mean_kb:.1f} KB on average; "
        f"{students * (students - 1) // 2:,} pairs",
        flush=True,
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-integrity-"))
    try:
        made = Class(folder, works)
        wall, cpu, result = made.check()
        print(
            f"ours, from nothing (the job body: blobs, fingerprints, pairs, cache, result): "
            f"{wall:.1f} s wall, {cpu:.1f} s CPU (aim: under 120 s); {result['compared']:,} "
            f"pairs compared, {len(result['pairs']):,} kept",
            flush=True,
        )
        copies = [p for p in result["pairs"] if p["similarity"] > 0.9]
        print(f"  pairs above 90%: {len(copies)} (the {students // 30} planted copies)")
        again, again_cpu, cached = made.check()
        print(
            f"ours, again (every pair read back from the cache): {again:.1f} s wall, "
            f"{again_cpu:.1f} s CPU; {cached['cached']:,} pairs read back",
            flush=True,
        )
        peer_wall, peer_cpu = peer(folder, works)
        print(
            f"peer: copydetect's CopyDetector on the same {students} files: {peer_wall:.1f} s "
            f"wall, {peer_cpu:.1f} s CPU",
            flush=True,
        )
        print(
            f"ratio: ours / copydetect = {wall / peer_wall:.2f} (wall), "
            f"{cpu / peer_cpu:.2f} (CPU); again from the cache / copydetect = "
            f"{again / peer_wall:.2f}"
        )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of this process: {peak:.0f} MB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
