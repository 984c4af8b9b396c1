"""The JSON API under /api: the same services the pages use. Bearer token or session (+CSRF).

Routes are plain Flask views on one blueprint; spectree validates each one's query, JSON body or
multipart form from the pydantic models in `schemas.py` and writes the OpenAPI document from the
same models. Bodies are read first by our strict JSON loader (`web/inputs.py`): spectree then
sees only what that loader accepted, and its validation errors become our `{"error", "details"}`
400s."""

from __future__ import annotations

import threading
from typing import Any, cast

from flask import Blueprint, current_app, g, jsonify, make_response, request
from flask import Response as FlaskResponse
from flask_login import current_user
from pydantic import ValidationError
from spectree import Response, SecurityScheme, SecuritySchemeData, SpecTree
from spectree.metadata import FunctionDecorator
from spectree.model_adapter.protocol import ModelAdapter
from spectree.model_adapter.pydantic_adapter import PydanticModelAdapter
from spectree.models import InType, SecureType
from spectree.plugins.flask_plugin import FlaskPlugin
from werkzeug.exceptions import BadRequest

from grader.extensions import csrf
from grader.ratelimits import limiter
from grader.services import accounts, totp
from grader.web.api import schemas, scopes
from grader.web.api.schemas import Error
from grader.web.inputs import strict_loads

bp = Blueprint("api", __name__, url_prefix="/api")
csrf.exempt(bp)  # checked below for session requests only; Bearer requests carry no cookie risk

_SAFE = {"GET", "HEAD", "OPTIONS"}


@limiter.request_filter
def _no_route_limits() -> bool:
    """No /api route carries a Flask-Limiter limit of its own (the services count theirs,
    `ratelimits.retry_after`), so its requests skip the limiter's per-request check (3% of a
    graded submission's time), unless the deployment sets limits for every route
    (``RATELIMIT_DEFAULT`` or ``RATELIMIT_APPLICATION``), which then hold on /api too."""
    config = current_app.config
    return request.blueprint == bp.name and not (
        config.get("RATELIMIT_DEFAULT") or config.get("RATELIMIT_APPLICATION")
    )


#: What each error status means, for every operation that can give it.
_ERRORS = {
    400: "Malformed request or ungradable answer",
    401: "Not signed in, or the API token is not valid",
    403: "Not allowed (for a token: it lacks this operation's scope, which the message names)",
    404: "Absent, or not yours",
    409: "Not possible now (no attempts left, due date passed, the account's practice "
    "exercises at their quota), or not possible here (an engine slot has no exercise: its work "
    "is uploaded to /api/engines)",
    413: "Request body too large",
    422: "Well formed, but what it asks cannot be done: an answer that does not fit the "
    "exercise's kind or tree (`kind` names the exercise's kind), a tree too large, generator "
    "parameters no tree meets",
    414: "Request line too long (the server's limit, before the application)",
    429: "Too many uploads, new practice exercises or costly work from this account: nothing "
    "was stored; wait for Retry-After seconds",
    503: "Busy (the database's write lock, or every slot for costly work): nothing was stored; "
    "retry after Retry-After seconds",
}
#: Responses that are not JSON: their 2xx media type (spectree documents JSON bodies only).
_MEDIA = {
    "api_gradebook_csv": "text/csv",
    "engine_game_pdn": "application/x-checkers-pdn",
    "api_me_export": "application/zip",
}


class RequestError(Exception):
    """A request that does not match its schema (a 400 with the validation details)."""

    def __init__(self, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.details = details


def error_response(
    status: int,
    message: str,
    details: list[dict[str, Any]] | None = None,
    *,
    kind: str | None = None,
) -> Any:
    body = Error(error=message, details=details, kind=kind).model_dump(
        mode="json", exclude_none=True
    )
    return make_response(jsonify(body), status)


def _refused(
    _request: Any, _response: Any, error: Exception | None, _instance: Any, _adapter: Any
) -> None:
    """spectree's `before` hook: a request that breaks its model is our 400, with details."""
    if not isinstance(error, ValidationError):
        return
    # pydantic says "Value error, " before a validator's own words: the words alone.
    details = [
        {"loc": list(e["loc"]), "msg": e["msg"].removeprefix("Value error, ")}
        for e in error.errors()
    ]
    metadata = _metadata()  # the query's model, or the body's (JSON or form)
    where = "query" if metadata is not None and metadata.query == error.title else "body"
    loc = ".".join(str(p) for p in details[0]["loc"])  # none: the whole body's rule
    raise RequestError(f"{where}: {loc + ': ' if loc else ''}{details[0]['msg']}", details)


class _Plugin(FlaskPlugin):
    """spectree's Flask plugin, named by view (operationId `submit_attempt`, not a path)."""

    def get_func_operation_id(self, func: Any, path: str, method: str) -> str:
        return str(func.__name__)


class _Adapter(PydanticModelAdapter):
    """spectree's pydantic adapter, without the refused input in its errors (an upload's file
    cannot be written as JSON, and a hostile input is not echoed)."""

    def validation_errors(self, err: ValidationError) -> Any:
        return err.errors(include_context=False, include_input=False, include_url=False)


class _SchemasWhenAsked(SpecTree):
    """spectree writing each model's JSON schema when the OpenAPI document is first asked for,
    in the order the routes added them, instead of at each route's decoration: the document is
    the same, and a process that never serves it (a `grader` command, a queue worker, most
    servers) does not spend half a second of CPU on 200 schemas. Validation reads the models
    themselves, never these schemas."""

    def __init__(self, **options: Any) -> None:
        self._pending: list[tuple[Any, Any]] = []
        # A server's threads may ask together: one writes, the others wait for every schema.
        # Writing a schema reads `models` again in the same thread, which `_writing` lets by.
        self._lock = threading.RLock()
        self._writing = False
        super().__init__(**options)

    @property  # spectree's `models` attribute, filled when read
    def models(self) -> dict[str, Any]:
        with self._lock:
            if not self._writing:
                self._writing = True
                try:
                    while self._pending:
                        model, mode = self._pending.pop(0)
                        super()._add_model(model=model, mode=mode)
                finally:
                    self._writing = False
        return self._schemas

    @models.setter
    def models(self, value: dict[str, Any]) -> None:
        self._schemas = value

    def _add_model(self, model: Any, mode: Any = "validation") -> str:
        self._pending.append((model, mode))
        return str(self.naming_strategy(model))


spec = _SchemasWhenAsked(
    backend=_Plugin,
    model_adapter=cast("ModelAdapter[Any, Exception, Any]", _Adapter()),
    title="Alpha-Beta Grader API",
    version="1",
    mode="strict",
    before=_refused,
    validation_error_status=400,
    validation_error_model=Error,
    # Every model has its own name in schemas.py: the document names them so.
    naming_strategy=lambda model: model.__name__,
    nested_naming_strategy=lambda _parent, child: child,
    security_schemes=[
        SecurityScheme(
            name="bearer",
            data=SecuritySchemeData(
                type=SecureType.HTTP,
                scheme="bearer",
                description="a personal token from the account page or "
                "`grader user token create EMAIL --scope ...`. A token carries scopes: `read` "
                "(reading what the account may see), `submit` (answers, practice exercises, "
                "variants, engine uploads), `staff` (the instructors' and TAs' operations). "
                "Each operation's `security` names the scope it needs (OpenAPI 3.1 lets an "
                "`http` scheme list roles); a token without it gets 403 naming the scope. A "
                "new password and signing out everywhere revoke every token of the account.",
            ),
        ),
        SecurityScheme(
            name="session",
            data=SecuritySchemeData(
                type=SecureType.API_KEY,
                field_in=InType.COOKIE,
                name="session",
                description="the page's session; unsafe methods also need the X-CSRFToken header",
            ),
        ),
    ],
    security=[{"bearer": []}, {"session": []}],
)


def responses(
    ok: Any = None,
    status: int = 200,
    *,
    also: tuple[int, ...] = (),
    body: bool = False,
    public: bool = False,
) -> Response:
    """An operation's documented responses: `ok` (a model, or None for a non-JSON body) under
    `status`, and the errors it can give: 400/401/403/404/414/503 always (none but 400 and 414
    for a public operation), 413 with a `body`, and `also` (409, 429) where the service says."""
    codes = (
        [400, 414]
        if public
        else sorted({400, 401, 403, 404, 414, 503, *also, *((413,) if body else ())})
    )
    return Response(
        **{f"HTTP_{status}": ok}, **{f"HTTP_{code}": (Error, _ERRORS[code]) for code in codes}
    )


def download(text: str, name: str, mimetype: str) -> FlaskResponse:
    """A file to save (results.json, a PDN game, the gradebook as CSV)."""
    return FlaskResponse(
        text, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


def _metadata() -> FunctionDecorator | None:
    """What spectree knows of this request's view: its models, whether it is public."""
    view = current_app.view_functions.get(request.endpoint or "")
    return None if view is None else spec.get_function_metadata(view)


@bp.before_request
def authenticate() -> Any:
    """`g.user` from `Authorization: Bearer TOKEN`, else from the session (with CSRF on writes)."""
    metadata = _metadata()
    if metadata is not None and metadata.security == {}:  # public
        return None
    needed = scopes.needed(request.endpoint)
    header = request.headers.get("Authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        use = accounts.user_for_token(token.strip()) if scheme.lower() == "bearer" else None
        if use is None:
            return error_response(401, "the API token is not valid")
        if needed is None:  # every operation is in the table; one that is not takes no token
            return error_response(403, "this operation takes no API token")
        if needed not in use.scopes:
            held = ", ".join(s for s in accounts.SCOPES if s in use.scopes)
            return error_response(
                403,
                f"this token lacks the {needed!r} scope this operation needs (it has: {held}); "
                "make a token with it on the account page",
            )
        g.user = use.user
    elif not current_user.is_authenticated:
        return error_response(401, "sign in, or send Authorization: Bearer TOKEN")
    else:
        if request.method not in _SAFE:
            csrf.protect()
        g.user = current_user._get_current_object()
    if totp.missing(g.user):  # a token of any scope: a staff account reads students' work
        return error_response(403, totp.TOKEN_REFUSED)
    return None


def _why_not_json() -> str:
    try:
        strict_loads(request.get_data(cache=True))
    except ValueError as exc:  # also a body that is not UTF-8 (UnicodeDecodeError)
        return str(exc)
    return "unreadable"


@bp.before_request
def read_strictly() -> None:
    """The body as our strict loader reads it (Flask caches it; spectree validates that), a
    form only as a form, and no query parameter twice."""
    metadata = _metadata()
    if metadata is None:
        return
    if metadata.json is not None:
        if not request.is_json:
            raise RequestError("send the body as JSON (Content-Type: application/json)")
        try:
            data = request.get_json()  # app.json is the strict loader; the result is cached
        except BadRequest:  # Flask keeps no reason: the loader's own words, read again
            raise RequestError(f"the request body is not valid JSON: {_why_not_json()}") from None
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object")
    if metadata.form is not None and request.mimetype not in FlaskPlugin.FORM_MIMETYPE:
        raise RequestError("send the upload as multipart/form-data")
    if metadata.query is not None:
        repeated = sorted(name for name, values in request.args.lists() if len(values) > 1)
        if repeated:
            raise RequestError(f"query: {repeated[0][:40]!r} is given more than once")


@bp.get("/openapi.json")
@spec.validate(resp=responses(schemas.OpenAPIDocument, public=True), tags=["service"], security={})
def openapi() -> FlaskResponse:
    """This document"""
    document: dict[str, Any] = spec.spec
    for operations in document["paths"].values():
        for operation in operations.values():
            media = _MEDIA.get(operation["operationId"])
            if media is not None:  # spectree writes JSON content only; these bodies are text
                ok = next(code for code in operation["responses"] if code.startswith("2"))
                schema = {"type": "string"}
                if media == "application/zip":  # bytes, not text
                    schema["format"] = "binary"
                operation["responses"][ok]["content"] = {media: {"schema": schema}}
            needed = scopes.NEEDED.get(operation["operationId"])
            if needed is not None:
                operation["security"] = [{"bearer": [needed]}, {"session": []}]
    upload = document["paths"]["/api/engines"]["post"]["requestBody"]["content"]
    # The file types taken (the name decides: engine.py, or a .zip with engine.py at its top).
    upload["multipart/form-data"]["encoding"] = {
        "file": {"contentType": "text/x-python, application/zip"}
    }
    return jsonify(document)


from grader.web.api import engines, instructor, student  # noqa: E402  # their routes

__all__ = [
    "RequestError",
    "bp",
    "download",
    "engines",
    "error_response",
    "instructor",
    "responses",
    "schemas",
    "scopes",
    "spec",
    "student",
]
