"""Paper exams printed (services/paper/printing.py): a class printed and its PDFs read back with
poppler's pdftotext, anonymous sheets, engine slots skipped, who may print, the job's progress."""

from __future__ import annotations

import io
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, GeneratorParams, Tree, generate
from grader.models import ExamSheet, Exercise
from grader.services import Invalid, NotFound
from tests.instructor_support import ALICE, BOB, OUTSIDER, TA, TEACHER, add_slot, user
from tests.services.paper.paper_support import STUDENTS, number, pages, print_class, tree_words


def test_a_class_printed_reads_back_as_each_students_stored_tree_and_key(
    app: Any, room: Any, tmp_path: Path
) -> None:
    """Every sheet and the key read back as each student's stored tree and key, and the
    archive holds every file."""
    run_id, files = print_class(app, room, tmp_path)
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["all-sheets.pdf", "key.pdf", "sheets"]
    with app.app_context():
        sheets = list(
            db.session.scalars(
                sa.select(ExamSheet).where(ExamSheet.print_id == run_id).order_by(ExamSheet.number)
            )
        )
        # Everyone of the roster, students only (not the TA or the teacher).
        assert sorted(s.user.email for s in sheets) == sorted([ALICE, BOB, *STUDENTS])
        assert len(files.sheets) == len(sheets)
        for sheet, (name, pdf) in zip(sheets, files.sheets, strict=True):
            assert sheet.code in name
            read = pages(pdf, tmp_path)
            cover = " ".join(w for *_, w in read[0])
            assert sheet.user.email in cover and f"{sheet.code[:5]}-{sheet.code[5:]}" in cover
            assert len(read) == 1 + len(sheet.items)  # a cover, then a page per question
            for item, page in zip(sheet.items, read[1:], strict=True):
                stored = db.session.scalar(
                    sa.select(Exercise).where(
                        Exercise.slot_id == item.slot_id,
                        Exercise.owner_id == sheet.user_id,
                        Exercise.variant == 0,
                    )
                )
                assert stored is not None and item.exercise_id == stored.id
                tree = Tree.from_dict({"tree": stored.tree, "players": stored.players})
                leaves = [tree.node(p).value for p in tree.leaves()]
                words = sorted(tree_words(page), key=lambda w: (w[0] + w[2]) / 2)
                printed = [number(w[4]) for w in words if number(w[4]) is not None]
                assert printed == leaves
                labels = {w[4] for w in words if number(w[4]) is None}
                assert set(tree.labels().values()) <= labels
                # Legible: no text of the drawing smaller than 9 pt (a word's box is about
                # 1.16 times its font's size in DejaVu Sans).
                assert min(w[3] - w[1] for w in words) >= 9 * 1.1
        # The key: each question's key in words is the stored exercise's key.
        key_pages = pages(files.key, tmp_path)
        questions = [p for p in key_pages if any(w == "Conventions:" for *_, w in p)]
        items = [item for sheet in sheets for item in sheet.items]
        assert len(questions) == len(items)
        for item, page in zip(items, questions, strict=True):
            exercise = db.session.get(Exercise, item.exercise_id)
            tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
            kind = KINDS[exercise.kind]
            stored_key = kind.key(tree, Conventions.from_dict(exercise.conventions))
            text = " ".join(w for *_, w in page)
            said = text.split("Key:", 1)[1].split(" page ")[0].strip()
            assert said.startswith(kind.describe(stored_key, tree.labels())[:60].strip())
            if exercise.kind == "values":  # the values written in the boxes, as a multiset
                written = [number(w[4]) for w in tree_words(page) if number(w[4]) is not None]
                leaves = [tree.node(p).value for p in tree.leaves()]
                for value in leaves:
                    written.remove(value)
                assert sorted(written) == sorted(stored_key["values"].values())
        # The combined file is every sheet's pages, in order.
        combined = pages(files.combined, tmp_path)
        assert len(combined) == sum(1 + len(s.items) for s in sheets)
    names = zipfile.ZipFile(io.BytesIO(files.archive())).namelist()
    assert {"all-sheets.pdf", "key.pdf"} <= set(names)
    assert sum(n.startswith("sheets/") for n in names) == len(files.sheets)


def test_an_engine_slot_is_skipped_with_a_note_on_the_cover(
    app: Any, room: Any, tmp_path: Path
) -> None:
    from grader.services.engines import submissions

    with app.app_context():
        submissions.add_engine_slot(room.assignment_id, title="Checkers engine")
    _, files = print_class(app, room, tmp_path)
    cover = " ".join(w for *_, w in pages(files.sheets[0][1], tmp_path)[0])
    assert "Not on paper:" in cover and "Checkers engine" in cover


def test_anonymous_sheets_and_letter_paper(app: Any, room: Any, tmp_path: Path) -> None:
    run_id, files = print_class(app, room, tmp_path, anonymous=3, paper="letter")
    assert len(files.sheets) == 3
    with app.app_context():
        sheets = db.session.scalars(sa.select(ExamSheet).where(ExamSheet.print_id == run_id))
        assert all(s.user_id is None for s in sheets)
    first = subprocess.run(
        ["pdfinfo", "-"], input=files.sheets[0][1], capture_output=True, check=True
    ).stdout.decode()
    assert "612 x 792 pts (letter)" in first  # the cover; questions are landscape letter


def test_printing_is_for_the_courses_instructors(app: Any, room: Any, tmp_path: Path) -> None:
    from grader.services import Forbidden
    from grader.services.paper import printing

    with app.app_context():
        for who in (TA, ALICE):  # a TA reads (and enters answers); a student sees no staff page
            with pytest.raises(Forbidden):
                printing.request_print(user(who), room.assignment_id, enqueue=False)
        with pytest.raises(NotFound):
            printing.request_print(user(OUTSIDER), room.assignment_id, enqueue=False)
        with pytest.raises(Invalid, match="paper"):
            printing.request_print(user(TEACHER), room.assignment_id, paper="a3", enqueue=False)
        with pytest.raises(Invalid, match="anonymous"):
            printing.request_print(user(TEACHER), room.assignment_id, anonymous=0, enqueue=False)


def test_the_job_reports_progress_while_it_joins_the_pdfs(app: Any, room: Any) -> None:
    """Each progress report renews the run's lease: joining the sheets' PDFs (minutes for a
    large class on a busy machine) reports too, so the sweep never takes a print back from a
    live worker while it joins them."""
    from grader.services.paper import printing

    with app.app_context():
        run = printing.create_print(room.assignment_id, anonymous=2, enqueue=False)
        printing.make_sheets(run.id)
        phases: list[tuple[str, int, int]] = []
        printing.render_print(
            run.id, lambda phase, done, total: phases.append((phase, done, total))
        )
    assert ("render", 2, 2) in phases
    assert phases[-1] == ("join", 2, 2) and phases.index(("join", 0, 2)) > phases.index(
        ("render", 2, 2)
    )


def test_a_chance_sheet_and_its_key_print_every_probability_visibly_and_no_text_on_text(
    app: Any, room: Any, tmp_path: Path
) -> None:
    """Each probability's box, as poppler reads it, holds dark pixels once the PDF is painted;
    no two words of a drawing overlap or touch."""
    from PIL import Image

    chance = Tree.from_nested(
        [
            {"chance": ["1/3", "2/3"], "children": [[4, 5], [1, 7]]},
            {"chance": ["1/4", "1/2", "1/4"], "children": [[0, 9], [3, 6], [2, 8]]},
        ],
        "max,chance,min",
    )
    with app.app_context():
        teacher = user(TEACHER)
        bounds = {"bounds": [0, 10]}
        add_slot(
            teacher, room.assignment_id, "values", "Chance tree", tree=chance, conventions=bounds
        )
        # 81 leaves on a 277 mm line: their texts take turns on rows.
        dense = generate(GeneratorParams(depth=4, branching=(3, 3), values=(-20, 20)), 3)
        add_slot(teacher, room.assignment_id, "leaf-order", "Dense", tree=dense)
    _, files = print_class(app, room, tmp_path, anonymous=1)
    probabilities = 0
    for name, pdf in (("sheet", files.sheets[0][1]), ("key", files.key)):
        source = tmp_path / f"{name}.pdf"
        source.write_bytes(pdf)
        for number_, page in enumerate(pages(pdf, tmp_path), start=1):
            if not any(w == "Conventions:" for *_, w in page):
                continue
            words = tree_words(page)
            for i, a in enumerate(words):  # apart, by more than a hair (0.5 pt)
                for b in words[i + 1 :]:
                    apart = a[2] + 0.5 <= b[0] or b[2] + 0.5 <= a[0] or a[3] <= b[1] or b[3] <= a[1]
                    assert apart, (a, b)
            picture = tmp_path / f"{name}-{number_}"
            one = ["-f", str(number_), "-l", str(number_)]
            subprocess.run(
                ["pdftoppm", "-r", "150", "-png", "-singlefile", *one, str(source), str(picture)],
                check=True,
            )
            image = Image.open(picture.with_suffix(".png")).convert("L")
            scale = 150 / 72
            for x0, y0, x1, y1, word in words:
                if not re.fullmatch(r"\d+/\d+", word):
                    continue
                probabilities += 1
                box = image.crop(
                    (int(x0 * scale), int(y0 * scale), int(x1 * scale) + 1, int(y1 * scale) + 1)
                )
                # More ink than an edge crossing the box leaves (2 px a row at 150 dpi): the
                # digits themselves (about 100 px; 12 to 39 when stroked white over the fill).
                dark = sum(box.histogram()[:96])
                assert dark > 2.5 * box.height, (name, word, dark)
    assert probabilities == 2 * 5  # the sheet's and the key's
    # A student's own file is tagged, for a screen reader (the joined files are not).
    info = subprocess.run(["pdfinfo", "-"], input=files.sheets[0][1], capture_output=True)
    assert re.search(rb"Tagged:\s+yes", info.stdout)
    # Each tree is also given in words, as its image's alternative text.
    import pikepdf

    with pikepdf.open(io.BytesIO(files.sheets[0][1])) as pdf:
        alts = [
            str(obj.Alt)
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Dictionary) and "/Alt" in obj
        ]
    said = next(a for a in alts if "Chance tree" in a or "(1/3)" in a)
    assert "B, CHANCE, has D (1/3), E (2/3)." in said and "Leaves: I 4, J 5, K 1, L 7," in said
