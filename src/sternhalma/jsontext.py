"""Reading JSON that comes from outside: bounded depth and numbers, Unicode text only.

Python's ``json`` parses any depth until the interpreter's recursion limit breaks
(RecursionError), any integer until ``int`` refuses its 4,300 digits (ValueError), and
lets ``"\\ud800"`` (a lone UTF-16 surrogate) into strings that then fail to encode far
from where they came in. Every JSON the program reads (HTTP bodies, websocket messages,
positions, records, stored rows, the Redis bus) goes through ``read_json``, so each of
these is one ``JsonTextError`` with a readable message where the text arrives.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sternhalma.errors import SternhalmaError

#: The deepest nesting of arrays and objects (a position needs 3, a table's state 6).
MAX_DEPTH = 32
#: The longest text of one number (a version or a time in ms needs at most 16 digits).
MAX_NUMBER = 24

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(r"[^\[\]{}]+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonTextError(SternhalmaError):
    """Text that is not JSON this program reads; the message says why."""


def read_json(text: str | bytes) -> Any:
    """The value of a JSON text; JsonTextError when it is not JSON, is nested deeper
    than MAX_DEPTH, has a number longer than MAX_NUMBER characters (or not finite),
    or is not Unicode text (bad UTF-8, a lone surrogate, raw or escaped)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JsonTextError("it is not UTF-8 text") from None
    if _SURROGATE.search(text):
        raise JsonTextError("it is not Unicode text (a lone surrogate)")
    _check_depth(text)
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_decimal, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise JsonTextError(f"{error.msg} at character {error.pos}") from None
    if _SURROGATE_ESCAPE.search(text) and _has_surrogate(value):
        raise JsonTextError('a string has a lone surrogate (like "\\ud800"), not a character')
    return value


def _check_depth(text: str) -> None:
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # the common case: too few brackets to nest too deep
    depth = 0
    for bracket in _BRACKETS.sub("", _STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise JsonTextError(f"it is nested more than {MAX_DEPTH} deep")


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER:
        raise JsonTextError(f"a number has more than {MAX_NUMBER} digits")
    return int(text)


def _decimal(text: str) -> float:
    value = float(text) if len(text) <= MAX_NUMBER else math.inf
    if not math.isfinite(value):
        raise JsonTextError(f"a number is too long or too large ({text[:12]}...)")
    return value


def _constant(text: str) -> float:
    raise JsonTextError(f"{text} is not a JSON number")


def _has_surrogate(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
