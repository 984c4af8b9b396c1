"""lti_registration.frame_origins: the origins, besides the issuer's and the authorization
URL's, whose pages an administrator lets frame the tool's launched pages (cloud Canvas frames
them from the school's host). Every registration made before has none ([]): it is framed by
the origins it was framed by.

Revision ID: c53f1a2b3d40
Revises: b51d3e5f7a90
Create Date: 2026-11-29 05:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c53f1a2b3d40'
down_revision = 'b51d3e5f7a90'
branch_labels = None
depends_on = None

# In place (recreate='never'): copying lti_registration, as batch mode does on SQLite, would take
# the rows pointing at it (deployments, users, contexts) with the old copy. SQLite adds a column
# with a constant default, and drops one (3.35+), in place.


def upgrade():
    with op.batch_alter_table('lti_registration', schema=None, recreate='never') as batch_op:
        batch_op.add_column(
            sa.Column('frame_origins', sa.JSON(), server_default='[]', nullable=False)
        )


def downgrade():
    with op.batch_alter_table('lti_registration', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('frame_origins')
