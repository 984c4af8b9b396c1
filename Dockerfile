# The course service: gunicorn on :8000, the database in the /data volume, migrations at start.
FROM python:3.11-slim

# bubblewrap: the sandbox the engine harness runs students' code in.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GRADER_INSTANCE_PATH=/data \
    GUNICORN_CMD_ARGS="--workers 2 --bind 0.0.0.0:8000 --access-logfile -"

WORKDIR /app
COPY pyproject.toml README.md ./
COPY grader ./grader
RUN pip install .
COPY docker/entrypoint.sh /usr/local/bin/grader-entrypoint

RUN useradd --system --create-home --uid 10001 grader \
    && mkdir -p /data && chown grader:grader /data
USER grader
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"

ENTRYPOINT ["grader-entrypoint"]
CMD ["gunicorn", "grader:create_app()"]
