"""attempt counts from the index: (exercise_id, user_id) becomes (exercise_id, user_id, score), so
the count and best score every graded attempt asks under the write lock are read from the index
alone, not from each earlier attempt's row

Revision ID: 7a4c2e9d1b05
Revises: 3f1b2c4d5e6a
Create Date: 2026-11-25 06:30:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '7a4c2e9d1b05'
down_revision = '3f1b2c4d5e6a'
branch_labels = None
depends_on = None


# Indexes only: made and dropped in place (no copy of the table, whose exam items point at it).


def upgrade():
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.create_index(
            'ix_attempt_exercise_user_score', ['exercise_id', 'user_id', 'score'], unique=False
        )
        batch_op.drop_index('ix_attempt_exercise_user')


def downgrade():
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.create_index('ix_attempt_exercise_user', ['exercise_id', 'user_id'], unique=False)
        batch_op.drop_index('ix_attempt_exercise_user_score')
