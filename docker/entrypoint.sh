#!/bin/sh
# Brings the database to the latest schema (the web only: workers wait for it, and two
# containers migrating at once would race), then runs the command (gunicorn by default).
set -eu
if [ "${GRADER_ROLE:-web}" != "worker" ]; then
    grader db upgrade
    if [ "${GRADER_DEMO:-0}" = "1" ]; then
        grader demo
    fi
fi
exec "$@"
