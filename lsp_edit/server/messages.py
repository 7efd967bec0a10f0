"""Each message the client sends, from its body to its handler, and exactly one answer
to every request, whatever the client sends (docs/protocol.md, "Errors").

pygls 2.1.1 reads a body and builds its lsprotocol object in one step (`json.loads`
with an object hook): when the JSON or the params do not fit, it logs and shows the
user a message, and the request's id is lost with the exception, so the client waits
for ever. Here each layer is checked in turn: the JSON, the JSON-RPC envelope, then
the params against lsprotocol's schema, and each failure gets the answer JSON-RPC
gives it. (`frames` cuts the bodies out of the byte stream.)
"""

from __future__ import annotations

import copy
import json
import logging
import re
import typing
from collections.abc import Callable, Generator, Iterator, Sequence
from enum import Enum
from typing import Any

import attrs
import cattrs
import cattrs.gen
from cattrs.cols import homogenous_tuple_structure_factory, is_sequence, list_structure_factory
from cattrs.errors import (
    AttributeValidationNote,
    BaseValidationError,
    ClassValidationError,
    IterableValidationError,
    IterableValidationNote,
)
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)

MsgId = int | str
Path = tuple[str | int, ...]  # a place in a message: member names and array indices


class Malformed(Exception):
    """A message whose params (or result) do not fit lsprotocol's schema."""


class AnsweringProtocol(LanguageServerProtocol):
    """pygls' protocol, fed whole bodies by `receive`, which answers every request
    that cannot reach its handler; pygls answers the rest (a handler's result or
    error, `InternalError` for an exception it did not expect)."""

    def __init__(self, server: Any, converter: cattrs.Converter) -> None:
        super().__init__(server, converter)
        self.initialized = False

    def receive(self, body: bytes) -> None:
        """Handles one message body as read from the client."""
        try:
            data = json.loads(body)
        except ValueError as error:  # bad JSON or bad UTF-8
            self.answer_error(None, JsonRpcParseError.CODE, f"Parse error: not JSON ({error}).")
            return
        if _is_response(data):
            self._receive_response(data)
            return
        problem = _envelope_problem(data)
        if problem is not None:
            invalid = JsonRpcInvalidRequest.CODE
            self.answer_error(_id_of(data), invalid, f"Invalid request: {problem}")
        elif "id" in data:
            self._receive_request(data["id"], data["method"], data)
        else:
            self._receive_notification(data["method"], data)

    def unreadable(self, problem: str) -> None:
        """Bytes that hold no message (`frames`): JSON-RPC's parse error, id null."""
        self.answer_error(None, JsonRpcParseError.CODE, f"Parse error: {problem}.")

    def answer_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        log.warning("Answered %s with error %d: %s", msg_id, code, message)
        # Written as a plain object: lsprotocol leaves out an `id` that is null.
        error = {"code": code, "message": message}
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": error})

    def _send_handler_result(self, future: Any, *, msg_id: MsgId) -> None:
        """A handler's answer. An error it raised on purpose (a JSON-RPC error: bad
        params, a change that cannot be restored) is the answer, logged as one line;
        pygls would log it with a traceback, as an ERROR, which reads as a crash in
        the editor's log. Anything else goes to pygls, traceback and all."""
        if not future.cancelled() and isinstance(future.exception(), JsonRpcException):
            self._request_futures.pop(msg_id, None)
            error = future.exception()
            log.warning("Answered %s with error %d: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' `shutdown`: cancels every request still running. pygls walks its
        requests while each one cancelled takes itself out, and so answered the
        shutdown with an InternalError when an accept waited for the editor."""
        if (handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True

    # --- requests, notifications and responses ----------------------------------------

    def _receive_request(self, msg_id: MsgId, method: str, data: dict[str, Any]) -> None:
        if self._shutdown:
            # LSP: every request after `shutdown` is an InvalidRequest.
            self.answer_error(msg_id, JsonRpcInvalidRequest.CODE, "The server is shutting down.")
            return
        if method == types.INITIALIZE and self.initialized:
            self.answer_error(msg_id, JsonRpcInvalidRequest.CODE, "The server is initialized.")
            return
        if method != types.INITIALIZE and not self.initialized:
            self.answer_error(
                msg_id,
                JsonRpcServerNotInitialized.CODE,
                f"{method}: the server is not initialized; send `initialize` first.",
            )
            return
        if not self._handles(method):
            self.answer_error(msg_id, JsonRpcMethodNotFound.CODE, f"Method not found: {method}")
            return
        kind = self.get_message_type(method) or JsonRPCRequestMessage
        if "id" not in attrs.fields_dict(kind):
            self.answer_error(
                msg_id, JsonRpcInvalidRequest.CODE, f"{method} is a notification: it has no `id`."
            )
            return
        try:
            if method == types.INITIALIZE:
                message = self._structure_initialize(data, kind)
            else:
                message = structure(self._converter, data, kind)
        except Malformed as error:
            self.answer_error(msg_id, JsonRpcInvalidParams.CODE, f"{method}: {error}")
            return
        self.initialized = True
        self.handle_message(message)

    def _receive_notification(self, method: str, data: dict[str, Any]) -> None:
        if method != types.EXIT and not self.initialized:
            log.warning("Dropped %s: it came before `initialize`.", method)
            return
        kind = self.get_message_type(method) or JsonRPCNotification
        try:
            message = structure(self._converter, data, kind)
        except Malformed as error:
            log.warning("Dropped %s: %s", method, error)
            return
        self.handle_message(message)

    def _receive_response(self, data: dict[str, Any]) -> None:
        """The client's answer to a request of the server's (`workspace/applyEdit`...).
        A malformed one fails the request, so that what awaits it ends too."""
        msg_id = _id_of(data)
        future = self._request_futures.get(msg_id) if msg_id is not None else None
        if msg_id is None or future is None:
            log.warning("Dropped an answer to no request of the server's: %.200s", data)
            return
        result_type = self._result_types.pop(msg_id, None)
        kind = types.ResponseErrorMessage if "error" in data else result_type
        try:
            message = structure(self._converter, data, kind or JsonRPCResponseMessage)
        except Malformed as error:
            log.warning("The client's answer to %s does not fit: %s", msg_id, error)
            self._request_futures.pop(msg_id, None)
            if not future.done():
                future.set_exception(JsonRpcException(f"The client's answer is malformed: {error}"))
            return
        self.handle_message(message)

    def _handles(self, method: str) -> bool:
        return method in self.fm.builtin_features or method in self.fm.features

    def _structure_initialize(self, data: dict[str, Any], kind: type) -> Any:
        """`initialize`, with every member the server cannot read left out, as if the
        client had not sent it (a capability of a newer LSP, a client's slip): the
        server starts with what it can read. Only params that are not an object, or
        capabilities that are not one, are refused; the early answer of `startup`
        relies on exactly this."""
        data = copy.deepcopy(data)
        for _ in range(100):  # each round leaves out one member or more
            try:
                return self._converter.structure(data, kind)
            except Exception as error:
                problems = _located(data, _problems(error))
            unreadable = {_member_of(path, problem) for path, problem in problems}
            if unreadable & {(), ("params",), ("params", "capabilities")}:
                raise Malformed(_describe(problems)) from None
            log.warning("initialize: left out what the server cannot read: %s", _describe(problems))
            for path in sorted(unreadable, key=_deepest_last_index_first):
                _remove(data, path)
        raise Malformed("the params could not be read")

    # --- what is sent ----------------------------------------------------------------

    def _send_data(self, data: Any) -> None:
        """pygls' `_send_data`, except that an answer that cannot be written as JSON
        (a handler's bug) becomes an `InternalError` answer instead of no answer."""
        if not data:
            return
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception as error:
            log.exception("A message could not be written as JSON")
            msg_id = getattr(data, "id", None)
            if hasattr(data, "result") and msg_id is not None:
                self.answer_error(
                    msg_id, JsonRpcInternalError.CODE, f"The result could not be sent: {error}"
                )
            return
        header = f"Content-Length: {len(body)}\r\n\r\n" if self._include_headers else ""
        # json.dumps escapes every non-ASCII character: the length in characters is the
        # length in bytes.
        self.writer.write((header + body).encode(self.CHARSET))


def _is_response(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "method" not in data
        and "id" in data
        and ("result" in data or "error" in data)
    )


def _envelope_problem(data: Any) -> str | None:
    """What makes `data` neither a request nor a notification (JSON-RPC 2.0), or None."""
    if isinstance(data, list):
        return "batches are not part of LSP; send one message at a time."
    if not isinstance(data, dict):
        return "a message is a JSON object."
    if data.get("jsonrpc") != "2.0":
        return '`jsonrpc` must be "2.0".'
    if "id" in data and _id_of(data) is None:
        return "`id` must be an integer or a string."
    if "method" not in data:
        return "a message needs a `method`, or an `id` and a `result` or `error`."
    if not isinstance(data["method"], str):
        return "`method` must be a string."
    return None


def _id_of(data: Any) -> MsgId | None:
    """The message's id when it is one LSP allows (an integer or a string)."""
    msg_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool)):
        return msg_id
    return None


# --- reading params against the schema -----------------------------------------------


def structure(converter: cattrs.Converter, data: dict[str, Any], kind: type) -> Any:
    """`data` as an object of `kind`; `Malformed` names each member that does not fit."""
    try:
        return converter.structure(data, kind)
    except Exception as error:
        raise Malformed(_describe(_located(data, _problems(error)))) from None


def _problems(
    error: BaseException, path: Path = (), expected: Any = None
) -> Iterator[tuple[Path, str]]:
    """Each member of a message that did not fit, with what is wrong with it."""
    if isinstance(error, ClassValidationError | IterableValidationError):
        placed, unplaced = error.group_exceptions()
        for inner, note in placed:
            if isinstance(note, AttributeValidationNote):
                yield from _problems(inner, (*path, _json_name(note.name)), note.type)
            elif isinstance(note, IterableValidationNote):
                yield from _problems(inner, (*path, note.index), note.type)
        for inner in unplaced:
            yield from _problems(inner, path, expected)
        return
    if isinstance(error, BaseValidationError):
        for inner in error.exceptions:
            yield from _problems(inner, path, expected)
        return
    out_of_range = _OUT_OF_RANGE.fullmatch(str(error))
    if isinstance(error, KeyError):
        yield path, "is missing"
    elif isinstance(error, ValueError) and out_of_range:
        name, low, high, value = out_of_range.groups()
        yield (*path, _json_name(name)), f"must be from {low} to {high}, not {value}"
    elif isinstance(error, WrongType | ValueError):
        yield path, str(error)
    else:
        yield path, f"must be {_kind_name(expected)}"


def _located(data: Any, problems: Iterator[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The problems, each said of the member that is wrong: where a member is not an
    object or array at all, that member rather than the parts it lacks."""
    out: dict[Path, str] = {}
    for path, problem in problems:
        value = data
        for depth, step in enumerate(path):
            if isinstance(value, dict) and isinstance(step, str):
                if step not in value:
                    break
                value = value[step]
            elif isinstance(value, list) and isinstance(step, int):
                if step >= len(value):
                    break
                value = value[step]
            else:
                if depth > 0:
                    kind = "an object" if isinstance(step, str) else "an array"
                    path, problem = path[:depth], f"must be {kind}, not {_json_kind(value)}"
                break
        out.setdefault(path, problem)
    return list(out.items())


# What lsprotocol's validators say of an integer out of its range.
_OUT_OF_RANGE = re.compile(r"\w+\.(\w+) should be in range \[(-?\d+):(-?\d+)\], but was (.*)\.")


def _describe(problems: Sequence[tuple[Path, str]]) -> str:
    shown = [f"`{_dotted(path)}` {what}" for path, what in problems[:5]]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "") + "."


def _member_of(path: Path, problem: str) -> Path:
    """The member to leave out for a problem: a missing member's parent."""
    return path[:-1] if problem == "is missing" and len(path) > 1 else path


def _deepest_last_index_first(path: Path) -> tuple[int, int]:
    last = path[-1] if path else 0
    return (-len(path), -last if isinstance(last, int) else 0)


def _remove(data: Any, path: Path) -> None:
    *parents, last = path
    for step in parents:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(data, dict):
        data.pop(last, None)
    elif isinstance(data, list) and isinstance(last, int) and last < len(data):
        del data[last]


def _dotted(path: Path) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out or "params"


def _json_name(attribute: str) -> str:
    """lsprotocol's attribute name as the message spells it (`text_document`:
    `textDocument`, `from_`: `from`)."""
    head, *rest = attribute.rstrip("_").split("_")
    return head + "".join(part.title() for part in rest)


_JSON_KINDS: dict[Any, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def _kind_name(expected: Any) -> str:
    if expected in _JSON_KINDS:
        return _JSON_KINDS[expected]
    if isinstance(expected, type) and issubclass(expected, Enum):
        values = ", ".join(repr(member.value) for member in list(expected)[:8])
        return f"one of {values}"
    if isinstance(expected, type) and attrs.has(expected):
        return f"an object ({expected.__name__})"
    if typing.get_origin(expected) in (typing.Union, type(int | str)):
        return " or ".join(dict.fromkeys(_kind_name(a) for a in typing.get_args(expected)))
    if is_sequence(expected):
        return "an array"
    return "of another type"


# --- a converter that takes JSON's types at their word ---------------------------------


class WrongType(TypeError):
    pass


def strict_converter() -> cattrs.Converter:
    """pygls' converter, except that a string, number, boolean or array must arrive as
    one: lsprotocol's would read `{"uri": 5}` as the URI "5", `"applied": "no"` as true
    and a string where an array belongs as its characters."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    for kind in (str, int, float, bool):
        converter.register_structure_hook(kind, _strict(kind))

    def sequence_hook(kind: Any) -> Callable[[Any, Any], Any]:
        mutable = typing.get_origin(kind) in (list, typing.MutableSequence)
        factory = list_structure_factory if mutable else homogenous_tuple_structure_factory
        read = factory(kind, converter)

        def read_array(value: Any, cl: Any) -> Any:
            if not isinstance(value, list | tuple):
                raise WrongType(f"must be an array, not {_json_kind(value)}")
            return read(value, cl)

        return read_array

    def object_hook(kind: Any) -> Callable[[Any, Any], Any]:
        # As lsprotocol reads its classes (members under their JSON names), except that
        # the value must be an object: lsprotocol reads "all", or [], as an object
        # whose members are all left out.
        names = {a.name: cattrs.gen.override(rename=_json_name(a.name)) for a in attrs.fields(kind)}
        read = cattrs.gen.make_dict_structure_fn(kind, converter, **names)  # type: ignore[arg-type]

        def read_object(value: Any, cl: Any) -> Any:
            if not isinstance(value, dict):
                raise WrongType(f"must be an object, not {_json_kind(value)}")
            return read(value, cl)

        return read_object

    converter.register_structure_hook_factory(is_sequence, sequence_hook)
    converter.register_structure_hook_factory(attrs.has, object_hook)
    return converter


def _strict(kind: type) -> Callable[[Any, type], Any]:
    def read(value: Any, cl: type) -> Any:
        if cl is not kind:  # an enum of strings or integers, checked by its own values
            return cl(value)
        fits = (
            isinstance(value, int | float) and not isinstance(value, bool)
            if kind is float
            else type(value) is kind
        )
        if not fits:
            raise WrongType(f"must be {_JSON_KINDS[kind]}, not {_json_kind(value)}")
        return value

    return read


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return "an object"
