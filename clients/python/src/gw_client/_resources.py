"""The sync namespaces of Gw: chat, responses, embeddings, models, requests, metrics, cache,
webhooks and admin (docs/api.md "Endpoints")."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Literal, Mapping, Optional, Union, overload

from ._base import path_part as _p
from ._types import ApiObject, Page, RequestOptions

if TYPE_CHECKING:
    from ._client import Gw
    from ._streaming import Stream

Opts = Optional[RequestOptions]


class _Resource:
    def __init__(self, client: "Gw") -> None:
        self._c = client

    def _call(self, method: str, path: str, *, body: Optional[Mapping[str, Any]] = None, query: Optional[Mapping[str, Any]] = None,
              options: Opts = None, idempotency: bool = False, admin: bool = False) -> ApiObject:
        req = self._c._config.prepare(method, path, body=body, query=query, options=options, idempotency=idempotency, admin=admin)
        return self._c._json(req)

    def _create(self, path: str, kind: str, body: Dict[str, Any], options: Opts) -> Union[ApiObject, "Stream"]:
        stream = bool(body.get("stream"))
        req = self._c._config.prepare("POST", path, body=body, options=options, idempotency=True, stream=stream)
        return self._c._stream(req, kind) if stream else self._c._json(req)


class Completions(_Resource):
    @overload
    def create(self, *, stream: Literal[True], request_options: Opts = None, **body: Any) -> "Stream": ...
    @overload
    def create(self, *, stream: Literal[False] = False, request_options: Opts = None, **body: Any) -> ApiObject: ...
    @overload
    def create(self, *, stream: bool, request_options: Opts = None, **body: Any) -> Union[ApiObject, "Stream"]: ...
    def create(self, *, stream: bool = False, request_options: Opts = None, **body: Any) -> Union[ApiObject, "Stream"]:
        """POST /chat/completions; with stream=True an iterator of chunks (`.gw` after the end)."""
        return self._create("/chat/completions", "chat", {**body, "stream": stream or None}, request_options)


class Chat:
    def __init__(self, client: "Gw") -> None:
        self.completions = Completions(client)


class Responses(_Resource):
    @overload
    def create(self, *, stream: Literal[True], request_options: Opts = None, **body: Any) -> "Stream": ...
    @overload
    def create(self, *, stream: Literal[False] = False, request_options: Opts = None, **body: Any) -> ApiObject: ...
    @overload
    def create(self, *, stream: bool, request_options: Opts = None, **body: Any) -> Union[ApiObject, "Stream"]: ...
    def create(self, *, stream: bool = False, request_options: Opts = None, **body: Any) -> Union[ApiObject, "Stream"]:
        """POST /responses; with stream=True an iterator of typed events (`.gw` after the end)."""
        return self._create("/responses", "responses", {**body, "stream": stream or None}, request_options)


class Embeddings(_Resource):
    def create(self, *, request_options: Opts = None, **body: Any) -> ApiObject:
        return self._call("POST", "/embeddings", body=body, options=request_options, idempotency=True)


class Models(_Resource):
    def list(self, *, request_options: Opts = None) -> ApiObject:
        """GET /models: the whole list in one answer (`data`)."""
        return self._call("GET", "/models", options=request_options)

    def retrieve(self, model: str, *, request_options: Opts = None) -> ApiObject:
        return self._call("GET", f"/models/{_p(model)}", options=request_options)


class Requests(_Resource):
    def list(self, *, limit: Optional[int] = None, after: Optional[str] = None, model: Optional[str] = None, status: Optional[int] = None,
             workflow_id: Optional[str] = None, trace_id: Optional[str] = None, request_options: Opts = None) -> Page:
        """GET /requests: one page of the request log, newest first."""
        query = {"limit": limit, "after": after, "model": model, "status": status, "workflow_id": workflow_id, "trace_id": trace_id}
        return Page(self._call("GET", "/requests", query=query, options=request_options))

    def iterate(self, *, limit: Optional[int] = None, after: Optional[str] = None, model: Optional[str] = None, status: Optional[int] = None,
                workflow_id: Optional[str] = None, trace_id: Optional[str] = None, request_options: Opts = None) -> Iterator[Dict[str, Any]]:
        """Every entry, following `last_id` from page to page."""
        while True:
            page = self.list(limit=limit, after=after, model=model, status=status, workflow_id=workflow_id, trace_id=trace_id,
                             request_options=request_options)
            yield from page.data
            if not page.has_more or not page.last_id:
                return
            after = page.last_id

    def get(self, request_id: str, *, request_options: Opts = None) -> ApiObject:
        """GET /requests/{id}: the entry with its trace."""
        return self._call("GET", f"/requests/{_p(request_id)}", options=request_options)

    def feedback(self, request_id: str, *, rating: int, request_options: Opts = None) -> ApiObject:
        """POST /requests/{id}/feedback with a rating from 1 to 5."""
        return self._call("POST", f"/requests/{_p(request_id)}/feedback", body={"rating": rating}, options=request_options)


class Metrics(_Resource):
    def get(self, *, period: Optional[str] = None, request_options: Opts = None) -> ApiObject:
        """GET /metrics; period 1h, 24h (default), 7d or 30d."""
        return self._call("GET", "/metrics", query={"period": period}, options=request_options)


class Cache(_Resource):
    def invalidate(self, *, tags: Optional[List[str]] = None, all: Optional[bool] = None, request_options: Opts = None) -> ApiObject:
        """POST /cache/invalidate by tags or all=True; answers {object, deleted}."""
        return self._call("POST", "/cache/invalidate", body={"tags": tags, "all": all}, options=request_options)


class Webhooks:
    def verify(self, body: Union[str, bytes], headers: Mapping[str, str], secret: str) -> Any:
        """Checks a delivery's Standard Webhooks signature and age (5 minutes); answers the parsed
        payload or raises WebhookVerificationError (docs/webhooks.md "Verifying a delivery")."""
        from ._webhooks import verify

        return verify(body, headers, secret)


class _AdminProjects(_Resource):
    def create(self, *, name: str, request_options: Opts = None, **fields: Any) -> ApiObject:
        return self._call("POST", "/admin/projects", body={"name": name, **fields}, options=request_options, admin=True)

    def list(self, *, request_options: Opts = None) -> ApiObject:
        return self._call("GET", "/admin/projects", options=request_options, admin=True)

    def get(self, project_id: str, *, request_options: Opts = None) -> ApiObject:
        return self._call("GET", f"/admin/projects/{_p(project_id)}", options=request_options, admin=True)

    def update(self, project_id: str, *, request_options: Opts = None, **fields: Any) -> ApiObject:
        return self._call("PATCH", f"/admin/projects/{_p(project_id)}", body=fields, options=request_options, admin=True)


class _AdminKeys(_Resource):
    def create(self, project_id: str, *, request_options: Opts = None, **fields: Any) -> ApiObject:
        """fields: name, scopes, mode ("live" or "test"), byok, ip_allowlist; the secret is `key`."""
        return self._call("POST", f"/admin/projects/{_p(project_id)}/keys", body=fields, options=request_options, admin=True)

    def list(self, project_id: str, *, request_options: Opts = None) -> ApiObject:
        return self._call("GET", f"/admin/projects/{_p(project_id)}/keys", options=request_options, admin=True)

    def revoke(self, key_id: str, *, request_options: Opts = None) -> ApiObject:
        return self._call("DELETE", f"/admin/keys/{_p(key_id)}", options=request_options, admin=True)


class _AdminCredits(_Resource):
    def add(self, project_id: str, *, amount: float, request_options: Opts = None) -> ApiObject:
        return self._call("POST", f"/admin/projects/{_p(project_id)}/credits", body={"amount": amount}, options=request_options, admin=True)


class Admin:
    """The admin API (docs/api.md "Admin API"), authorised by admin_token / GW_ADMIN_TOKEN."""

    def __init__(self, client: "Gw") -> None:
        self.projects = _AdminProjects(client)
        self.keys = _AdminKeys(client)
        self.credits = _AdminCredits(client)
