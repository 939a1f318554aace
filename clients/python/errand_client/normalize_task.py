"""The normalized form of an errand.task.v1 task, as `errand validate` prints it, for digesting.

errand validates and normalizes every task itself; this is only the projection the client needs to
recompute a request digest before it sends the task. Where a value needs a rule this module does
not reproduce exactly (an unusual URL, a non-ASCII attribute name, an IDNA deviation character), it
refuses with LocalNormalizationError naming the field instead of guessing: write that value as
`errand validate` prints it (the normalized form is its own normalization) and it passes.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import LocalNormalizationError

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# ECMAScript String.prototype.trim: WhiteSpace and LineTerminator code points.
_JS_WHITESPACE = "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters a URL path, query or fragment may hold for the local rule to equal WHATWG's without
# percent-encoding anything (the two sets differ only outside this list).
_URL_SAFE = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$")
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")
_DOTTED_QUAD = re.compile(r"^(0|[1-9][0-9]{0,2})(\.(0|[1-9][0-9]{0,2})){3}$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
# UTS 46 deviation characters: WHATWG keeps them, IDNA 2003 (Python's idna codec) maps them.
_IDNA_DEVIATIONS = set("\u00df\u03c2\u200c\u200d")
_DOT_SEGMENTS = {".", "%2e"}
_DOUBLE_DOT_SEGMENTS = {"..", ".%2e", "%2e.", "%2e%2e"}


def normalize_task(task: dict[str, Any]) -> dict[str, Any]:
    """The task with errand's defaults filled in and its spellings normalized (see contracts/v1/vectors/README.md)."""
    if not isinstance(task, dict):
        raise LocalNormalizationError("", "a task is a JSON object")
    out: dict[str, Any] = dict(task)
    operation_id = task.get("operationId")
    if not isinstance(operation_id, str) or not _UUID.match(operation_id):
        raise LocalNormalizationError("/operationId", "operationId must be a UUID you choose and reuse on every retry")
    out["operationId"] = operation_id.lower()
    target = task.get("target")
    if isinstance(target, dict) and isinstance(target.get("url"), str):
        out["target"] = {**target, "url": normalize_url(target["url"], "/target/url")}
    hosts = task.get("allowedHosts", [])
    if isinstance(hosts, list):
        out["allowedHosts"] = sorted({normalize_host_pattern(h, f"/allowedHosts/{i}") for i, h in enumerate(hosts)}, key=lambda h: h.encode("utf-16-be"))
    out.setdefault("approved", False)
    out.setdefault("secretApproval", False)
    out.setdefault("evidenceRetention", "minimal")
    out.setdefault("provider", "auto")
    if "timeouts" in task and isinstance(task["timeouts"], dict) and not task["timeouts"]:
        del out["timeouts"]
    evidence = task.get("evidence")
    if isinstance(evidence, dict) and evidence.get("screenshots", "none") == "none" and set(evidence) <= {"screenshots"}:
        del out["evidence"]
    steps = task.get("steps")
    if isinstance(steps, list):
        out["steps"] = [_normalize_step(step, f"/steps/{i}") for i, step in enumerate(steps)]
    return out


def _normalize_step(step: Any, path: str) -> Any:
    if not isinstance(step, dict):
        return step
    out = dict(step)
    action = step.get("action")
    if action in ("goto", "expect_url") and isinstance(step.get("url"), str):
        out["url"] = normalize_url(step["url"], f"{path}/url")
    if action == "expect_text":
        out.setdefault("match", "contains")
    if action == "expect_url":
        out.setdefault("match", "exact")
    if action == "fill_secret" and "envVar" in step and "secret" not in step:
        out["secret"] = out.pop("envVar")
    if action == "extract_attribute" and isinstance(step.get("attribute"), str):
        name = step["attribute"].strip(_JS_WHITESPACE)
        if not name.isascii():
            raise LocalNormalizationError(f"{path}/attribute", "a non-ASCII attribute name is not normalized locally; write it in lowercase ASCII")
        out["attribute"] = name.lower()
    return out


def normalize_url(raw: str, path: str) -> str:
    """WHATWG href of an absolute http(s) URL, for the URLs whose normalization this module reproduces."""
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):(.*)$", raw, re.S)
    if match is None:
        raise LocalNormalizationError(path, "not an absolute URL")
    scheme = match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        raise LocalNormalizationError(path, f'URL scheme "{scheme}:" is not allowed; only http: and https: are')
    rest = match.group(2)
    if not rest.startswith("//") or "\\" in rest:
        _unsure(path)
    rest = rest[2:]
    authority_end = min((rest.find(c) for c in "/?#" if c in rest), default=len(rest))
    authority, tail = rest[:authority_end], rest[authority_end:]
    if "@" in authority or authority.startswith("["):
        _unsure(path)
    host, _, port_text = authority.partition(":")
    host = _normalize_host(host, path)
    port = ""
    if port_text:
        if not port_text.isdigit() or not port_text.isascii() or int(port_text) > 65535:
            raise LocalNormalizationError(path, "the URL's port is not a number from 0 to 65535")
        if int(port_text) != _DEFAULT_PORTS[scheme]:
            port = f":{int(port_text)}"
    fragment_at = tail.find("#")
    fragment = tail[fragment_at:] if fragment_at >= 0 else ""
    before_fragment = tail[:fragment_at] if fragment_at >= 0 else tail
    query_at = before_fragment.find("?")
    query = before_fragment[query_at:] if query_at >= 0 else ""
    url_path = before_fragment[:query_at] if query_at >= 0 else before_fragment
    # WHATWG percent-encodes ' in a special URL's query, nowhere else among these characters.
    for part in (url_path, query[1:].replace("'", "\u0000"), fragment[1:]):
        if not _URL_SAFE.match(part.replace("?", "")) or _PERCENT.search(part):
            _unsure(path)
    return f"{scheme}://{host}{port}{_resolve_dot_segments(url_path)}{query}{fragment}"


def _resolve_dot_segments(url_path: str) -> str:
    segments = url_path.split("/")[1:] if url_path else [""]
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        lowered = segment.lower()
        if lowered in _DOUBLE_DOT_SEGMENTS:
            if out:
                out.pop()
            if last:
                out.append("")
        elif lowered in _DOT_SEGMENTS:
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/" + "/".join(out)


def _normalize_host(host: str, path: str) -> str:
    if host == "":
        raise LocalNormalizationError(path, "URL has no host")
    ascii_host = _to_ascii(host, path)
    labels = ascii_host.split(".")
    if _DOTTED_QUAD.match(ascii_host):
        if all(int(label) <= 255 for label in labels):
            return ascii_host
        _unsure(path)
    last = labels[-1] if labels[-1] else (labels[-2] if len(labels) > 1 else "")
    if _NUMERIC_LABEL.match(last) or not all(_HOST_LABEL.match(label) for label in labels if label) or "" in labels[:-1]:
        _unsure(path)
    return ascii_host


def _to_ascii(host: str, path: str) -> str:
    if host.isascii():
        return host.lower()
    if _IDNA_DEVIATIONS & set(host):
        _unsure(path)
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError as error:
        raise LocalNormalizationError(path, "the host is not a valid international name") from error


def normalize_host_pattern(raw: Any, path: str) -> str:
    """An allowedHosts entry as errand stores it: lowercase ASCII, one trailing dot dropped, "*." kept."""
    if not isinstance(raw, str):
        raise LocalNormalizationError(path, "each allowedHosts entry is a string")
    if _DOTTED_QUAD.match(raw):
        return raw
    if raw.startswith("["):
        _unsure(path)
    wildcard = raw.startswith("*.")
    name = raw[2:] if wildcard else raw
    if name.endswith("."):
        name = name[:-1]
    if name == "" or re.search(r"[\s/\\?#@:\[\]%*]", name):
        raise LocalNormalizationError(path, "not a plain hostname; write only the host, e.g. example.com or *.example.com")
    ascii_name = _to_ascii(name, path)
    if not all(_HOST_LABEL.match(label) for label in ascii_name.split(".")):
        raise LocalNormalizationError(path, "not a valid hostname (labels of 1-63 letters, digits or hyphens)")
    return f"*.{ascii_name}" if wildcard else ascii_name


def _unsure(path: str) -> None:
    raise LocalNormalizationError(path, "this URL needs a normalization rule the Python client does not reproduce; write it as `errand validate` prints it")
