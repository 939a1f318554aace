"""errand's Python client: submit, inspect, collect, cancel and artifacts over errand's REST API,
with the request digest recomputed locally. Standard library only. See README.md."""

from .aio import AsyncErrandClient
from .canonical_json import CanonicalJsonError, canonical_json
from .client import MAX_POLL_INTERVAL_MS, MAX_WAIT_MS, ErrandClient
from .errors import (
    ArtifactMismatch,
    DigestMismatch,
    ErrandClientError,
    ErrandError,
    IdentityMismatch,
    InvalidTask,
    LocalNormalizationError,
    OperationNotFound,
    OutcomeUnknown,
    RateLimited,
    Unauthorized,
)
from .normalize_task import normalize_task
from .request_digest import REQUEST_DIGEST_DOMAIN, read_key_file, request_digest
from .types import STATUSES, TERMINAL_STATUSES, Approval, Artifact, ArtifactRecord, Cancelled, Collected, Handle, Inspection, PageContent, Receipt, Submitted

__all__ = [
    "Approval",
    "Artifact",
    "ArtifactMismatch",
    "ArtifactRecord",
    "AsyncErrandClient",
    "CanonicalJsonError",
    "Cancelled",
    "Collected",
    "DigestMismatch",
    "ErrandClient",
    "ErrandClientError",
    "ErrandError",
    "Handle",
    "IdentityMismatch",
    "Inspection",
    "InvalidTask",
    "LocalNormalizationError",
    "MAX_POLL_INTERVAL_MS",
    "MAX_WAIT_MS",
    "OperationNotFound",
    "OutcomeUnknown",
    "PageContent",
    "REQUEST_DIGEST_DOMAIN",
    "RateLimited",
    "Receipt",
    "STATUSES",
    "Submitted",
    "TERMINAL_STATUSES",
    "Unauthorized",
    "canonical_json",
    "normalize_task",
    "read_key_file",
    "request_digest",
]
__version__ = "0.1.0"
