"""roster invites claim only the accounts they made: user.claimable (an account a roster action
made, which nobody has had a way into yet), invite.claims (this link sets the first password) and
invite.name (the roster's name for the person until they accept). Every roster add is now an
invite the person accepts, so a pending one carries its name.

Of the invites already handed out, only each password-less account's first pending one (no LMS
identity, no API token: an account the roster made) keeps claiming it; every other one is a link
its owner accepts signed in.

Revision ID: d36a4b8c1e05
Revises: c35d6e3f9a21
Create Date: 2026-11-26 12:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd36a4b8c1e05'
down_revision = 'c35d6e3f9a21'
branch_labels = None
depends_on = None


# Columns added and dropped in place (SQLite's ALTER TABLE): copying "user" would cascade-delete
# every row that points at an account.


def upgrade():
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('claimable', sa.Boolean(), server_default='0',
                                      nullable=False))
    with op.batch_alter_table('invite', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('claims', sa.Boolean(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('name', sa.String(length=200), nullable=True))
    op.execute(
        'UPDATE "user" SET claimable = true WHERE password_hash IS NULL'
        ' AND id NOT IN (SELECT user_id FROM lti_user)'
        ' AND id NOT IN (SELECT user_id FROM api_token)'
        ' AND id IN (SELECT user_id FROM invite WHERE accepted_at IS NULL)'
    )
    op.execute(
        'UPDATE invite SET claims = true WHERE id IN ('
        ' SELECT min(invite.id) FROM invite JOIN "user" ON "user".id = invite.user_id'
        ' WHERE "user".claimable AND invite.accepted_at IS NULL GROUP BY invite.user_id)'
    )
    op.execute(
        'UPDATE invite SET name = (SELECT membership.name FROM membership'
        ' WHERE membership.user_id = invite.user_id AND membership.course_id = invite.course_id)'
        ' WHERE accepted_at IS NULL'
    )


def downgrade():
    with op.batch_alter_table('invite', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('name')
        batch_op.drop_column('claims')
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('claimable')
