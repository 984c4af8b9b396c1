"""attempt scoring: the errors a grade counted (or best-order's leaves), so every page can say how
the score came about; filled here for the attempts already stored where grading the stored answer
again gives the stored score (an attempt a regrade kept, or one graded under an older rule, keeps
none: its words would not be true of its score)

Revision ID: 3f1b2c4d5e6a
Revises: b20d31064c75
Create Date: 2026-12-01 10:00:00.000000

"""
import json

from alembic import op
import sqlalchemy as sa

from grader.gametree import Conventions, Tree, grade


# revision identifiers, used by Alembic.
revision = '3f1b2c4d5e6a'
down_revision = 'b20d31064c75'
branch_labels = None
depends_on = None


def _json(value):
    return json.loads(value) if isinstance(value, str) else value  # some drivers give text


# In place, never by copying the table (batch mode's way on SQLite): rows pointing at an attempt
# (an exam item) would go with the old table. SQLite adds and drops (3.35+) a column in place.


def upgrade():
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('scoring', sa.JSON(), nullable=True))

    bind = op.get_bind()
    attempt = sa.table('attempt', sa.column('id', sa.Integer), sa.column('exercise_id', sa.Integer),
                       sa.column('kind', sa.String), sa.column('answer', sa.JSON),
                       sa.column('conventions', sa.JSON), sa.column('score', sa.Float),
                       sa.column('scoring', sa.JSON))
    exercise = sa.table('exercise', sa.column('id', sa.Integer), sa.column('tree', sa.JSON),
                        sa.column('players', sa.JSON))
    rows = bind.execute(
        sa.select(attempt.c.id, attempt.c.kind, attempt.c.answer, attempt.c.conventions,
                  attempt.c.score, exercise.c.tree, exercise.c.players)
        .join(exercise, exercise.c.id == attempt.c.exercise_id)
    ).all()
    trees = {}
    for id_, kind, answer, conventions, score, tree, players in rows:
        key = json.dumps([_json(tree), _json(players)])
        if key not in trees:
            trees[key] = Tree.from_dict({"tree": _json(tree), "players": _json(players)})
        try:
            graded = grade(kind, trees[key], Conventions.from_dict(_json(conventions) or {}),
                           _json(answer))
        except ValueError:  # the answer no longer fits the exercise: no words to give
            continue
        if abs(graded.score - score) < 1e-9:
            bind.execute(sa.update(attempt).where(attempt.c.id == id_)
                         .values(scoring=graded.scoring))


def downgrade():
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('scoring')
