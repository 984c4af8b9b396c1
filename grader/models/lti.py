"""LTI 1.3: the course's LMS launches the service and receives its grades (services/lti/)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, utcnow
from grader.models.courses import Assignment, Course, Slot


class LtiKey(Base):
    """The tool's RSA key pair, made once: it signs deep-linking replies and service tokens.

    Kept in the database (not the instance folder) so that every web process and every worker,
    on any machine, signs with the same key the platforms know from the JWKS endpoint.
    """

    __tablename__ = "lti_key"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(sa.String(100), unique=True)
    private_pem: Mapped[str] = mapped_column(sa.Text)
    public_pem: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class LtiRegistration(Base):
    """A platform (one LMS and the client id it gave this tool), registered by an instructor."""

    __tablename__ = "lti_registration"
    __table_args__ = (sa.UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(sa.String(255))
    client_id: Mapped[str] = mapped_column(sa.String(255))
    auth_login_url: Mapped[str] = mapped_column(sa.String(500))  # the platform's OIDC auth
    auth_token_url: Mapped[str] = mapped_column(sa.String(500))  # OAuth2 client credentials
    key_set_url: Mapped[str] = mapped_column(sa.String(500))  # the platform's JWKS
    auth_audience: Mapped[str | None] = mapped_column(sa.String(500))  # else the token URL
    # Accounts get the LMS's e-mail addresses (when free here) only if an administrator said the
    # platform vouches for them (CLI --trust-emails); else addresses that receive no mail.
    trust_emails: Mapped[bool] = mapped_column(default=False)
    # Origins besides the issuer's and the auth URL's whose pages frame the tool (cloud Canvas:
    # the school's host), set by an administrator: https://host[:port] each, in CSP's syntax.
    frame_origins: Mapped[list[str]] = mapped_column(sa.JSON, default=list, server_default="[]")
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    deployments: Mapped[list[LtiDeployment]] = relationship(
        back_populates="registration", order_by="LtiDeployment.id", cascade="all, delete-orphan"
    )


class LtiDeployment(Base):
    __tablename__ = "lti_deployment"
    __table_args__ = (sa.UniqueConstraint("registration_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    deployment_id: Mapped[str] = mapped_column(sa.String(255))

    registration: Mapped[LtiRegistration] = relationship(back_populates="deployments")


class LtiUser(Base):
    """A platform's user (its `sub`) and the account provisioned for them."""

    __tablename__ = "lti_user"
    __table_args__ = (sa.UniqueConstraint("registration_id", "sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    sub: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)


class LtiContext(Base):
    """An LMS course (context) and the course it opens here, with its service endpoints."""

    __tablename__ = "lti_context"
    __table_args__ = (sa.UniqueConstraint("registration_id", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    context_id: Mapped[str] = mapped_column(sa.String(255))
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    deployment_id: Mapped[str] = mapped_column(sa.String(255))
    title: Mapped[str | None] = mapped_column(sa.String(255))
    lineitems_url: Mapped[str | None] = mapped_column(sa.String(500))  # AGS, from the last launch
    ags_scopes: Mapped[list[Any] | None] = mapped_column(sa.JSON(none_as_null=True))
    memberships_url: Mapped[str | None] = mapped_column(sa.String(500))  # NRPS
    synced_at: Mapped[dt.datetime | None]

    registration: Mapped[LtiRegistration] = relationship()
    course: Mapped[Course] = relationship()


class LtiResourceLink(Base):
    """A link placed in the LMS (by deep linking, or by its instructor's first launch through
    it): an assignment, or one of its slots, and the gradebook column (AGS line item) its
    scores go to."""

    __tablename__ = "lti_resource_link"
    __table_args__ = (sa.UniqueConstraint("context_id", "resource_link_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_context.id", ondelete="CASCADE"), index=True
    )
    resource_link_id: Mapped[str] = mapped_column(sa.String(255))
    assignment_id: Mapped[int] = mapped_column(
        sa.ForeignKey("assignment.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True
    )  # None: the whole assignment
    lineitem_url: Mapped[str | None] = mapped_column(sa.String(500))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    context: Mapped[LtiContext] = relationship()
    assignment: Mapped[Assignment] = relationship()
    slot: Mapped[Slot | None] = relationship()


class LtiPassback(Base):
    """A student's score of a slot on its way to the LMS: marked in the transaction that changed
    it (so a crash after the commit loses nothing), deleted once every platform took it; the
    worker's sweep queues again what is still here after a while (a lost message, an outage)."""

    __tablename__ = "lti_passback"
    __table_args__ = (sa.UniqueConstraint("user_id", "slot_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"))
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True)
    marked_at: Mapped[dt.datetime]  # the latest change to send
    enqueued_at: Mapped[dt.datetime] = mapped_column(index=True)  # the last wake-up sent
    failures: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(sa.Text)  # the platform's last refusal


class LtiLaunchData(Base):
    """pylti1p3's launch data storage (OIDC nonces and state, validated launches), shared by
    every web process instead of the browser session, which a cross-site POST does not carry."""

    __tablename__ = "lti_launch_data"

    key: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(sa.JSON)
    expires_at: Mapped[dt.datetime] = mapped_column(index=True)


class LtiNonce(Base):
    """The nonce of every accepted launch: the unique key refuses a replayed id_token."""

    __tablename__ = "lti_nonce"
    __table_args__ = (sa.UniqueConstraint("registration_id", "nonce"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    nonce: Mapped[str] = mapped_column(sa.String(255))
    expires_at: Mapped[dt.datetime] = mapped_column(index=True)


class LtiRegistrationUrl(Base):
    """A one-time registration URL an administrator made: the LMS's administrator pastes it
    into the LMS, which opens it to register the tool (LTI Dynamic Registration). Only the
    SHA-256 of its secret is stored; it serves once (``used_at``) and until ``expires_at``."""

    __tablename__ = "lti_registration_url"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]
    registration_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="SET NULL")
    )  # the registration it made

    registration: Mapped[LtiRegistration | None] = relationship()
