"""A small LTI 1.3 platform (an LMS's side), written from the IMS specifications, served on
loopback by a real HTTP server in a thread.

It has an RSA key and its JWKS; an OIDC authorization endpoint answering the tool's login
redirect with a signed id_token in an auto-post form (LTI Core 1.3, section 5.1); an OAuth2
token endpoint for the client-credentials grant with a JWT assertion signed by the tool
(LTI Security Framework, section 4.1), checked against the tool's public keys; Assignment and
Grade Services line items and scores (AGS 2.0), Names and Role Provisioning memberships with
paging by Link header (NRPS 2.0), and the deep-linking return endpoint, which checks the
tool's signed LtiDeepLinkingResponse and creates the line item it asks for.

This one can rotate its key, go down, refuse a roster and say how often it was asked; the
loop also runs against an LMS built on `lti1p3platform` from PyPI (test_lti1p3platform.py).
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, abort, jsonify, request
from werkzeug.serving import make_server

from tests.live_server import SHUTDOWN_POLL

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


# The platform's pages post their forms at once, as an LMS's do.
AUTO_SUBMIT = "<script>document.forms[0].submit()</script>"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


def pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@dataclass
class Member:
    sub: str
    name: str
    email: str
    roles: list[str]
    status: str = "Active"


@dataclass
class Platform:
    """The LMS: one issuer, one client id and deployment for the tool, one course context."""

    issuer: str = "https://lms.example.edu"
    client_id: str = "grader-client-1"
    deployment_id: str = "deployment-1"
    context_id: str = "course-188"
    context_title: str = "CS 188: Artificial Intelligence"
    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    kid: str = "platform-key-1"
    tool_jwks: dict[str, Any] | None = None  # the tool's public keys, as the admin pasted them
    base: str = ""
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    members: list[Member] = field(default_factory=list)
    tokens: dict[str, list[str]] = field(default_factory=dict)
    deep_link_replies: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)  # login_hint -> claims
    score_status: int = 200  # what the scores endpoint answers (a platform that is down: 503)
    refused: int = 0  # scores the endpoint refused
    members_status: int = 200  # what the memberships endpoint answers
    tool_redirect_uris: list[str] = field(default_factory=list)
    return_url: str = ""  # the deep-linking return URL it sends (default: its own endpoint)
    jwks_fetches: int = 0  # GETs of its key set
    # LTI Dynamic Registration: the registration tokens it hands out, and the tools registered
    registration_tokens: set[str] = field(default_factory=set)
    registered_tools: list[dict[str, Any]] = field(default_factory=list)
    config_issuer: str = ""  # the issuer its OpenID configuration names (default: its own)

    def rotate_key(self, kid: str) -> None:
        """A new key pair, served at the same JWKS URL (the old one is gone)."""
        self.key, self.kid = new_key(), kid

    # -- what the platform signs ---------------------------------------------------------

    def sign(
        self,
        claims: dict[str, Any],
        *,
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
    ) -> str:
        return jwt.encode(
            claims, pem(key or self.key), algorithm="RS256", headers={"kid": kid or self.kid}
        )

    def launch_claims(
        self,
        member: Member,
        *,
        message_type: str = "LtiResourceLinkRequest",
        resource_link: str | None = "link-1",
        custom: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """The claims of a launch, without iss/aud/nonce/exp (the auth endpoint adds them)."""
        claims: dict[str, Any] = {
            "sub": member.sub,
            "name": member.name,
            "email": member.email,
            CLAIM + "message_type": message_type,
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "roles": member.roles,
            CLAIM + "context": {
                "id": self.context_id,
                "title": self.context_title,
                "label": "CS188",
                "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
            },
            AGS: {
                "scope": SCOPES,
                "lineitems": f"{self.base}/contexts/{self.context_id}/lineitems",
            },
            NRPS: {
                "context_memberships_url": f"{self.base}/contexts/{self.context_id}/memberships",
                "service_versions": ["2.0"],
            },
        }
        if message_type == "LtiDeepLinkingRequest":
            claims[DL] = {
                "deep_link_return_url": self.return_url or f"{self.base}/deep_link_return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["window", "iframe"],
                "accept_multiple": False,
                "data": "platform-opaque-data",
            }
        elif resource_link is not None:
            claims[CLAIM + "resource_link"] = {"id": resource_link, "title": "A link"}
            item = next(
                (i for i in self.lineitems.values() if i.get("resourceLinkId") == resource_link),
                None,
            )
            if item is not None:
                claims[AGS]["lineitem"] = item["id"]
        if custom is not None:
            claims[CLAIM + "custom"] = custom
        return claims

    def id_token(self, claims: dict[str, Any], nonce: str, **overrides: Any) -> str:
        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": self.client_id,
            "azp": self.client_id,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            **claims,
        }
        body.update({k: v for k, v in overrides.items() if k not in ("key", "kid")})
        return self.sign(body, key=overrides.get("key"), kid=overrides.get("kid"))

    # -- checks of what the tool sends ----------------------------------------------------

    def verify_tool_jwt(self, token: str, audience: str) -> dict[str, Any]:
        assert self.tool_jwks is not None, "the tool's keys were not given to the platform"
        kid = jwt.get_unverified_header(token).get("kid")
        jwk = next(k for k in self.tool_jwks["keys"] if k.get("kid") == kid)
        key = jwt.algorithms.RSAAlgorithm.from_jwk(jwk)
        return jwt.decode(token, key, algorithms=["RS256"], audience=audience)

    def bearer(self, scope: str) -> None:
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or scope not in self.tokens.get(auth[7:], []):
            abort(401)

    def add_lineitem(
        self,
        label: str,
        maximum: float,
        *,
        resource_id: str = "",
        resource_link_id: str = "",
        tag: str = "",
        end: str | None = None,
    ) -> dict[str, Any]:
        number = str(len(self.lineitems) + 1)
        url = f"{self.base}/contexts/{self.context_id}/lineitems/{number}"
        item = {
            "id": url,
            "label": label,
            "scoreMaximum": maximum,
            "resourceId": resource_id,
            "resourceLinkId": resource_link_id,
            "tag": tag,
        }
        if end is not None:
            item["endDateTime"] = end
        self.lineitems[url] = item
        return item

    # -- the HTTP side --------------------------------------------------------------------

    def app(self) -> Flask:
        app = Flask("lti_platform")

        @app.get("/jwks")
        def jwks() -> Any:
            self.jwks_fetches += 1
            return jsonify(keys=[public_jwk(self.key, self.kid)])

        @app.get("/.well-known/openid-configuration")
        def openid_configuration() -> Any:
            """LTI Dynamic Registration 1.0, section 3.4: the platform's configuration."""
            return jsonify(
                {
                    "issuer": self.config_issuer or self.issuer,
                    "authorization_endpoint": f"{self.base}/auth",
                    "token_endpoint": f"{self.base}/token",
                    "jwks_uri": f"{self.base}/jwks",
                    "registration_endpoint": f"{self.base}/register",
                    "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                    "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
                    "id_token_signing_alg_values_supported": ["RS256"],
                    "response_types_supported": ["id_token"],
                    "scopes_supported": ["openid", *SCOPES, NRPS_SCOPE],
                    "subject_types_supported": ["public"],
                    "claims_supported": ["iss", "sub", "name", "email"],
                    "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                        "product_family_code": "loopback-lms",
                        "version": "1.0",
                        "messages_supported": [
                            {"type": "LtiResourceLinkRequest"},
                            {"type": "LtiDeepLinkingRequest"},
                        ],
                    },
                }
            )

        @app.get("/admin/tools/register")
        def register_page() -> Any:
            """The LMS administrator's page after pasting the tool's registration URL: it frames
            that URL with the platform's configuration and a fresh registration token, and
            says "closed" once the tool asks it to close (org.imsglobal.lti.close)."""
            token = secrets.token_urlsafe(12)
            self.registration_tokens.add(token)
            query = urlencode(
                {
                    "openid_configuration": f"{self.base}/.well-known/openid-configuration",
                    "registration_token": token,
                }
            )
            src = html.escape(f"{request.args['url']}?{query}")
            return (
                "<!doctype html><title>Register a tool</title><h1>Register a tool</h1>"
                f'<p id="state">registering</p><iframe title="The tool" src="{src}"'
                ' width="800" height="400"></iframe><script>'
                'window.addEventListener("message", (event) => {'
                ' if (event.data && event.data.subject === "org.imsglobal.lti.close") {'
                ' document.getElementById("state").textContent = "closed";'
                ' document.querySelector("iframe").remove(); } });</script>'
            )

        @app.post("/register")
        def register_tool() -> Any:
            """Section 3.5: the tool's client registration, with the registration token; the
            client id and deployment the platform gives it. The tool's redirect URIs and key
            set URL are what later launches and service tokens are checked against."""
            auth = request.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in self.registration_tokens:
                return jsonify(error="invalid_token"), 401
            self.registration_tokens.discard(auth[7:])
            body = request.get_json(force=True)
            tool = body.get("https://purl.imsglobal.org/spec/lti-tool-configuration")
            if (
                body.get("token_endpoint_auth_method") != "private_key_jwt"
                or body.get("response_types") != ["id_token"]
                or not body.get("redirect_uris")
                or not body.get("initiate_login_uri")
                or not body.get("jwks_uri")
                or not isinstance(tool, dict)
                or not tool.get("target_link_uri")
            ):
                return jsonify(error="invalid_client_metadata"), 400
            self.registered_tools.append(body)
            self.tool_redirect_uris = list(body["redirect_uris"])
            answer = {
                **body,
                "client_id": self.client_id,
                "https://purl.imsglobal.org/spec/lti-tool-configuration": {
                    **tool,
                    "deployment_id": self.deployment_id,
                },
            }
            return jsonify(answer)

        @app.get("/auth")
        def auth() -> Any:
            args = request.args
            if (
                args.get("client_id") != self.client_id
                or args.get("scope") != "openid"
                or args.get("response_type") != "id_token"
                or args.get("response_mode") != "form_post"
                or args.get("redirect_uri") not in self.tool_redirect_uris
            ):
                abort(400)
            claims = self.pending.pop(args.get("lti_message_hint", ""), None)
            if claims is None or claims["sub"] != args.get("login_hint"):
                abort(403)
            token = self.id_token(claims, args["nonce"])
            fields = {"id_token": token, "state": args["state"]}
            inputs = "".join(
                f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                for k, v in fields.items()
            )
            return (
                f'<form method="post" action="{html.escape(args["redirect_uri"])}">'
                f"{inputs}</form>" + AUTO_SUBMIT
            )

        @app.get("/start")
        def start() -> Any:
            """What the LMS's page does when a user clicks the tool: third-party login
            initiation at the tool (`tool` and `hint` name the tool and a prepared launch)."""
            hint = request.args["hint"]
            fields = {
                "iss": self.issuer,
                "login_hint": self.pending[hint]["sub"],
                "lti_message_hint": hint,
                "client_id": self.client_id,
                "target_link_uri": request.args["tool"] + "/lti/launch",
                "lti_deployment_id": self.deployment_id,
            }
            if request.args.get("storage"):  # the page framing the tool keeps its state
                fields["lti_storage_target"] = "_parent"
            inputs = "".join(
                f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                for k, v in fields.items()
            )
            action = html.escape(request.args["tool"] + "/lti/login")
            return f'<form method="post" action="{action}">{inputs}</form>' + AUTO_SUBMIT

        @app.get("/frame")
        def frame() -> Any:
            """An LMS page that opens the tool embedded, as Moodle, Canvas and Brightspace do:
            an iframe starting the launch (`start`'s arguments). With `storage`, the page is
            the platform's storage for the tool's OIDC state (1EdTech LTI Client-Side
            postMessages, Platform Storage: lti.put_data and lti.get_data, answered only to
            the tool's origin, kept per origin)."""
            tool = request.args["tool"]
            query = urlencode({k: v for k, v in request.args.items()})
            script = (
                "<script>const tool = " + json.dumps(tool) + "; const kept = new Map();"
                "window.addEventListener('message', (event) => {"
                " const d = event.data || {}; if (event.origin !== tool) return;"
                " const key = event.origin + ' ' + d.key;"
                " if (d.subject === 'lti.put_data') kept.set(key, d.value);"
                " else if (d.subject !== 'lti.get_data') return;"
                " event.source.postMessage({subject: d.subject + '.response',"
                " message_id: d.message_id, key: d.key, value: kept.get(key)}, event.origin);"
                "});</script>"
                if request.args.get("storage")
                else ""
            )
            return (
                "<!doctype html><title>CS 188 · LMS</title><h1>CS 188 in the LMS</h1>"
                f'<iframe name="tool" title="Alpha-Beta Grader" src="/start?{html.escape(query)}"'
                ' style="width: 1200px; height: 800px"></iframe>' + script
            )

        @app.post("/token")
        def token() -> Any:
            form = request.form
            if (
                form.get("grant_type") != "client_credentials"
                or form.get("client_assertion_type")
                != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
            ):
                return jsonify(error="unsupported_grant_type"), 400
            try:
                claims = self.verify_tool_jwt(form["client_assertion"], f"{self.base}/token")
            except Exception:
                return jsonify(error="invalid_client"), 401
            if claims.get("iss") != self.client_id or claims.get("sub") != self.client_id:
                return jsonify(error="invalid_client"), 401
            allowed = [*SCOPES, NRPS_SCOPE]
            granted = [s for s in form.get("scope", "").split() if s in allowed]
            access = secrets.token_urlsafe(16)
            self.tokens[access] = granted
            return jsonify(
                access_token=access, token_type="Bearer", expires_in=3600, scope=" ".join(granted)
            )

        @app.route("/contexts/<context>/lineitems", methods=["GET", "POST"])
        def lineitems(context: str) -> Any:
            self.bearer(SCOPES[0])
            if request.method == "POST":
                body = request.get_json(force=True)
                item = self.add_lineitem(
                    body["label"],
                    body["scoreMaximum"],
                    resource_id=body.get("resourceId", ""),
                    resource_link_id=body.get("resourceLinkId", ""),
                    tag=body.get("tag", ""),
                    end=body.get("endDateTime"),
                )
                return jsonify(item), 201
            items = list(self.lineitems.values())
            if request.args.get("resource_link_id"):
                items = [
                    i for i in items if i["resourceLinkId"] == request.args["resource_link_id"]
                ]
            return jsonify(items)

        @app.get("/contexts/<context>/lineitems/<number>")
        def lineitem(context: str, number: str) -> Any:
            self.bearer(SCOPES[0])
            return jsonify(self.lineitems[request.base_url])

        @app.post("/contexts/<context>/lineitems/<number>/scores")
        def scores(context: str, number: str) -> Any:
            self.bearer(SCOPES[2])
            if request.mimetype != "application/vnd.ims.lis.v1.score+json":
                abort(415)
            url = request.base_url.rsplit("/scores", 1)[0]
            if url not in self.lineitems:
                abort(404)
            if self.score_status != 200:
                self.refused += 1
                abort(self.score_status)
            body = request.get_json(force=True)
            for key in (
                "userId",
                "scoreGiven",
                "scoreMaximum",
                "timestamp",
                "activityProgress",
                "gradingProgress",
            ):
                if key not in body:
                    abort(400)
            self.scores.setdefault(url, []).append(body)
            return "", 204

        @app.get("/contexts/<context>/memberships")
        def memberships(context: str) -> Any:
            self.bearer(NRPS_SCOPE)
            if self.members_status != 200:
                abort(self.members_status)
            page = int(request.args.get("page", "0"))
            size = 2
            chunk = self.members[page * size : (page + 1) * size]
            body = {
                "id": request.url,
                "context": {"id": self.context_id, "title": self.context_title},
                "members": [
                    {
                        "user_id": m.sub,
                        "name": m.name,
                        "email": m.email,
                        "roles": m.roles,
                        "status": m.status,
                    }
                    for m in chunk
                ],
            }
            response = jsonify(body)
            response.mimetype = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
            if (page + 1) * size < len(self.members):
                following = f"{request.base_url}?{urlencode({'page': page + 1})}"
                response.headers["Link"] = f'<{following}>; rel="next"'
            return response

        @app.post("/deep_link_return")
        def deep_link_return() -> Any:
            claims = self.verify_tool_jwt(request.form["JWT"], self.issuer)
            self.deep_link_replies.append(claims)
            for item in claims.get(
                "https://purl.imsglobal.org/spec/lti-dl/claim/content_items", []
            ):
                if item.get("type") == "ltiResourceLink" and item.get("lineItem"):
                    link_id = f"link-{uuid.uuid4().hex[:8]}"
                    item["_resource_link_id"] = link_id
                    spec = item["lineItem"]
                    self.add_lineitem(
                        spec.get("label", item.get("title", "")),
                        spec["scoreMaximum"],
                        resource_id=spec.get("resourceId", ""),
                        resource_link_id=link_id,
                        tag=spec.get("tag", ""),
                        end=spec.get("endDateTime"),
                    )
            return "placed"

        return app


class Served:
    """The platform on a real loopback HTTP server, in a thread."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.server = make_server("127.0.0.1", 0, platform.app(), threaded=True)
        platform.base = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


_FORM_INPUT = re.compile(r'name="(\w+)" value="([^"]*)"')


def form_fields(page: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _FORM_INPUT.findall(page)}
