"""What pylti1p3 reads from this tool, adapted to its interfaces: the registrations and
deployments (`ToolConf`), the launch data storage shared by every process (`LaunchStorage`),
and a launch that fetches a rotated platform key set again (`RotationAwareLaunch`)."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import sqlalchemy as sa
from pylti1p3.contrib.flask import FlaskMessageLaunch
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import DisableSessionId, LaunchDataStorage
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract

from grader.extensions import db
from grader.models import LtiLaunchData, LtiRegistration, utcnow
from grader.services.lti.registrations import tool_key
from grader.services.transactions import writing

# OIDC state and nonces, and validated launches (deep linking reads its launch back): a login
# must finish, and an instructor place a link, within this; rows past it are deleted.
LAUNCH_DATA_SECONDS = 7_200
# A platform's key set is fetched again on an id_token whose kid it lacks (the platform
# rotated its key), at most once in this many seconds per key set URL: forged kids cannot
# make the service hammer the LMS.
JWKS_REFETCH_SECONDS = 5
_NO_KEY = "Unable to find public key"


def platform_registration(reg: LtiRegistration) -> Registration:
    """pylti1p3's registration for one of ours, signed with the tool's key pair."""
    key = tool_key()
    out = (
        Registration()
        .set_issuer(reg.issuer)
        .set_client_id(reg.client_id)
        .set_auth_login_url(reg.auth_login_url)
        .set_auth_token_url(reg.auth_token_url)
        .set_key_set_url(reg.key_set_url)
        .set_tool_private_key(key.private_pem)
        .set_tool_public_key(key.public_pem)
    )
    if reg.auth_audience:
        out.set_auth_audience(reg.auth_audience)
    return out


def _find_registration(iss: str, client_id: str | None) -> LtiRegistration | None:
    query = sa.select(LtiRegistration).where(LtiRegistration.issuer == iss)
    if client_id:
        return db.session.scalar(query.where(LtiRegistration.client_id == client_id))
    found = list(db.session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None  # no client id: only an unambiguous issuer


class ToolConf(ToolConfAbstract):
    """Registrations and deployments from the database; an issuer may have many client ids."""

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Any:
        reg = _find_registration(iss, None)
        return platform_registration(reg) if reg else None

    def find_registration_by_params(
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Any:
        reg = _find_registration(iss, client_id)
        return platform_registration(reg) if reg else None

    def find_deployment(self, iss: str, deployment_id: str) -> Any:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Any:
        reg = _find_registration(iss, client_id)
        if reg is None or not any(d.deployment_id == deployment_id for d in reg.deployments):
            return None
        return Deployment().set_deployment_id(deployment_id)


class LaunchStorage(LaunchDataStorage):
    """pylti1p3's launch data storage in the database: the OIDC nonce and state, and validated
    launches, reach every web process (the browser session would not survive the LMS's
    cross-site POST). They are keyed by the random state, nonce and launch id alone, not by
    pylti1p3's `lti1p3-session-id` cookie: a browser that blocks third-party cookies drops it in
    the LMS's frame, and every launch would fail; what binds a launch to the browser is its
    state (pylti1p3's state cookie, or the platform's storage: services/lti/frames.py)."""

    def get_session_cookie_name(self) -> str | None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return db.session.scalar(
            sa.select(LtiLaunchData.value).where(
                LtiLaunchData.key == self._prepare_key(key)[:255],
                LtiLaunchData.expires_at > utcnow(),
            )
        )

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        key = self._prepare_key(key)[:255]
        now = utcnow()
        with writing() as session:
            session.execute(
                sa.delete(LtiLaunchData).where(
                    sa.or_(LtiLaunchData.key == key, LtiLaunchData.expires_at <= now)
                )
            )
            seconds = min(exp or LAUNCH_DATA_SECONDS, LAUNCH_DATA_SECONDS)
            session.add(
                LtiLaunchData(key=key, value=value, expires_at=now + dt.timedelta(seconds=seconds))
            )

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None


class RotationAwareLaunch(FlaskMessageLaunch):
    """pylti1p3's launch, which fetches the platform's key set again (once per launch, and
    at most once per JWKS_REFETCH_SECONDS per platform) when the id_token's kid is not in the
    cached set, where pylti1p3 alone would refuse until the cache expires."""

    _refetched = False
    #: The platform's storage frame that holds this launch's state, when its login put it
    #: there (services/lti/frames.py): the browser reads it back before the launch counts.
    storage_target: str | None = None

    def validate_state(self) -> RotationAwareLaunch:
        try:
            super().validate_state()
            return self
        except LtiException:
            state = self._get_request_param("state")
            kept = LaunchStorage().get_value(f"frame-state-{state}") if state else None
            if not (isinstance(kept, dict) and isinstance(kept.get("target"), str)):
                raise
            self.storage_target = kept["target"]
            return self

    def get_public_key(self) -> tuple[str, str]:
        try:
            return super().get_public_key()
        except LtiException as error:
            registration, storage = self._registration, self._public_key_cache_data_storage
            if str(error) != _NO_KEY or self._refetched or registration is None or storage is None:
                raise
            url = registration.get_key_set_url()
            if not url:
                raise
            self._refetched = True
            digest = hashlib.md5(url.encode("utf-8")).hexdigest()
            with DisableSessionId(storage):
                gate = "key-set-refetch-" + digest
                if storage.check_value(gate):
                    raise LtiException(
                        f"{_NO_KEY} (the platform's key set was fetched again less than "
                        f"{JWKS_REFETCH_SECONDS} s ago)"
                    ) from error
                storage.set_value(gate, True, JWKS_REFETCH_SECONDS)
                storage.set_value("key-set-url-" + digest, {}, 1)  # pylti1p3's cache key
            registration.set_key_set(None)
            return super().get_public_key()
