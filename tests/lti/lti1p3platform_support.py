"""An LMS built on `lti1p3platform` (PyPI), a platform no one here wrote, served on loopback.

The package gives a platform's protocol: the OIDC login initiation, the signed id_token of a
resource link or deep-linking launch (its AGS and deep-linking claims), the platform's JWKS, the
OAuth2 token endpoint's checks of the tool's signed client assertion, the check of the tool's
signed LtiDeepLinkingResponse, and the check of its own access tokens. It leaves the web
framework (its adapters are Django's and FastAPI's) and the gradebook to its user: here a Flask
adapter of a few lines (the request, the redirect, the auto-posted form) and the line items and
scores an LMS keeps, each score endpoint taking only a token the package issued and validates.
"""

from __future__ import annotations

import html
import secrets
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, abort, jsonify, redirect, request
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from werkzeug.serving import make_server

from tests.live_server import SHUTDOWN_POLL

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


class FlaskPlatformRequest(Request):
    """The package's request, read from Flask's (its own adapters read Django's, FastAPI's)."""

    def build_metadata(self, request: Any) -> TRequest:
        return {
            "method": request.method,
            "form_data": request.form.to_dict(),
            "get_data": request.args.to_dict(),
            "headers": request.headers,
            "content_type": request.content_type,
            "path": request.path,
            "json": request.get_json(silent=True),
        }


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Any:
        return redirect(url)


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        # The package's own template module needs pkg_resources; the form is the same.
        return (
            f'<form method="post" action="{html.escape(launch_data["launch_url"])}">'
            f'<input type="hidden" name="id_token" value="{html.escape(launch_data["id_token"])}">'
            f'<input type="hidden" name="state" value="{html.escape(launch_data["state"])}">'
            "</form><script>document.forms[0].submit()</script>"
        )


@dataclass
class Pending:
    """A launch the LMS starts: who, and through what (a link, or deep linking)."""

    sub: str
    roles: list[str]
    deep_linking: bool = False
    resource_link: str | None = None
    custom: dict[str, str] | None = None


@dataclass
class LMS:
    tool: str  # the tool's base URL as the browser reaches it
    tool_jwks: dict[str, Any]
    issuer: str = "https://lms.lti1p3platform.example"
    client_id: str = "grader-on-lti1p3platform"
    deployment_id: str = "deployment-a"
    context_id: str = "new-course-1"
    base: str = ""
    pending: dict[str, Pending] = field(default_factory=dict)
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    placed: list[dict[str, Any]] = field(default_factory=list)  # content items received
    tokens_issued: int = 0

    def __post_init__(self) -> None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        self.public_pem = (
            key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )

    def config(self) -> LTI1P3PlatformConfAbstract:
        lms = self

        class Conf(LTI1P3PlatformConfAbstract):
            def init_platform_config(self, **kwargs: Any) -> None:
                pass

            def get_registration_by_params(self, **kwargs: Any) -> Registration:
                return (
                    Registration()
                    .set_iss(lms.issuer)
                    .set_client_id(lms.client_id)
                    .set_deployment_id(lms.deployment_id)
                    .set_oidc_login_url(f"{lms.tool}/lti/login")
                    .set_launch_url(f"{lms.tool}/lti/launch")
                    .set_deeplink_launch_url(f"{lms.tool}/lti/launch")
                    .set_platform_public_key(lms.public_pem)
                    .set_platform_private_key(lms.private_pem)
                    .set_tool_key_set(lms.tool_jwks)  # the tool's keys, as the admin pasted them
                )

        return Conf()

    def start(self, pending: Pending) -> str:
        """The URL the LMS's page sends the browser to for this launch."""
        hint = secrets.token_hex(8)
        self.pending[hint] = pending
        return f"{self.base}/start?hint={hint}"

    def bearer(self, scope: str) -> None:
        auth = request.headers.get("Authorization", "")
        conf = self.config()
        conf.get_registration()
        try:
            ok = auth.startswith("Bearer ") and conf.validate_token(auth[7:], [scope])
        except Exception:
            ok = False
        if not ok:
            abort(401)

    def app(self) -> Flask:
        app = Flask("lti1p3platform-lms")

        @app.get("/start")
        def start() -> Any:
            pending = self.pending[request.args["hint"]]
            login = Login(FlaskPlatformRequest(request), self.config())
            login.set_lti_message_hint(hint=request.args["hint"])
            if pending.deep_linking:
                login.set_deeplinking_launch_url()
            return login.initiate_login(pending.sub)

        @app.get("/auth")
        def auth() -> Any:
            pending = self.pending.pop(request.args["lti_message_hint"])
            if (
                request.args.get("login_hint") != pending.sub
                or request.args.get("redirect_uri") != f"{self.tool}/lti/launch"
            ):
                abort(400)  # the package does not check these; an LMS must
            launch = Launch(FlaskPlatformRequest(request), self.config())
            launch.set_user_data(pending.sub, pending.roles, full_name=pending.sub.title())
            launch.set_launch_context_claim(self.context_id, context_title="A new LMS course")
            launch.set_ags(f"{self.base}/lineitems", allow_creating_lineitems=True)
            if pending.deep_linking:
                launch.set_dl(f"{self.base}/deep_link_return", accept_types={"ltiResourceLink"})
            else:
                launch.set_resource_link_claim(pending.resource_link or "")
                if pending.custom:
                    launch.set_custom_parameters_claim(pending.custom)
            return launch.lti_launch()

        @app.get("/jwks")
        def jwks() -> Any:
            conf = self.config()
            conf.get_registration()
            return jsonify(conf.get_jwks())

        @app.post("/token")
        def token() -> Any:
            conf = self.config()
            conf.get_registration()
            try:
                answer = conf.get_access_token(request.form.to_dict())
            except Exception as error:
                return jsonify(error="invalid_client", error_description=str(error)), 401
            self.tokens_issued += 1
            return jsonify(answer)

        @app.post("/deep_link_return")
        def deep_link_return() -> Any:
            conf = self.config()
            conf.get_registration()
            try:
                items = conf.validate_deeplinking_resp(request.form.to_dict())
            except Exception as error:  # a bad signature, message type or content type
                return f"refused: {error}", 400
            for item in items:
                item["_resource_link_id"] = f"link-{uuid.uuid4().hex[:8]}"
                self.placed.append(item)
                spec = item.get("lineItem")
                if spec:
                    self.add_lineitem(spec, item["_resource_link_id"])
            return "placed"

        @app.route("/lineitems", methods=["GET", "POST"])
        def lineitems() -> Any:
            self.bearer(LINEITEM_SCOPE)
            if request.method == "POST":
                body = request.get_json(force=True)
                return jsonify(self.add_lineitem(body, body.get("resourceLinkId", ""))), 201
            wanted = request.args.get("resource_link_id")
            return jsonify(
                [i for i in self.lineitems.values() if not wanted or i["resourceLinkId"] == wanted]
            )

        @app.post("/lineitems/<number>/scores")
        def scores(number: str) -> Any:
            self.bearer(SCORE_SCOPE)
            if request.mimetype != "application/vnd.ims.lis.v1.score+json":
                abort(415)
            self.scores.setdefault(f"{self.base}/lineitems/{number}", []).append(
                request.get_json(force=True)
            )
            return "", 204

        return app

    def add_lineitem(self, spec: dict[str, Any], resource_link_id: str) -> dict[str, Any]:
        url = f"{self.base}/lineitems/{len(self.lineitems) + 1}"
        item = {
            "id": url,
            "label": spec.get("label", ""),
            "scoreMaximum": spec["scoreMaximum"],
            "resourceId": spec.get("resourceId", ""),
            "resourceLinkId": resource_link_id,
            "tag": spec.get("tag", ""),
        }
        self.lineitems[url] = item
        return item


class ServedLMS:
    """The LMS on a real loopback HTTP server, in a thread."""

    def __init__(self, lms: LMS) -> None:
        self.lms = lms
        self.server = make_server("127.0.0.1", 0, lms.app(), threaded=True)
        lms.base = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)
