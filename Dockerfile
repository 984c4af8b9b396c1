# The course service's image: the web (gunicorn on :8000, the default command) and the engine
# workers (`grader worker`) run from it; docker-compose.yml starts both. What it installs is the
# wheel alone (no checkout in the image): tests/deploy/test_installed_package.py builds and runs
# the same wheel outside the checkout, where no Docker engine runs.

# The base: Docker Hub's python:3.11-slim; `make test-image` builds on a local one of the same
# shape (Debian bookworm, /usr/local/bin/python3 with pip), as no registry is reached there.
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY grader ./grader
COPY exercises ./exercises
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}

# bubblewrap: the sandbox the workers run students' engines in; Pango and a font: WeasyPrint
# draws the paper exams' sheets (the worker prints them).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
        libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GRADER_INSTANCE_PATH=/data \
    GRADER_SANDBOX_PYTHON=/usr/local/bin/python3 \
    GUNICORN_CMD_ARGS="--config python:grader.gunicorn_conf --workers 2 --bind 0.0.0.0:8000 --access-logfile -"

# The wheel stays in the image: the service serves it to students (grader/services/engines/kit.py).
COPY --from=build /wheels /usr/local/share/grader/kit
RUN pip install --no-cache-dir "$(ls /usr/local/share/grader/kit/grader-*.whl)[server,postgres,s3,integrity]"
COPY docker/entrypoint.sh /usr/local/bin/grader-entrypoint
COPY docker/healthcheck.sh /usr/local/bin/grader-healthcheck

# The web and the workers run as this one user: /data (SQLite, the queue, the key, a worker's
# copies of the uploads) is private to it (0700).
RUN groupadd --system --gid 10001 grader \
    && useradd --system --create-home --uid 10001 --gid 10001 grader \
    && mkdir -p /data && chown grader:grader /data && chmod 0700 /data
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000

# The web answers /healthz; a worker (GRADER_ROLE=worker) checks its own sign of life.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s CMD ["grader-healthcheck"]

ENTRYPOINT ["grader-entrypoint"]
CMD ["gunicorn", "grader:create_app()"]
