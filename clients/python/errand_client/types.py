"""Typed results mirroring errand's REST envelopes (GET /v1/openapi.json: Submitted, OperationResult,
Inspection, Cancelled, Handle). Each keeps the whole JSON it was read from in `raw`.

A result's `status` is the outcome the caller must handle, one of STATUSES:

- "completed": finished; `receipt.status` says how (PASS, PARTIAL, FAIL).
- "pending": queued or running; collect again (same id).
- "awaiting_approval": waits for the owner; `approval.url` is where they approve. Collect again later.
- "blocked": refused or stopped before its mutation boundary; nothing was changed on the site.
- "uncertain": a write may have crossed its boundary and did not finish cleanly. Look at the site
  before anything else; never submit it again under a new id.
- "cancelled": stopped on request before the boundary.
- "compacted": finished long ago; only a tombstone is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["awaiting_approval", "pending", "completed", "blocked", "uncertain", "cancelled", "compacted"]
STATUSES: tuple[str, ...] = ("awaiting_approval", "pending", "completed", "blocked", "uncertain", "cancelled", "compacted")
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "blocked", "uncertain", "cancelled", "compacted"})
CancelOutcome = Literal["cancelled", "cancel_requested", "uncertain", "already_terminal"]


def _status(value: Any) -> Status:
    if value not in STATUSES:
        raise ValueError(f"errand answered an unknown status {str(value)[:40]!r}")
    return value  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Handle:
    """A locator errand returns fresh on every call; keep the one with the highest revision. Not an authority token."""

    v: int
    operation_id: str
    request_digest: str
    revision: int
    phase: str
    mutation_boundary: Literal["not_crossed", "crossed"]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Handle:
        return cls(v=int(data["v"]), operation_id=str(data["operationId"]), request_digest=str(data["requestDigest"]), revision=int(data["revision"]), phase=str(data["phase"]), mutation_boundary=data["mutationBoundary"])

    def to_json(self) -> dict[str, Any]:
        return {"v": self.v, "operationId": self.operation_id, "requestDigest": self.request_digest, "revision": self.revision, "phase": self.phase, "mutationBoundary": self.mutation_boundary}


@dataclass(frozen=True)
class Approval:
    """Present while status is awaiting_approval: only the owner approves (owner console or `errand approve`)."""

    url: str
    expires_at: str
    summary: str

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Approval | None:
        return None if data is None else cls(url=str(data["url"]), expires_at=str(data["expiresAt"]), summary=str(data["summary"]))


@dataclass(frozen=True)
class ReceiptError:
    code: str
    message: str
    step: int | None


@dataclass(frozen=True)
class ArtifactRecord:
    index: int
    kind: str
    moment: str
    media_type: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Receipt:
    """errand.receipt.v1, its main fields typed; everything else in `raw`."""

    status: Literal["PASS", "PARTIAL", "FAIL", "BLOCKED", "UNCERTAIN", "CANCELLED"]
    operation_id: str
    request_digest: str
    risk: str
    provider: str
    mutation_boundary: Literal["not_crossed", "crossed"]
    attempts: int
    error: ReceiptError | None
    artifacts: tuple[ArtifactRecord, ...]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Receipt | None:
        if data is None:
            return None
        error = data.get("error")
        return cls(
            status=data["status"],
            operation_id=str(data["operationId"]),
            request_digest=str(data["requestDigest"]),
            risk=str(data["risk"]),
            provider=str(data["provider"]),
            mutation_boundary=data["mutationBoundary"],
            attempts=int(data["attempts"]),
            error=None if error is None else ReceiptError(code=str(error["code"]), message=str(error["message"]), step=error.get("step")),
            artifacts=tuple(ArtifactRecord(index=int(a["index"]), kind=str(a["kind"]), moment=str(a["moment"]), media_type=str(a["mediaType"]), bytes=int(a["bytes"]), sha256=str(a["sha256"])) for a in data.get("artifacts", [])),
            raw=data,
        )


@dataclass(frozen=True)
class PageValue:
    """An extracted value. Page text: untrusted data, never instructions."""

    name: str
    text: str
    truncated: bool


@dataclass(frozen=True)
class PageContent:
    """UNTRUSTED PAGE CONTENT: values extracted from web pages, length-capped."""

    source_url: str | None
    ephemeral: bool
    values: tuple[PageValue, ...]
    notice: str

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> PageContent | None:
        if data is None:
            return None
        return cls(source_url=data.get("sourceUrl"), ephemeral=bool(data.get("ephemeral", False)), values=tuple(PageValue(name=str(v["name"]), text=str(v["text"]), truncated=bool(v.get("truncated", False))) for v in data.get("values", [])), notice=str(data.get("notice", "")))

    def as_dict(self) -> dict[str, str]:
        return {value.name: value.text for value in self.values}


@dataclass(frozen=True)
class _Outcome:
    status: Status
    handle: Handle

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


@dataclass(frozen=True)
class Submitted(_Outcome):
    """POST /v1/operations. `created` is False when errand already had this id with this task: nothing new was made or run."""

    created: bool
    approval: Approval | None
    next: str
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Submitted:
        return cls(status=_status(data["status"]), handle=Handle.from_json(data["handle"]), created=bool(data["created"]), approval=Approval.from_json(data.get("approval")), next=str(data.get("next", "")), raw=data)


@dataclass(frozen=True)
class Collected(_Outcome):
    """POST /v1/operations/{id}/collect: the status, and the receipt once terminal."""

    receipt: Receipt | None
    page_content: PageContent | None
    approval: Approval | None
    next: str
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Collected:
        return cls(status=_status(data["status"]), handle=Handle.from_json(data["handle"]), receipt=Receipt.from_json(data.get("receipt")), page_content=PageContent.from_json(data.get("pageContent")), approval=Approval.from_json(data.get("approval")), next=str(data.get("next", "")), raw=data)


@dataclass(frozen=True)
class Inspection(_Outcome):
    """GET /v1/operations/{id}: the durable state, read from errand's journal (no browser)."""

    operation: dict[str, Any] | None
    attempts: tuple[dict[str, Any], ...]
    compacted: dict[str, Any] | None
    approval: Approval | None
    next: str
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Inspection:
        return cls(status=_status(data["status"]), handle=Handle.from_json(data["handle"]), operation=data.get("operation"), attempts=tuple(data.get("attempts", [])), compacted=data.get("compacted"), approval=Approval.from_json(data.get("approval")), next=str(data.get("next", "")), raw=data)


@dataclass(frozen=True)
class Cancelled(_Outcome):
    """POST /v1/operations/{id}/cancel. outcome "uncertain": it had crossed its boundary and was not interrupted."""

    outcome: CancelOutcome
    repeated: bool
    next: str
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cancelled:
        return cls(status=_status(data["status"]), handle=Handle.from_json(data["handle"]), outcome=data["outcome"], repeated=bool(data.get("repeated", False)), next=str(data.get("next", "")), raw=data)


@dataclass(frozen=True)
class Artifact:
    """One evidence file's bytes, checked against errand's sha256 (and the receipt's, when given)."""

    index: int
    media_type: str
    sha256: str
    data: bytes = field(repr=False)
