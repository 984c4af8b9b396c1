"""The Alembic revisions, installed as the package `grader.migrations` (pyproject.toml maps it
here): `grader.data.migrations_dir()` finds this folder by importing it."""
