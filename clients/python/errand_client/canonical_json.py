"""RFC 8785 (JSON Canonicalization Scheme) for the JSON values Python's json module produces.

errand (Node) stays the authority on canonical text; this module reproduces it byte for byte so the
client can recompute a request digest, and its tests check the same vectors errand's own tests do.
"""

from __future__ import annotations

import math
from typing import Any

_SHORT_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


class CanonicalJsonError(ValueError):
    """The value has no canonical JSON form (NaN, infinity, an unpaired surrogate, a non-JSON type)."""


def canonical_json(value: Any) -> str:
    """The RFC 8785 text of a JSON value (dict with str keys, list, str, int, float, bool, None)."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, out: list[str]) -> None:
    # bool before int: True is an int in Python.
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(format_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalJsonError(f"object keys must be strings, not {type(key).__name__}")
        out.append("{")
        # Member names sort by their UTF-16 code units; big-endian UTF-16 bytes compare the same way.
        for index, key in enumerate(sorted(value, key=_utf16_units)):
            if index:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    else:
        raise CanonicalJsonError(f"{type(value).__name__} has no JSON form")


def _utf16_units(key: str) -> bytes:
    try:
        return key.encode("utf-16-be")
    except UnicodeEncodeError as error:
        raise CanonicalJsonError("an object key holds an unpaired surrogate") from error


def _string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise CanonicalJsonError("a string holds an unpaired surrogate")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def format_number(number: int | float) -> str:
    """ECMAScript's Number.prototype.toString of the IEEE 754 double nearest to `number`."""
    try:
        value = float(number)
    except OverflowError as error:
        raise CanonicalJsonError("the number is too large for an IEEE 754 double") from error
    if math.isnan(value) or math.isinf(value):
        raise CanonicalJsonError("NaN and infinities have no JSON form")
    if value == 0:
        return "0"  # minus zero too
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that round-trip, as ECMAScript requires; only the layout differs.
    mantissa, _, exponent_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    # value = int(digits) * 10^scale, then without leading or trailing zeros.
    digits = whole + fraction
    scale = (int(exponent_text) if exponent_text else 0) - len(fraction)
    stripped = digits.rstrip("0")
    scale += len(digits) - len(stripped)
    digits = stripped.lstrip("0")
    # point: where the decimal point sits (value = 0.digits * 10^point).
    point = len(digits) + scale
    k = len(digits)
    if k <= point <= 21:
        text = digits + "0" * (point - k)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * (-point) + digits
    else:
        exponent = point - 1
        mark = "+" if exponent >= 0 else "-"
        head = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{head}e{mark}{abs(exponent)}"
    return sign + text
