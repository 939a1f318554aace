"""What the client raises. Outcomes of a task (blocked, uncertain, ...) are not exceptions: they are
the `status` of a result. These are refusals, lost answers and failed checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .types import Handle


class ErrandClientError(Exception):
    """Base class of everything this package raises."""


class LocalNormalizationError(ErrandClientError, ValueError):
    """The client cannot reproduce errand's normalization of this value, so it cannot digest the task
    locally; nothing was sent. `path` is the JSON Pointer of the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '(task)'}: {message}")
        self.path = path


class ErrandError(ErrandClientError):
    """errand refused the call: `code` is errand's error code (docs/ERRORS.md), `message` says what to do next."""

    def __init__(self, code: str, message: str, *, http_status: int, problems: list[dict[str, Any]] | None = None, handle: Handle | None = None, retry_after: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.http_status = http_status
        self.problems = problems or []
        self.handle = handle
        self.retry_after = retry_after


class IdentityMismatch(ErrandError):
    """This operationId names a different task (or one this token may not see). Nothing new was
    created. Do not retry with a new id to get past it: find out which task the id belongs to."""


class OperationNotFound(ErrandError):
    """No operation this token may see has this id. After a lost submit answer this means the submit
    never landed: submitting the same task under the same id again is safe."""


class InvalidTask(ErrandError):
    """The task was refused before anything ran; `problems` lists each field with its JSON Pointer."""


class Unauthorized(ErrandError):
    """No or invalid API token (errand token create)."""


class RateLimited(ErrandError):
    """Too many failed authentications; `retry_after` seconds."""


class OutcomeUnknown(ErrandClientError):
    """The connection dropped or timed out after the request may have reached errand: whether the
    call took effect is unknown. Recover with inspect/collect of the same `operation_id`; never
    submit the task again under a new id."""

    def __init__(self, method: str, path: str, operation_id: str | None, cause: BaseException) -> None:
        advice = f" Inspect operation {operation_id} (same id) to learn what happened." if operation_id else ""
        super().__init__(f"{method} {path}: the answer was lost ({type(cause).__name__}: {cause}).{advice}")
        self.method = method
        self.path = path
        self.operation_id = operation_id


class DigestMismatch(ErrandClientError):
    """errand's answer names another request digest (or operation) than the one computed locally for
    the task: the operation errand holds under this id is not the request the caller made. Fail
    closed: do not act on the answer; `answer` holds it for the record."""

    def __init__(self, message: str, *, expected: str, received: str, answer: Any = None) -> None:
        super().__init__(f"{message}: expected {expected}, errand answered {received}")
        self.expected = expected
        self.received = received
        self.answer = answer


class ArtifactMismatch(ErrandClientError):
    """An artifact's bytes do not hash to the sha256 errand (or its receipt) states for them."""
