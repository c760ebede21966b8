"""What crosses Redis, and the pipe to a thinking process: data as JSON, never code.

Whoever can write to the job queue's Redis would run code in every worker if jobs
were pickled (arq's default), and in every server if results were. So a work is a
JSON object with its type and its fields: ``{"type": "move", ...}`` a ``Job``
(server/thinking/jobs.py), ``{"type": "analysis", "work": ..., "args": [...]}`` an
``AnalysisJob`` (server/web/review.py). An arq payload (``dumps``, ``loads``) is
arq's own dictionary as JSON: ``{"t": try, "f": function, "a": [work], "k": {},
"et": ms}`` for a job, and for its result the same with ``"s"`` (success), ``"r"``
(the answer text, or ``{"error": type, "message": text}``), ``"st"``, ``"ft"``,
``"q"`` and ``"id"``.

Reading (``read_work``, ``loads``) takes text through ``read_json`` and builds
nothing but those two dataclasses, each field checked against its declared type,
an analysis's work one of ``WORK`` and its arguments those of the function. A
pickle, another type, a field missing, extra or of another type is refused with
``Unreadable``, which says why; a worker answers a job it cannot read as failed
(arq does, with the error) and takes the next.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import types
from dataclasses import fields
from typing import Any, Union, get_args, get_origin, get_type_hints

from sternhalma.errors import SternhalmaError
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.server.thinking import Work
from sternhalma.server.thinking.analysis import WORK, AnalysisJob
from sternhalma.server.thinking.jobs import Job

#: The work types by their tag in JSON.
TYPES: dict[str, type[Job] | type[AnalysisJob]] = {"move": Job, "analysis": AnalysisJob}
#: The keys of arq's job payload, and of its result payload.
JOB_KEYS = frozenset({"t", "f", "a", "k", "et"})
RESULT_KEYS = JOB_KEYS | {"s", "r", "st", "ft", "q", "id"}


class Unreadable(SternhalmaError):
    """A payload or a work that is not one sternhalma sends; the message says why."""


class WorkerError(Exception):
    """A job's failure as its worker reported it (the error's type and message)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind


# -- work ----------------------------------------------------------------------------------
def write_work(work: Work) -> dict[str, Any]:
    """``work`` as a JSON object with its type; TypeError for another kind of work."""
    for tag, kind in TYPES.items():
        if type(work) is kind:
            return {"type": tag} | {f.name: getattr(work, f.name) for f in fields(kind)}
    raise TypeError(f"{type(work).__name__} is not work the thinking can send")


def read_work(value: object) -> Work:
    """The work that ``write_work`` wrote; Unreadable for anything else."""
    if not isinstance(value, dict):
        raise Unreadable(f"a work is a JSON object, not {_name(value)}")
    tag = value.get("type")
    kind = TYPES.get(tag) if isinstance(tag, str) else None
    if kind is None:
        raise Unreadable(f"{tag!r} is not a type of work (one of {', '.join(TYPES)})")
    names = {f.name for f in fields(kind)}
    given = set(value) - {"type"}
    if given - names:
        raise Unreadable(f"a {tag!r} work has no field {', '.join(sorted(given - names))}")
    if names - given:
        raise Unreadable(f"a {tag!r} work needs the field {', '.join(sorted(names - given))}")
    hints = get_type_hints(kind)
    checked = {name: _checked(hints[name], value[name], f"{tag}.{name}") for name in names}
    if kind is AnalysisJob:
        _check_analysis(checked["work"], checked["args"])
    return kind(**checked)


def _check_analysis(work: str, args: tuple[Any, ...]) -> None:
    """An analysis names a function of ``WORK`` and has its arguments, of their types."""
    function = WORK.get(work)
    if function is None:
        raise Unreadable(f"{work!r} is not an analysis (one of {', '.join(WORK)})")
    try:
        bound = inspect.signature(function).bind(*args)
    except TypeError as error:
        raise Unreadable(f"the arguments of analysis {work!r} do not fit: {error}") from None
    hints = get_type_hints(function)
    for name, arg in bound.arguments.items():
        _checked(hints[name], arg, f"analysis {work}({name})")


def _checked(hint: Any, value: object, where: str) -> Any:
    """``value`` (read from JSON) as the type ``hint`` of a field: tuples from arrays,
    a whole number where a float may be; Unreadable when it is not of that type."""
    origin = get_origin(hint)
    if hint is Any or hint is object:
        return value
    if origin is Union or origin is types.UnionType:
        options = [o for o in get_args(hint) if value is None or o is not type(None)]
        if len(options) == 1:  # (the error of the one type it may be)
            return _checked(options[0], value, where)
        for option in options:
            try:
                return _checked(option, value, where)
            except Unreadable:
                pass
    elif origin is tuple and len(get_args(hint)) == 2 and get_args(hint)[1] is Ellipsis:
        if isinstance(value, list):
            item = get_args(hint)[0]
            return tuple(_checked(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    elif hint is type(None):
        if value is None:
            return None
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    elif hint in (str, bool, int):
        if isinstance(value, hint) and (hint is bool or not isinstance(value, bool)):
            return value
    else:  # pragma: no cover - a field type this reader does not know: the code's mistake
        raise TypeError(f"{where}: no reader for the type {hint!r}")
    raise Unreadable(f"{where} is {_name(value)}, not {getattr(hint, '__name__', hint)}")


def _name(value: object) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


# -- arq's payloads ------------------------------------------------------------------------
def dumps(data: dict[str, Any]) -> bytes:
    """arq's job or result dictionary as JSON (``job_serializer``): the work in
    ``"a"`` written with ``write_work``, a failure in ``"r"`` as its type and message.
    TypeError for anything else (arq then stores the failure in its place)."""
    if set(data) not in (JOB_KEYS, RESULT_KEYS):
        raise TypeError(f"not an arq job or result: {sorted(data)}")
    value = dict(data, a=[write_work(work) for work in data["a"]])
    if "r" in data:
        value["r"] = _write_result(data["r"])
    return json.dumps(value, allow_nan=False, separators=(",", ":")).encode()


def loads(payload: bytes) -> dict[str, Any]:
    """The dictionary ``dumps`` wrote (``job_deserializer``); Unreadable for anything
    else. Nothing in the payload runs: it is read as JSON and checked."""
    if payload[:1] == b"\x80":
        raise Unreadable("it is a pickle (the job queue carries JSON only); refused unread")
    try:
        value = read_json(payload)
    except JsonTextError as error:
        raise Unreadable(f"it is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise Unreadable(f"an arq payload is a JSON object, not {_name(value)}")
    if set(value) not in (JOB_KEYS, RESULT_KEYS):
        raise Unreadable(f"not an arq job or result: the keys {sorted(value)}")
    _expect(value, "t", (int, type(None)))
    _expect(value, "f", str)
    _expect(value, "et", int)
    if value["k"] != {}:
        raise Unreadable("a job of the thinking has no keyword arguments")
    if not isinstance(value["a"], list):
        raise Unreadable(f"the arguments are {_name(value['a'])}, not an array")
    data = dict(value, a=tuple(read_work(work) for work in value["a"]))
    if "r" in value:
        _expect(value, "s", bool)
        for key in ("st", "ft"):
            _expect(value, key, int)
        for key in ("q", "id"):
            _expect(value, key, str)
        data["r"] = _read_result(value["r"])
    return data


def _expect(value: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> None:
    item = value[key]
    if not isinstance(item, kind) or (isinstance(item, bool) and kind is not bool):
        raise Unreadable(f"{key!r} is {_name(item)}")


def _write_result(result: object) -> object:
    """An answer is text; a failure its type and message (with its cause's)."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseException):
        message = str(result)
        if result.__cause__ is not None:
            message = f"{message} ({result.__cause__})"
        return {"error": type(result).__name__, "message": message}
    raise TypeError(f"a job's answer is text, not {_name(result)}")


def _read_result(value: object) -> str | BaseException:
    """An answer's text, or a failure: CancelledError for an aborted job (as arq reports
    it), otherwise a WorkerError."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"error", "message"}:
        kind, message = value["error"], value["message"]
        if isinstance(kind, str) and isinstance(message, str):
            if kind == "CancelledError":
                return asyncio.CancelledError(message)
            return WorkerError(kind, message)
    raise Unreadable(f"a result is text or an error, not {_name(value)}")
