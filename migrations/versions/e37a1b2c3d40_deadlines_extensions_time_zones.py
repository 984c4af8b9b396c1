"""a term's deadlines: extensions and accommodations per student or named group
(extension, group_member), the course's time zone (course.timezone, UTC for every course
already made: the dates they show are the UTC ones they showed), the secret of a person's
calendar feed (user.calendar_nonce, none until they ask for the feed), an assignment's scores
held until a release (assignment.hold_scores, scores_release_at, scores_sent_at; none held),
slip days (course.slip_days, a budget of 0 for every course made; attempt.slip_days and
submission.slip_days, 0: none spent).

Revision ID: e37a1b2c3d40
Revises: d36a4b8c1e05
Create Date: 2026-11-26 15:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e37a1b2c3d40'
down_revision = 'd36a4b8c1e05'
branch_labels = None
depends_on = None


# Columns added in place (SQLite's ALTER TABLE): no table others reference is copied.


def upgrade():
    with op.batch_alter_table('course', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('timezone', sa.String(length=64), server_default='UTC',
                                      nullable=False))
        batch_op.add_column(sa.Column('slip_days', sa.Integer(), server_default='0',
                                      nullable=False))
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('slip_days', sa.Integer(), server_default='0',
                                      nullable=False))
    with op.batch_alter_table('submission', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('slip_days', sa.Integer(), server_default='0',
                                      nullable=False))
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('calendar_nonce', sa.String(length=32), nullable=True))
    with op.batch_alter_table('assignment', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('hold_scores', sa.Boolean(), server_default=sa.false(),
                                      nullable=False))
        batch_op.add_column(sa.Column('scores_release_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('scores_sent_at', sa.DateTime(), nullable=True))
    op.create_table(
        'group_member',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('course_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['course_id'], ['course.id'],
                                name=op.f('fk_group_member_course_id_course'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_group_member_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_group_member')),
        sa.UniqueConstraint('course_id', 'name', 'user_id',
                            name=op.f('uq_group_member_course_id')),
    )
    with op.batch_alter_table('group_member', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_member_course_id'), ['course_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_group_member_user_id'), ['user_id'], unique=False)
    op.create_table(
        'extension',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('course_id', sa.Integer(), nullable=False),
        sa.Column('assignment_id', sa.Integer(), nullable=False),
        sa.Column('slot_id', sa.Integer(), nullable=True),
        sa.Column('user_id', sa.Integer(), nullable=True),
        sa.Column('group_name', sa.String(length=100), nullable=True),
        sa.Column('due_at', sa.DateTime(), nullable=True),
        sa.Column('extra_attempts', sa.Integer(), server_default='0', nullable=False),
        sa.Column('waive_penalty', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column('created_by_id', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['assignment_id'], ['assignment.id'],
                                name=op.f('fk_extension_assignment_id_assignment'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['course_id'], ['course.id'],
                                name=op.f('fk_extension_course_id_course'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_extension_created_by_id_user'), ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['slot_id'], ['slot.id'],
                                name=op.f('fk_extension_slot_id_slot'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_extension_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_extension')),
    )
    with op.batch_alter_table('extension', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_extension_assignment_id'), ['assignment_id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_extension_course_id'), ['course_id'], unique=False)


def downgrade():
    with op.batch_alter_table('extension', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_extension_course_id'))
        batch_op.drop_index(batch_op.f('ix_extension_assignment_id'))
    op.drop_table('extension')
    with op.batch_alter_table('group_member', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_group_member_user_id'))
        batch_op.drop_index(batch_op.f('ix_group_member_course_id'))
    op.drop_table('group_member')
    with op.batch_alter_table('assignment', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('scores_sent_at')
        batch_op.drop_column('scores_release_at')
        batch_op.drop_column('hold_scores')
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('calendar_nonce')
    with op.batch_alter_table('submission', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('slip_days')
    with op.batch_alter_table('attempt', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('slip_days')
    with op.batch_alter_table('course', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('slip_days')
        batch_op.drop_column('timezone')
