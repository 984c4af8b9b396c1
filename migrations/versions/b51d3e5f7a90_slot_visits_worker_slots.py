"""The signals to scale the workers (`/metrics`): slot_visit, when a person last opened an engine
slot's page (one row a person and slot; none before this revision), and worker_beat.slots, the
grading slots of each worker (workers seen before it beat again are taken for one slot each).

Revision ID: b51d3e5f7a90
Revises: a40c1d2e3f60
Create Date: 2026-11-29 03:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b51d3e5f7a90'
down_revision = 'a40c1d2e3f60'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'slot_visit',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('slot_id', sa.Integer(), nullable=False),
        sa.Column('seen_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['slot_id'], ['slot.id'], name='fk_slot_visit_slot_id_slot', ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user.id'], name='fk_slot_visit_user_id_user', ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', 'slot_id', name='pk_slot_visit'),
    )
    op.create_index('ix_slot_visit_seen_at', 'slot_visit', ['seen_at'], unique=False)
    op.add_column(
        'worker_beat', sa.Column('slots', sa.Integer(), nullable=False, server_default='1')
    )


def downgrade():
    with op.batch_alter_table('worker_beat', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('slots')
    op.drop_index('ix_slot_visit_seen_at', table_name='slot_visit')
    op.drop_table('slot_visit')
