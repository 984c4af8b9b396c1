"""user.is_admin: an administrator of the service registers the LMSs (a page only they see, and
`grader lti register`); given on the server only (`grader user admin EMAIL`). Everyone starts
without it.

Revision ID: b3e41c7d9a20
Revises: 56703a75bcc2
Create Date: 2026-11-24 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b3e41c7d9a20'
down_revision = '56703a75bcc2'
branch_labels = None
depends_on = None


# Never by copying the table (batch mode's way on SQLite): with foreign keys on, dropping the old
# "user" table would delete, by cascade, every row that points at an account (memberships,
# exercises, attempts). SQLite adds a column with a constant default, and drops one (3.35+), in
# place.


def upgrade():
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('is_admin', sa.Boolean(), server_default='0',
                                      nullable=False))


def downgrade():
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('is_admin')
