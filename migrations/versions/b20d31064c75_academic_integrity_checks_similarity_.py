"""academic integrity checks, similarity cache, course TA setting

The integrity checks the staff ask for (an engine slot's similarity, an assignment's answers
that match another student's tree) and their results; the cache of compared uploads by their
content hashes; whether a course lets its TAs read the integrity pages (off by default).

Revision ID: b20d31064c75
Revises: 37edc71679de
Create Date: 2026-11-24 22:58:14.508802

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b20d31064c75'
down_revision = '37edc71679de'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('similarity_pair',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('basis', sa.String(length=64), nullable=False),
    sa.Column('sha_a', sa.String(length=64), nullable=False),
    sa.Column('sha_b', sa.String(length=64), nullable=False),
    sa.Column('similarity', sa.Double(), nullable=False),
    sa.Column('a_share', sa.Double(), nullable=False),
    sa.Column('b_share', sa.Double(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_similarity_pair')),
    sa.UniqueConstraint('basis', 'sha_a', 'sha_b', name=op.f('uq_similarity_pair_basis'))
    )
    op.create_table('integrity_check',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('slot_id', sa.Integer(), nullable=True),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('requested_by_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('lease_owner', sa.String(length=100), nullable=True),
    sa.Column('lease_expires_at', sa.DateTime(), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(), nullable=True),
    sa.Column('enqueued_at', sa.DateTime(), nullable=True),
    sa.Column('progress', sa.JSON(none_as_null=True), nullable=True),
    sa.Column('result', sa.JSON(none_as_null=True), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignment.id'], name=op.f('fk_integrity_check_assignment_id_assignment'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['requested_by_id'], ['user.id'], name=op.f('fk_integrity_check_requested_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['slot_id'], ['slot.id'], name=op.f('fk_integrity_check_slot_id_slot'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_integrity_check'))
    )
    with op.batch_alter_table('integrity_check', schema=None) as batch_op:
        batch_op.create_index('ix_integrity_check_assignment_kind', ['assignment_id', 'kind'], unique=False)
        batch_op.create_index(batch_op.f('ix_integrity_check_slot_id'), ['slot_id'], unique=False)

    # In place (ALTER TABLE ADD COLUMN), never by copying the table as batch mode does: "course"
    # is referenced by assignments, memberships, invites and more, and dropping the old copy
    # would delete them by cascade wherever foreign keys are on. SQLite adds a column in place
    # only with a constant default ('0', not an expression such as sa.false()).
    op.add_column('course', sa.Column('integrity_ta', sa.Boolean(), server_default='0', nullable=False))



def downgrade():
    op.drop_column('course', 'integrity_ta')

    with op.batch_alter_table('integrity_check', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_integrity_check_slot_id'))
        batch_op.drop_index('ix_integrity_check_assignment_kind')

    op.drop_table('integrity_check')
    op.drop_table('similarity_pair')
