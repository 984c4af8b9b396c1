"""token scopes, forgot-password links, TOTP: api_token.scopes (a token made before holds all
three, `read submit staff`, what it could do when it was made, so every client keeps working
until the token expires or its owner revokes it); user.totp_secret and user.totp_last_step (none
for every account: the second factor is each account's choice); the new tables password_reset
and recovery_code. api_token.last_used_at is already there.

Revision ID: e36c2f9a7b14
Revises: b35c4d2e8f10
Create Date: 2026-11-26 12:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e36c2f9a7b14'
down_revision = 'b35c4d2e8f10'
branch_labels = None
depends_on = None


# Columns added in place (never by copying "user", whose rows every other table points at).


def upgrade():
    with op.batch_alter_table('api_token', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('scopes', sa.String(length=64),
                                      server_default='read submit staff', nullable=False))
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('totp_secret', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('totp_last_step', sa.BigInteger(), nullable=True))
    op.create_table(
        'password_reset',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_password_reset_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_password_reset')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_password_reset_token_hash')),
    )
    with op.batch_alter_table('password_reset', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_password_reset_user_id'), ['user_id'], unique=False)
    op.create_table(
        'recovery_code',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('code_hash', sa.String(length=64), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_recovery_code_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_recovery_code')),
        sa.UniqueConstraint('code_hash', name=op.f('uq_recovery_code_code_hash')),
    )
    with op.batch_alter_table('recovery_code', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_recovery_code_user_id'), ['user_id'], unique=False)


def downgrade():
    op.drop_table('recovery_code')
    op.drop_table('password_reset')
    with op.batch_alter_table('user', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('totp_last_step')
        batch_op.drop_column('totp_secret')
    with op.batch_alter_table('api_token', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('scopes')
