"""JSON endpoints declared with pydantic models that both validate requests and make the
OpenAPI 3.1 document, so the document cannot drift from what the server accepts."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Flask, jsonify, make_response, request
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema

from grader.web.inputs import strict_loads

_RULE_ARG = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_ERROR_STATUSES = {
    "400": "Malformed request or ungradable answer",
    "401": "Not signed in, or the API token is not valid",
    "403": "Not allowed",
    "404": "Absent, or not yours",
    "409": "Not possible now (no attempts left, due date passed)",
    "413": "Request body too large",
    "414": "Request line too long (the server's limit, before the application)",
    "429": "Too many uploads, or too much costly work from this account: nothing was stored; "
           "wait for Retry-After seconds",
    "503": "Busy (the database's write lock, or every slot for costly work): nothing was "
           "stored; retry after Retry-After seconds",
}
# Statuses only some operations give (named in `route(errors=...)`).
_OPTIONAL_STATUSES = {"409", "429"}


class Error(BaseModel):
    error: str
    details: list[dict[str, Any]] | None = None


class RequestError(Exception):
    """A request that does not match its schema (a 400 with the validation details)."""

    def __init__(self, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.details = details


def error_response(status: int, message: str, details: list[dict[str, Any]] | None = None):
    body = Error(error=message, details=details).model_dump(mode="json", exclude_none=True)
    return make_response(jsonify(body), status)


def _parse(model: type[BaseModel], data: Any, where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        details = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
        first = details[0]
        loc = ".".join(str(p) for p in first["loc"]) or where
        raise RequestError(f"{where}: {loc}: {first['msg']}", details) from None


def _json_body() -> Any:
    if not request.is_json:
        raise RequestError("send the body as JSON (Content-Type: application/json)")
    try:
        return strict_loads(request.get_data(cache=True))
    except ValueError as exc:  # also a body that is not UTF-8 (UnicodeDecodeError)
        raise RequestError(f"the request body is not valid JSON: {exc}") from None


@dataclass
class Operation:
    method: str
    rule: str
    endpoint: str
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    public: bool = False
    description: str = ""
    errors: tuple[str, ...] = ()  # optional statuses this operation may give (409, 429)
    form: dict[str, Any] | None = None  # a multipart/form-data body's JSON Schema


@dataclass
class Api:
    """A blueprint whose routes carry their request and response models."""

    blueprint: Blueprint
    title: str
    version: str
    operations: list[Operation] = field(default_factory=list)
    public_endpoints: set[str] = field(default_factory=set)  # no authentication

    def route(self, method: str, rule: str, *, summary: str, tag: str,
              body: type[BaseModel] | None = None, query: type[BaseModel] | None = None,
              response: type[BaseModel] | None = None, status: int = 200,
              public: bool = False, errors: tuple[str, ...] = (),
              form: dict[str, Any] | None = None
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Registers a view; it receives `body=` and `query=` already validated and may return
        a model (serialized with `status`) or any Flask response."""

        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(fn)
            def view(**path: Any) -> Any:
                kwargs = dict(path)
                if body is not None:
                    data = _json_body()
                    if not isinstance(data, dict):
                        raise RequestError("the request body must be a JSON object")
                    kwargs["body"] = _parse(body, data, "body")
                if query is not None:
                    given = request.args.to_dict(flat=False)
                    repeated = sorted(name for name, values in given.items() if len(values) > 1)
                    if repeated:
                        raise RequestError(f"query: {repeated[0][:40]!r} is given more than once")
                    kwargs["query"] = _parse(query, request.args.to_dict(), "query")
                result = fn(**kwargs)
                if isinstance(result, BaseModel):
                    return jsonify(result.model_dump(mode="json")), status
                return result

            self.blueprint.add_url_rule(rule, endpoint=fn.__name__, view_func=view,
                                        methods=[method])
            endpoint = f"{self.blueprint.name}.{fn.__name__}"
            if public:
                self.public_endpoints.add(endpoint)
            self.operations.append(Operation(
                method=method, rule=rule, endpoint=endpoint,
                summary=summary, tag=tag, body=body, query=query, response=response,
                status=status, public=public, description=(fn.__doc__ or "").strip(),
                errors=errors, form=form))
            return view

        return decorate

    def is_public(self, endpoint: str | None) -> bool:
        return endpoint in self.public_endpoints

    def spec(self, app: Flask) -> dict[str, Any]:
        """The OpenAPI 3.1 document of every registered operation."""
        models: list[tuple[type[BaseModel], str]] = [(Error, "serialization")]
        for op in self.operations:
            models += [(m, "validation") for m in (op.body, op.query) if m is not None]
            if op.response is not None:
                models.append((op.response, "serialization"))
        refs, defs = models_json_schema(list(dict.fromkeys(models)),
                                        ref_template="#/components/schemas/{model}")
        error_ref = refs[(Error, "serialization")]
        rules = {r.endpoint: r.rule for r in app.url_map.iter_rules()}
        paths: dict[str, dict[str, Any]] = {}
        for op in self.operations:
            full = rules[op.endpoint]
            parameters = [
                {"name": name, "in": "path", "required": True,
                 "schema": {"type": "integer" if conv == "int" else "string"}}
                for conv, name in _RULE_ARG.findall(full)]
            if op.query is not None:
                schema = op.query.model_json_schema()
                for name, prop in schema.get("properties", {}).items():
                    parameters.append({"name": name, "in": "query",
                                       "required": name in schema.get("required", []),
                                       "schema": prop})
            operation: dict[str, Any] = {
                "operationId": op.endpoint.split(".", 1)[1],
                "summary": op.summary,
                "tags": [op.tag],
                "responses": {},
            }
            if op.description:
                operation["description"] = op.description
            if parameters:
                operation["parameters"] = parameters
            if op.body is not None:
                operation["requestBody"] = {"required": True, "content": {
                    "application/json": {"schema": refs[(op.body, "validation")]}}}
            if op.form is not None:
                operation["requestBody"] = {"required": True, "content": {
                    "multipart/form-data": {"schema": op.form}}}
            success: dict[str, Any] = {"description": "OK" if op.status == 200 else "Created"}
            if op.response is not None:
                success["content"] = {
                    "application/json": {"schema": refs[(op.response, "serialization")]}}
            operation["responses"][str(op.status)] = success
            for code, text in _ERROR_STATUSES.items():
                if op.public and code not in ("400", "414"):
                    continue  # the public no-op and this document answer nothing else
                if op.body is None and op.form is None and code == "413":
                    continue
                if code in _OPTIONAL_STATUSES and code not in op.errors:
                    continue
                operation["responses"][code] = {
                    "description": text, "content": {"application/json": {"schema": error_ref}}}
            if op.public:
                operation["security"] = []
            paths.setdefault(_RULE_ARG.sub(r"{\2}", full), {})[op.method.lower()] = operation
        return {
            "openapi": "3.1.0",
            "info": {"title": self.title, "version": self.version},
            "paths": paths,
            "components": {
                "schemas": defs.get("$defs", {}),
                "securitySchemes": {
                    "bearer": {"type": "http", "scheme": "bearer",
                               "description": "a personal token from the account page or `grader user token create EMAIL`"},
                    "session": {"type": "apiKey", "in": "cookie", "name": "session",
                                "description": "the page's session; unsafe methods also need "
                                               "the X-CSRFToken header"},
                },
            },
            "security": [{"bearer": []}, {"session": []}],
        }
