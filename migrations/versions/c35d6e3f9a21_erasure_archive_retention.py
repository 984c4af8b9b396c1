"""A person's data: user.erased_at (an erased account's row stays as the owner of anonymous
attempts), course.archived_at and course.purged_at (an archived course is read-only; its
students' data is purged after GRADER_RETENTION_DAYS), the erasure audit (account_erasure) and
erasure requests (erasure_request).

Revision ID: c35d6e3f9a21
Revises: e36c2f9a7b14
Create Date: 2026-11-26 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c35d6e3f9a21'
down_revision = 'e36c2f9a7b14'
branch_labels = None
depends_on = None


# Columns are added in place (SQLite's ALTER TABLE ADD COLUMN), never by copying "user" or
# "course": with foreign keys on, dropping the old table would delete every row pointing at it.


def upgrade():
    op.add_column('user', sa.Column('erased_at', sa.DateTime(), nullable=True))
    op.add_column('course', sa.Column('archived_at', sa.DateTime(), nullable=True))
    op.add_column('course', sa.Column('purged_at', sa.DateTime(), nullable=True))
    op.create_table(
        'account_erasure',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('account_id', sa.Integer(), nullable=False),
        sa.Column('erased_by_id', sa.Integer(), nullable=True),
        sa.Column('erased_at', sa.DateTime(), nullable=False),
        sa.Column('attempts', sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(['erased_by_id'], ['user.id'],
                                name=op.f('fk_account_erasure_erased_by_id_user'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_account_erasure')),
    )
    op.create_index(op.f('ix_account_erasure_account_id'), 'account_erasure', ['account_id'],
                    unique=False)
    op.create_table(
        'erasure_request',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_erasure_request_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_erasure_request')),
        sa.UniqueConstraint('user_id', name=op.f('uq_erasure_request_user_id')),
    )


def downgrade():
    op.drop_table('erasure_request')
    op.drop_index(op.f('ix_account_erasure_account_id'), table_name='account_erasure')
    op.drop_table('account_erasure')
    op.drop_column('course', 'purged_at')
    op.drop_column('course', 'archived_at')
    op.drop_column('user', 'erased_at')
