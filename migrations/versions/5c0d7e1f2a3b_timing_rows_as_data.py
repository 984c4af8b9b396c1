"""timing rows as data: older engine results get the rows their timing tests now store

A timing test's result now carries its chart's rows in its extra (depth, CPU, reference CPU,
...), and the results page reads only those. Results stored before wrote the rows only as prose
in the test's output; this reads that prose once, here, into rows, so their charts stay drawn.
No schema changes. Downgrade leaves the rows: the older reader ignores them.

Revision ID: 5c0d7e1f2a3b
Revises: e566b50e1b7d
Create Date: 2026-11-22 16:45:00.000000

"""
import re

from alembic import context, op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5c0d7e1f2a3b'
down_revision = 'e566b50e1b7d'
branch_labels = None
depends_on = None

# How the timing test wrote its rows before they were data (grader/harness/suite.py then).
OLD_ROW = re.compile(r"depth (\d+): you ([\d.]+) s CPU, reference ([\d.]+) s "
                     r"\(medians of (\d+) runs\)")


def rows_of(output):
    """The rows an older timing test's output describes."""
    return [{"depth": int(depth), "cpu": float(cpu), "reference_cpu": float(ref),
             "runs": int(runs)} for depth, cpu, ref, runs in OLD_ROW.findall(output or "")]


def with_rows(rich):
    """`rich` with rows for its timing tests that have none, or None when nothing changes."""
    changed = False
    tests = []
    for test in rich.get("tests", []) if isinstance(rich, dict) else []:
        extra = test.get("extra") or {}
        if test.get("kind") == "timing" and "rows" not in extra:
            test = {**test, "extra": {**extra, "rows": rows_of(test.get("output"))}}
            changed = True
        tests.append(test)
    return {**rich, "tests": tests} if changed else None


def upgrade():
    if context.is_offline_mode():
        return
    connection = op.get_bind()
    result = sa.table('engine_result', sa.column('id', sa.Integer), sa.column('rich', sa.JSON))
    ids = connection.execute(sa.select(result.c.id)).scalars().all()
    for ident in ids:  # one at a time: a course's results may be large together
        rich = with_rows(connection.execute(
            sa.select(result.c.rich).where(result.c.id == ident)).scalar_one())
        if rich is not None:
            connection.execute(result.update().where(result.c.id == ident).values(rich=rich))


def downgrade():
    pass
