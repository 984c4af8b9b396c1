import logging
from logging.config import fileConfig

from alembic import context
from flask import current_app

from grader.extensions import WRITE_OPTION

# this is the Alembic Config object, which provides
# access to the values within the .ini file in use.
config = context.config

# Interpret the config file for Python logging.
# This line sets up loggers basically.
# (A Config made in code, without an alembic.ini, has no file to read.)
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger("alembic.env")


def get_engine():
    # Flask-SQLAlchemy 3: the engine the app configured (with its SQLite connection setup).
    return current_app.extensions["migrate"].db.engine


def get_engine_url():
    return get_engine().url.render_as_string(hide_password=False).replace("%", "%%")


# add your model's MetaData object here
# for 'autogenerate' support
# from myapp import mymodel
# target_metadata = mymodel.Base.metadata
config.set_main_option("sqlalchemy.url", get_engine_url())
target_db = current_app.extensions["migrate"].db

# other values from the config, defined by the needs of env.py,
# can be acquired:
# my_important_option = config.get_main_option("my_important_option")
# ... etc.


def get_metadata():
    if hasattr(target_db, "metadatas"):
        return target_db.metadatas[None]
    return target_db.metadata


def run_migrations_offline():
    """Run migrations in 'offline' mode.

    This configures the context with just a URL
    and not an Engine, though an Engine is acceptable
    here as well.  By skipping the Engine creation
    we don't even need a DBAPI to be available.

    Calls to context.execute() here emit the given string to the
    script output.

    """
    url = config.get_main_option("sqlalchemy.url")
    context.configure(url=url, target_metadata=get_metadata(), literal_binds=True)

    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    """Run migrations in 'online' mode.

    In this scenario we need to create an Engine
    and associate a connection with the context.

    """

    # this callback is used to prevent an auto-migration from being generated
    # when there are no changes to the schema
    # reference: http://alembic.zzzcomputing.com/en/latest/cookbook.html
    def process_revision_directives(context, revision, directives):
        if getattr(config.cmd_opts, "autogenerate", False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info("No changes in schema detected.")

    conf_args = current_app.extensions["migrate"].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    connectable = get_engine()
    if connectable.dialect.name != "sqlite":
        with connectable.connect() as connection:
            context.configure(connection=connection, target_metadata=get_metadata(), **conf_args)
            with context.begin_transaction():
                context.run_migrations()
        return

    # SQLite: foreign keys off for the whole upgrade, one transaction for all of it, and the
    # foreign keys checked before it commits.
    # - Batch mode recreates a table by copying it, dropping the old one and renaming the copy;
    #   with foreign keys on, the DROP deletes by ON DELETE CASCADE every row that points at
    #   the table (Alembic's batch documentation: turn them off while migrating).
    # - The app's connections turn them on at connect; the pragma is a no-op inside a
    #   transaction, so it is set on the driver's connection before the BEGIN, and set back
    #   after the transaction ends, before the connection returns to the pool.
    # - transactional_ddl: the app's "begin" hook emits BEGIN itself (the driver's own
    #   transaction handling is off), so SQLite's DDL is transactional and a failed upgrade,
    #   a failed foreign-key check included, leaves the file as it was.
    with connectable.connect() as connection:
        connection.execution_options(**{WRITE_OPTION: True})  # BEGIN IMMEDIATE: the write lock
        set_foreign_keys(connection, on=False)
        try:
            context.configure(
                connection=connection,
                target_metadata=get_metadata(),
                transactional_ddl=True,
                **conf_args,
            )
            with context.begin_transaction():
                context.run_migrations()
                check_foreign_keys(connection)
        finally:
            set_foreign_keys(connection, on=True)


def set_foreign_keys(connection, *, on):
    """PRAGMA foreign_keys on the driver's connection, outside any transaction (where SQLite
    ignores it); raises when it did not take."""
    driver = connection.connection.driver_connection
    driver.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")
    if driver.execute("PRAGMA foreign_keys").fetchone()[0] != int(on):
        raise RuntimeError(f"SQLite kept foreign_keys {'off' if on else 'on'}: in a transaction?")


def check_foreign_keys(connection):
    """Raises, naming the first few, when a row points at a row that does not exist: the
    upgrade's transaction then rolls back and nothing of it is committed."""
    violations = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if violations:
        shown = "; ".join(
            f"{table} row {rowid} -> {parent} (foreign key {fkid})"
            for table, rowid, parent, fkid in violations[:5]
        )
        raise ForeignKeyViolation(
            f"the upgrade would leave {len(violations)} row(s) pointing at rows that do not "
            f"exist, so nothing of it was committed: {shown}"
        )


class ForeignKeyViolation(RuntimeError):
    """An upgrade that left a dangling reference (PRAGMA foreign_key_check found rows)."""


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
