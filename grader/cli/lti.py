"""`grader lti ...`: the LMS connection (LTI 1.3) from the command line, for administrators."""

from __future__ import annotations

from typing import NoReturn

import click
from flask import Flask
from flask.cli import AppGroup

lti = AppGroup("lti", help="LTI 1.3: register an LMS, print the tool's URLs, sync rosters.")


def _fail(error: Exception) -> NoReturn:
    raise click.ClickException(str(error))


@lti.command("register")
@click.option(
    "--issuer",
    required=True,
    help="The platform's issuer (Canvas: https://canvas.instructure.com; Moodle: the site's URL).",
)
@click.option("--client-id", required=True, help="The client ID the LMS gave the tool.")
@click.option(
    "--deployment",
    "deployments",
    multiple=True,
    required=True,
    help="A deployment ID (repeat for several).",
)
@click.option("--login-url", required=True, help="The platform's OIDC authentication URL.")
@click.option("--token-url", required=True, help="The platform's OAuth2 access token URL.")
@click.option("--jwks-url", required=True, help="The platform's public keyset URL.")
@click.option("--audience", help="The token audience, if the LMS names one (Brightspace).")
@click.option(
    "--trust-emails",
    is_flag=True,
    help="New accounts take the LMS's e-mail addresses (when no account has them); "
    "only for the institution's own LMS, whose addresses are verified.",
)
@click.option(
    "--frame-origin",
    "frame_origins",
    multiple=True,
    help="An origin, besides the issuer's and the login URL's, whose pages frame the tool "
    "(cloud Canvas: the school's https://school.instructure.com); repeat for several.",
)
def register(
    issuer: str,
    client_id: str,
    deployments: tuple[str, ...],
    login_url: str,
    token_url: str,
    jwks_url: str,
    audience: str | None,
    trust_emails: bool,
    frame_origins: tuple[str, ...],
) -> None:
    """Register a platform (an LMS) and its deployments."""
    from grader.services import ServiceError
    from grader.services import lti as service

    try:
        reg = service.register(
            None,
            issuer=issuer,
            client_id=client_id,
            auth_login_url=login_url,
            auth_token_url=token_url,
            key_set_url=jwks_url,
            deployment_ids=list(deployments),
            auth_audience=audience,
            trust_emails=trust_emails,
            frame_origins=list(frame_origins),
        )
    except ServiceError as error:
        _fail(error)
    click.echo(
        f"registered {reg.issuer} client {reg.client_id} (id {reg.id}), deployments "
        f"{', '.join(d.deployment_id for d in reg.deployments)}"
    )


@lti.command("add-deployment")
@click.argument("registration_id", type=int)
@click.argument("deployment_id")
def add_deployment(registration_id: int, deployment_id: str) -> None:
    """Add a deployment ID to a registration."""
    from grader.services import ServiceError
    from grader.services import lti as service

    try:
        service.add_deployment(None, registration_id, deployment_id)
    except ServiceError as error:
        _fail(error)
    click.echo(f"deployment {deployment_id} added")


@lti.command("frame-origins")
@click.argument("registration_id", type=int)
@click.argument("origins", nargs=-1)
def frame_origins(registration_id: int, origins: tuple[str, ...]) -> None:
    """Set the origins, besides the issuer's and the login URL's, whose pages may frame the
    tool for a registration (https://host[:port] each; none: only the registration's own)."""
    from grader.services import ServiceError
    from grader.services.lti import registration_admin

    try:
        kept = registration_admin.set_frame_origins(None, registration_id, list(origins))
    except ServiceError as error:
        _fail(error)
    framing = " ".join(kept) if kept else "none besides the registration's own"
    click.echo(f"registration {registration_id}: other origins that frame the tool: {framing}")


@lti.command("list")
def list_registrations() -> None:
    """The registered platforms: id, issuer, client ID, deployments."""
    from grader.services import lti as service

    for reg in service.registrations(None):
        click.echo(
            f"{reg.id}\t{reg.issuer}\t{reg.client_id}\t"
            f"{','.join(d.deployment_id for d in reg.deployments)}"
        )


@lti.command("urls")
@click.argument("base_url")
def urls(base_url: str) -> None:
    """The URLs to give the LMS, for the service at BASE_URL (https://grader.example.edu)."""
    base = base_url.rstrip("/")
    click.echo(f"login initiation:  {base}/lti/login")
    click.echo(f"redirect / launch: {base}/lti/launch")
    click.echo(f"deep linking:      {base}/lti/launch")
    click.echo(f"public JWKS:       {base}/lti/jwks")


@lti.command("sync")
@click.argument("course_ref")
def sync(course_ref: str) -> None:
    """Add a course's LMS roster (Names and Role Provisioning Services)."""
    from grader.services import ServiceError
    from grader.services import lti as service
    from grader.services.courses import courses

    try:
        synced = service.sync_roster(None, courses.find_course(course_ref).id)
    except ServiceError as error:
        _fail(error)
    click.echo(f"{synced.members} members: {synced.added} added, {synced.updated} updated")


@lti.command("resend")
@click.argument("course_ref")
def resend(course_ref: str) -> None:
    """Queue every student's score of a course's LMS links again (after an LMS outage)."""
    from grader.services import ServiceError
    from grader.services import lti as service
    from grader.services.courses import courses

    try:
        count = service.resend(None, courses.find_course(course_ref).id)
    except ServiceError as error:
        _fail(error)
    click.echo(f"{count} scores queued")


def init_app(app: Flask) -> None:
    app.cli.add_command(lti)
