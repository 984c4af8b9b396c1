"""What gave each score, and term regrades (issue 54): attempt.grader_version and rule_version
(the kind's grading rule), submission.grader_version and suite_version; term_regrade, a regrade
of a course, an assignment or a slot computed into a preview by a worker and applied by the
staff's choice; score_note, what a student is told when a score of theirs changes. Every
existing row is kept; scores given before this revision have no versions (None, shown as
unknown).

Revision ID: c54a7e1f2b38
Revises: c53f1a2b3d40
Create Date: 2026-11-29 05:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c54a7e1f2b38'
down_revision = 'c53f1a2b3d40'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('attempt', sa.Column('grader_version', sa.String(length=40), nullable=True))
    op.add_column('attempt', sa.Column('rule_version', sa.String(length=40), nullable=True))
    op.add_column('submission', sa.Column('grader_version', sa.String(length=40), nullable=True))
    op.add_column('submission', sa.Column('suite_version', sa.String(length=64), nullable=True))
    op.create_table(
        'term_regrade',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('course_id', sa.Integer(), nullable=False),
        sa.Column('assignment_id', sa.Integer(), nullable=True),
        sa.Column('slot_id', sa.Integer(), nullable=True),
        sa.Column('requested_by_id', sa.Integer(), nullable=True),
        sa.Column('reason', sa.String(length=300), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('lease_owner', sa.String(length=100), nullable=True),
        sa.Column('lease_expires_at', sa.DateTime(), nullable=True),
        sa.Column('heartbeat_at', sa.DateTime(), nullable=True),
        sa.Column('enqueued_at', sa.DateTime(), nullable=True),
        sa.Column('progress', sa.JSON(), nullable=True),
        sa.Column('result', sa.JSON(), nullable=True),
        sa.Column('error', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('started_at', sa.DateTime(), nullable=True),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
        sa.Column('choice', sa.String(length=16), nullable=True),
        sa.Column('chosen_by_id', sa.Integer(), nullable=True),
        sa.Column('chosen_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['assignment_id'], ['assignment.id'],
            name='fk_term_regrade_assignment_id_assignment', ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['chosen_by_id'], ['user.id'],
            name='fk_term_regrade_chosen_by_id_user', ondelete='SET NULL',
        ),
        sa.ForeignKeyConstraint(
            ['course_id'], ['course.id'],
            name='fk_term_regrade_course_id_course', ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['requested_by_id'], ['user.id'],
            name='fk_term_regrade_requested_by_id_user', ondelete='SET NULL',
        ),
        sa.ForeignKeyConstraint(
            ['slot_id'], ['slot.id'], name='fk_term_regrade_slot_id_slot', ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name='pk_term_regrade'),
    )
    op.create_index('ix_term_regrade_course_id', 'term_regrade', ['course_id'], unique=False)
    op.create_table(
        'score_note',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('course_id', sa.Integer(), nullable=False),
        sa.Column('slot_id', sa.Integer(), nullable=True),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['course_id'], ['course.id'], name='fk_score_note_course_id_course', ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['slot_id'], ['slot.id'], name='fk_score_note_slot_id_slot', ondelete='SET NULL'
        ),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user.id'], name='fk_score_note_user_id_user', ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name='pk_score_note'),
    )
    op.create_index('ix_score_note_course_id', 'score_note', ['course_id'], unique=False)
    op.create_index('ix_score_note_user_id', 'score_note', ['user_id'], unique=False)


def downgrade():
    op.drop_index('ix_score_note_user_id', table_name='score_note')
    op.drop_index('ix_score_note_course_id', table_name='score_note')
    op.drop_table('score_note')
    op.drop_index('ix_term_regrade_course_id', table_name='term_regrade')
    op.drop_table('term_regrade')
    with op.batch_alter_table('submission', schema=None) as batch_op:
        batch_op.drop_column('suite_version')
        batch_op.drop_column('grader_version')
    with op.batch_alter_table('attempt', schema=None) as batch_op:
        batch_op.drop_column('rule_version')
        batch_op.drop_column('grader_version')
