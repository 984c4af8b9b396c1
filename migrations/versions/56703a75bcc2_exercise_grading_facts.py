"""exercise grading facts: node_count and dp_size, so a costly attempt is refused before its tree
is built; filled here for the exercises already stored

Revision ID: 56703a75bcc2
Revises: 5c0d7e1f2a3b
Create Date: 2026-11-22 16:21:58.161746

"""
import json

from alembic import op
import sqlalchemy as sa

from grader.gametree import Tree
from grader.gametree.optimum import dp_size


# revision identifiers, used by Alembic.
revision = '56703a75bcc2'
down_revision = '5c0d7e1f2a3b'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('exercise', schema=None) as batch_op:
        batch_op.add_column(sa.Column('node_count', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('dp_size', sa.Integer(), nullable=True))

    bind = op.get_bind()
    exercise = sa.table('exercise', sa.column('id', sa.Integer), sa.column('kind', sa.String),
                        sa.column('tree', sa.JSON), sa.column('players', sa.JSON),
                        sa.column('node_count', sa.Integer), sa.column('dp_size', sa.Integer))
    rows = bind.execute(sa.select(exercise.c.id, exercise.c.kind, exercise.c.tree,
                                  exercise.c.players)).all()
    for id_, kind, tree, players in rows:
        if isinstance(tree, str):  # a JSON column read back as text by some drivers
            tree, players = json.loads(tree), json.loads(players)
        built = Tree.from_dict({"tree": tree, "players": players})
        bind.execute(sa.update(exercise).where(exercise.c.id == id_).values(
            node_count=built.node_count(),
            dp_size=dp_size(built) if kind == "best-order" else None))

    with op.batch_alter_table('exercise', schema=None) as batch_op:
        batch_op.alter_column('node_count', existing_type=sa.Integer(), nullable=False)


def downgrade():
    with op.batch_alter_table('exercise', schema=None) as batch_op:
        batch_op.drop_column('dp_size')
        batch_op.drop_column('node_count')
