"""errand's keyed request digest, recomputed on the caller's side (contracts/v1/vectors/README.md)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from .canonical_json import canonical_json
from .normalize_task import normalize_task

REQUEST_DIGEST_DOMAIN = "errand/operation-request/v1"
MIN_KEY_BYTES = 32


def digest_of_normalized(key: bytes, normalized_task: dict[str, Any]) -> str:
    """"hmac-sha256:" + hex HMAC-SHA-256(key, UTF-8(domain + U+0000 + JCS(normalized task)))."""
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"the digest key must be at least {MIN_KEY_BYTES} bytes")
    message = f"{REQUEST_DIGEST_DOMAIN}\0{canonical_json(normalized_task)}".encode("utf-8")
    return "hmac-sha256:" + hmac.new(key, message, hashlib.sha256).hexdigest()


def request_digest(key: bytes, task: dict[str, Any]) -> str:
    """The digest errand gives this task: normalized first, as errand does, then digested."""
    return digest_of_normalized(key, normalize_task(task))


def read_key_file(path: str) -> bytes:
    """A hex key file as errand writes it (ERRAND_HOME/keys/master.key): hex digits, optional newline."""
    with open(path, encoding="ascii") as handle:
        text = handle.read().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError as error:
        raise ValueError(f"{path} is not a hex key file") from error
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"{path} holds {len(key)} bytes; a digest key has at least {MIN_KEY_BYTES}")
    return key
