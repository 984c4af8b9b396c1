#!/bin/sh
# Brings the database to the latest schema, then runs the command (gunicorn by default).
set -eu
grader db upgrade
if [ "${GRADER_DEMO:-0}" = "1" ]; then
    grader demo
fi
exec "$@"
