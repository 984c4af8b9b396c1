"""Problem reports' e-mails to the staff, sent by the job queue: problem_report.mail_link (the
inbox's address as the request that filed the report named the site; null: no e-mail to send),
mailed_at (when the staff were told), mail_woken_at (the last wake-up of its job: the sweep
wakes it again after a while) and mail_tries (the job's tries, bounded). Reports filed before
have nothing left to send: their columns are null and 0.

Revision ID: a40c1d2e3f60
Revises: f37b2c3d4e51
Create Date: 2026-11-26 18:50:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a40c1d2e3f60'
down_revision = 'f37b2c3d4e51'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('problem_report', sa.Column('mail_link', sa.String(length=500), nullable=True))
    op.add_column('problem_report', sa.Column('mailed_at', sa.DateTime(), nullable=True))
    op.add_column('problem_report', sa.Column('mail_woken_at', sa.DateTime(), nullable=True))
    op.add_column(
        'problem_report',
        sa.Column('mail_tries', sa.Integer(), nullable=False, server_default='0'),
    )


def downgrade():
    with op.batch_alter_table('problem_report', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('mail_tries')
        batch_op.drop_column('mail_woken_at')
        batch_op.drop_column('mailed_at')
        batch_op.drop_column('mail_link')
