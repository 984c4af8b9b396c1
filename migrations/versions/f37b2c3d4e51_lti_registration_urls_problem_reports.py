"""LTI dynamic registration's one-time URLs: lti_registration_url (the SHA-256 of each URL's
secret, who made it, when it expires, when it served and the registration it made); students'
problem reports: problem_report (the course and slot, the exercise, attempt or engine upload,
the words, and the staff's answer).

Revision ID: f37b2c3d4e51
Revises: e37a1b2c3d40
Create Date: 2026-11-26 15:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f37b2c3d4e51'
down_revision = 'e37a1b2c3d40'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'lti_registration_url',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_by_id', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.Column('registration_id', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_lti_registration_url_created_by_id_user'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['registration_id'], ['lti_registration.id'],
                                name=op.f('fk_lti_registration_url_registration_id_lti_registration'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_lti_registration_url')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_lti_registration_url_token_hash')),
    )

    op.create_table(
        'problem_report',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('course_id', sa.Integer(), nullable=False),
        sa.Column('slot_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('exercise_id', sa.Integer(), nullable=True),
        sa.Column('attempt_id', sa.Integer(), nullable=True),
        sa.Column('submission_id', sa.Integer(), nullable=True),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('answer', sa.Text(), nullable=True),
        sa.Column('answered_by_id', sa.Integer(), nullable=True),
        sa.Column('answered_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['course_id'], ['course.id'],
                                name=op.f('fk_problem_report_course_id_course'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['slot_id'], ['slot.id'],
                                name=op.f('fk_problem_report_slot_id_slot'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_problem_report_user_id_user'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['exercise_id'], ['exercise.id'],
                                name=op.f('fk_problem_report_exercise_id_exercise'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['attempt_id'], ['attempt.id'],
                                name=op.f('fk_problem_report_attempt_id_attempt'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['submission_id'], ['submission.id'],
                                name=op.f('fk_problem_report_submission_id_submission'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['answered_by_id'], ['user.id'],
                                name=op.f('fk_problem_report_answered_by_id_user'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_problem_report')),
    )
    with op.batch_alter_table('problem_report', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_problem_report_course_id'), ['course_id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_problem_report_slot_id'), ['slot_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_problem_report_user_id'), ['user_id'], unique=False)


def downgrade():
    op.drop_table('problem_report')
    op.drop_table('lti_registration_url')
