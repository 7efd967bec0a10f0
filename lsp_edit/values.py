"""Domain values declared as dataclasses are, built at a fraction of the cost.

    @value                      # frozen: hashable, fields cannot be assigned
    class Span:
        start: int
        end: int = 0
        note: str = field(default="", compare=False)

    @record                     # mutable, like a plain @dataclass
    class Plan:
        changes: list[Change] = field(default_factory=list)

Each class gets the `__init__`, `__repr__` and `__eq__` (and, frozen, `__hash__`) a
dataclass would, with `__post_init__` called the same way; `replace` copies a value
with some fields changed. `dataclass` compiles every method of every class from source
(and imports `inspect`); here the others are shared functions that read the class's
field names, and only `__init__` is compiled, once the class has made a few values
through a shared one (most classes make one or two in a run). `lsp-edit apply` starts
once per reply and builds every value class of the engine at each start: with
`dataclass`, that was the largest cost of starting it.

Only what the engine uses is there: no ordering, no `ClassVar`, no value class
extending another.

`NamedTuple` is `typing.NamedTuple` for values that must be tuples (made for most
lines of a reply), without importing `typing` at every start.
"""

from __future__ import annotations

from collections import namedtuple
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform
    from typing import NamedTuple as NamedTuple

    _Class = TypeVar("_Class", bound=type)
    _Value = TypeVar("_Value")
else:

    def dataclass_transform(**_options):
        return lambda decorator: decorator

    class _NamedTupleClass(type):
        """Makes `class Point(NamedTuple): x: int; y: int = 0` the tuple class
        `collections.namedtuple` makes, with the class's methods and docstring."""

        def __new__(cls, name, bases, namespace):
            fields = namespace.get("__annotations__", {})
            defaults = [namespace[name] for name in fields if name in namespace]
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            for key, item in namespace.items():
                if key not in fields and key not in ("__annotations__", "__module__"):
                    setattr(made, key, item)
            return made

    # `typing.NamedTuple` to the type checker; at run time, the same tuple classes
    # without importing `typing`
    NamedTuple = type.__new__(_NamedTupleClass, "NamedTuple", (), {})


_MISSING = object()


class FrozenInstanceError(AttributeError):
    """A field of a frozen value was assigned or deleted."""


class Field:
    """A field's default (or the function that makes one), whether equality compares
    it and whether `__init__` takes it; `field` writes one, a plain default is read
    as one."""

    __slots__ = ("compare", "default", "default_factory", "init")

    def __init__(
        self,
        default: object,
        default_factory: Callable[[], object] | None = None,
        compare: bool = True,
        init: bool = True,
    ) -> None:
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.init = init


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    compare: bool = True,
    init: bool = True,
) -> Any:
    return Field(default, default_factory, compare, init)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value(cls: _Class | None = None, /, *, slots: bool = False) -> Any:
    """A frozen value class (`slots`: without a `__dict__`, for values made by the
    million)."""
    if cls is None:
        return lambda cls: _build(cls, frozen=True, slots=slots)
    return _build(cls, frozen=True, slots=slots)


@dataclass_transform(field_specifiers=(field,))
def record(cls: _Class | None = None, /, *, slots: bool = False, eq: bool = True) -> Any:
    """A mutable value class: equal by its fields and not hashable (`eq=False`: equal
    only to itself, as a plain object)."""
    if cls is None:
        return lambda cls: _build(cls, frozen=False, slots=slots, eq=eq)
    return _build(cls, frozen=False, slots=slots, eq=eq)


def replace(item: _Value, /, **changes: Any) -> _Value:
    """A copy of `item` with the given fields changed (as `dataclasses.replace`)."""
    specs: dict[str, Field] = type(item).__value_field_specs__  # type: ignore[attr-defined]
    names = [name for name, spec in specs.items() if spec.init]
    unknown = changes.keys() - set(names)
    if unknown:
        raise TypeError(f"{type(item).__qualname__}: no field {', '.join(sorted(unknown))}")
    return type(item)(**{name: changes.get(name, getattr(item, name)) for name in names})


def _build(cls: _Class, *, frozen: bool, slots: bool, eq: bool = True) -> _Class:
    if any(hasattr(base, "__value_fields__") for base in cls.__bases__):
        raise TypeError(f"{cls.__qualname__}: a value class does not extend another")
    own = _own_annotations(cls)
    fields: dict[str, Field] = {}
    for name in own:
        given = cls.__dict__.get(name, _MISSING)
        fields[name] = given if isinstance(given, Field) else Field(given)
    compared = tuple(name for name, spec in fields.items() if spec.compare)
    added: dict[str, object] = {
        "__value_fields__": tuple(fields),
        "__value_field_specs__": fields,
        "__value_key__": staticmethod(attrgetter(*compared) if compared else _no_key),
    }
    if "__repr__" not in cls.__dict__:
        added["__repr__"] = _repr
    if eq and "__eq__" not in cls.__dict__:
        added["__eq__"] = _eq
    if frozen:
        if cls.__dict__.get("__hash__") is None:  # none written, or None for its own __eq__
            added["__hash__"] = _hash
        if not slots:
            added["__setattr__"] = _refuse_assignment
            added["__delattr__"] = _refuse_deletion
    elif eq and "__eq__" not in cls.__dict__:
        added["__hash__"] = None
    if slots:
        cls = _slotted(cls, added, frozen=frozen)
    else:
        for name in own:
            given = cls.__dict__.get(name)
            if isinstance(given, Field):
                if given.default is _MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, given.default)
        for name, item in added.items():
            setattr(cls, name, item)
    cls.__init__ = _init_at_first_value(cls, fields, frozen=frozen, slots=slots)  # type: ignore[misc]
    return cls


def _own_annotations(cls: type) -> dict[str, str]:
    """The fields the class body declares, as written (the modules import
    `annotations` from `__future__`): read without importing `inspect`."""
    own: dict[str, str] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    return own


def _slotted(cls: _Class, added: dict[str, object], *, frozen: bool) -> _Class:
    """The class made again with a slot per field of its own (a class's slots are
    fixed when it is made).

    A frozen class keeps each field in a private slot (`_start` for `start`) that its
    `__init__` sets as a plain attribute, and shows it as a read-only property that
    refuses assignment and deletion: no `__setattr__` of its own runs as each field is
    set, which made building a value three times as slow (a reply may hold a million).
    """
    own = _own_annotations(cls)
    namespace = {key: item for key, item in cls.__dict__.items() if key not in own}
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    if frozen:
        for name in own:
            if name.startswith("_"):
                raise TypeError(f"{cls.__qualname__}: a slotted value's field {name!r} is private")
            namespace[name] = property(
                attrgetter(_slot(name)), _assignment_refuser(name), _deletion_refuser(name)
            )
        namespace.update(added, __slots__=tuple(map(_slot, own)))
        namespace["__getstate__"] = _slot_state
        namespace["__setstate__"] = _set_slot_state
    else:
        namespace.update(added, __slots__=tuple(own))
    slotted = type(cls)(cls.__name__, cls.__bases__, namespace)
    slotted.__qualname__ = cls.__qualname__
    return slotted


# How many values a class makes through the shared `__init__` before its own is
# compiled: compiling one costs about what making 30 values through the shared one
# does, and a run of `lsp-edit apply` makes one or two values of most classes.
_VALUES_BEFORE_COMPILING = 16


def _init_at_first_value(
    cls: type, fields: dict[str, Field], *, frozen: bool, slots: bool
) -> object:
    """The class's `__init__` until it has made `_VALUES_BEFORE_COMPILING` values: it
    sets the fields itself (`_bound`, `_set_fields`), then compiles the class's own
    (`_init`), puts it on the class in its place and hands over to it, as it does for
    arguments that do not bind (the compiled one refuses them as a dataclass does).
    Compiling was most of the cost of building a class, and was paid at every start
    for every class."""
    taken = tuple(name for name, spec in fields.items() if spec.init)
    post_init = hasattr(cls, "__post_init__")
    made = 0

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        nonlocal made
        made += 1
        values = _bound(fields, taken, args, kwargs) if made <= _VALUES_BEFORE_COMPILING else None
        if values is None:
            init = _init(cls, fields, frozen=frozen, slots=slots)
            cls.__init__ = init  # type: ignore[misc]
            init(self, *args, **kwargs)  # type: ignore[operator]
            return
        _set_fields(self, cls, fields, values, frozen=frozen, slots=slots)
        if post_init:
            self.__post_init__()  # type: ignore[attr-defined]

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _bound(
    fields: dict[str, Field],
    taken: tuple[str, ...],
    args: tuple[object, ...],
    kwargs: dict[str, object],
) -> dict[str, object] | None:
    """Each field's value for these arguments, as the compiled `__init__` binds them
    (defaults made in the fields' order); None when they do not bind."""
    if len(args) > len(taken):
        return None
    values = dict(zip(taken, args, strict=False))  # the first fields, by position
    for name, item in kwargs.items():
        if name in values or name not in taken:
            return None
        values[name] = item
    missing = [(name, spec) for name, spec in fields.items() if name not in values]
    if any(
        spec.init and spec.default_factory is None and spec.default is _MISSING
        for _, spec in missing
    ):
        return None  # a required argument is missing
    for name, spec in missing:
        if spec.default_factory is not None:
            values[name] = spec.default_factory()
        elif spec.default is not _MISSING:
            values[name] = spec.default
    return values


def _set_fields(
    self: object,
    cls: type,
    fields: dict[str, Field],
    values: dict[str, object],
    *,
    frozen: bool,
    slots: bool,
) -> None:
    """Sets the fields in their order, as the compiled `__init__` does."""
    for name in fields:
        if name not in values:
            continue  # set by __post_init__
        if frozen and slots:
            setattr(self, _slot(name), values[name])
        elif frozen:
            self.__dict__[name] = values[name]
        else:
            setattr(self, name, values[name])


def _init(cls: type, fields: dict[str, Field], *, frozen: bool, slots: bool) -> object:
    """`__init__(self, <field>, <field>=<default>, ...)`, compiled: one per class."""
    namespace: dict[str, object] = {"_MISSING": _MISSING}
    params, body = [], []
    taken = []
    for name, spec in fields.items():
        if spec.default_factory is not None:
            namespace[f"_make_{name}"] = spec.default_factory
        elif spec.default is not _MISSING:
            namespace[f"_default_{name}"] = spec.default
        if not spec.init:
            if spec.default_factory is not None:
                body.append(f"    {name} = _make_{name}()")
            elif spec.default is not _MISSING:
                body.append(f"    {name} = _default_{name}")
            else:
                continue  # set by __post_init__
        elif spec.default_factory is not None:
            params.append(f"{name}=_MISSING")
            body.append(f"    if {name} is _MISSING: {name} = _make_{name}()")
        elif spec.default is not _MISSING:
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        taken.append(name)
    for name in taken:
        if frozen and slots:
            body.append(f"    self.{_slot(name)} = {name}")  # its private slot (see `_slotted`)
        elif frozen:
            body.append(f"    self.__dict__[{name!r}] = {name}")
        else:
            body.append(f"    self.{name} = {name}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    return init


def _no_key(_item: object) -> tuple[()]:
    return ()


def _repr(self: object) -> str:
    names = type(self).__value_fields__  # type: ignore[attr-defined]
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: object, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = self.__value_key__  # type: ignore[attr-defined]
    return key(self) == key(other)


def _hash(self: object) -> int:
    return hash(self.__value_key__(self))  # type: ignore[attr-defined]


def _refuse_assignment(self: object, name: str, _value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_deletion(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _slot(name: str) -> str:
    """The private slot a frozen slotted value keeps field `name` in."""
    return f"_{name}"


def _assignment_refuser(name: str) -> Callable[[object, object], None]:
    def refuse(self: object, value: object) -> None:
        _refuse_assignment(self, name, value)

    return refuse


def _deletion_refuser(name: str) -> Callable[[object], None]:
    def refuse(self: object) -> None:
        _refuse_deletion(self, name)

    return refuse


def _slot_state(self: object) -> tuple[object, ...]:
    return tuple(getattr(self, name) for name in type(self).__value_fields__)  # type: ignore[attr-defined]


def _set_slot_state(self: object, state: tuple[object, ...]) -> None:
    for name, item in zip(type(self).__value_fields__, state, strict=True):  # type: ignore[attr-defined]
        setattr(self, _slot(name), item)
