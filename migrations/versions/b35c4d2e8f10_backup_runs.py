"""backup runs: each backup taken (by `grader db backup` or a worker's schedule), its time,
size and result, for the administrators' page

Revision ID: b35c4d2e8f10
Revises: 7a4c2e9d1b05
Create Date: 2026-11-26 12:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b35c4d2e8f10'
down_revision = '7a4c2e9d1b05'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'backup_run',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('period', sa.BigInteger(), nullable=True),
        sa.Column('started_at', sa.DateTime(), nullable=False),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('path', sa.Text(), nullable=True),
        sa.Column('size', sa.BigInteger(), nullable=True),
        sa.Column('error', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_backup_run')),
        sa.UniqueConstraint('period', name=op.f('uq_backup_run_period')),
    )


def downgrade():
    op.drop_table('backup_run')
