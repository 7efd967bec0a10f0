"""The engine's value classes behave as the dataclasses they stand for: built,
shown, compared, hashed, copied and changed the same way."""

import copy
import dataclasses
import pickle
import typing

import pytest

from lsp_edit.values import FrozenInstanceError, NamedTuple, field, record, replace, value


@value(slots=True)
class Span:
    start: int
    end: int = 0
    note: str = field(default="", compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class SpanDataclass:
    start: int
    end: int = 0
    note: str = dataclasses.field(default="", compare=False)


@value
class Named:
    name: str
    parts: tuple[str, ...] = ()


@record
class Plan:
    changes: list[str] = field(default_factory=list)
    title: str = "plan"


@record(eq=False)
class Segment:
    start: int
    end: int
    length: int = field(init=False)

    def __post_init__(self) -> None:
        self.length = self.end - self.start


def test_a_frozen_value_is_built_shown_compared_and_hashed_as_its_dataclass():
    for made in [(3,), (3, 5), (3, 5, "why")]:
        ours, theirs = Span(*made), SpanDataclass(*made)
        assert repr(ours) == repr(theirs).replace("SpanDataclass", "Span")
        assert (ours.start, ours.end, ours.note) == (theirs.start, theirs.end, theirs.note)
    assert Span(1, 2, "a") == Span(1, 2, "b")  # the note is not compared
    assert Span(1, 2) != Span(1, 3)
    assert Span(1, 2) != SpanDataclass(1, 2)
    assert hash(Span(1, 2, "a")) == hash(Span(1, 2, "b"))
    assert len({Named("a"), Named("a", ()), Named("b")}) == 2
    assert Span(end=4, start=1) == Span(1, 4)


def test_a_frozen_value_refuses_assignment_and_keeps_no_dict_when_slotted():
    span = Span(1, 2)
    with pytest.raises(FrozenInstanceError):
        span.start = 5  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del span.end  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Named("a").name = "b"  # type: ignore[misc]
    assert not hasattr(span, "__dict__")
    assert Span.__qualname__ == "Span"


def test_replace_copies_a_value_with_some_fields_changed():
    span = Span(1, 2, "kept")
    assert replace(span, end=9) == Span(1, 9)
    assert replace(span, end=9).note == "kept"
    assert span == Span(1, 2)
    assert replace(Named("a", ("x",)), name="b") == Named("b", ("x",))
    with pytest.raises(TypeError):
        replace(span, middle=3)


def test_a_record_is_mutable_each_default_made_afresh_and_unhashable():
    first, second = Plan(), Plan()
    first.changes.append("one")
    assert second.changes == []
    assert first != second
    second.changes.append("one")
    assert first == second
    with pytest.raises(TypeError):
        hash(first)
    assert repr(first) == "Plan(changes=['one'], title='plan')"


def test_a_field_not_taken_by_init_is_set_after_init_and_eq_false_keeps_identity():
    segment = Segment(2, 7)
    assert segment.length == 5
    assert segment != Segment(2, 7)
    assert segment == segment
    assert len({segment, Segment(2, 7)}) == 2
    with pytest.raises(TypeError):
        Segment(2, 7, 5)  # type: ignore[call-arg]
    assert replace(segment, end=9).length == 7


def test_a_class_s_first_value_is_made_as_every_later_one():
    """Each class's `__init__` is compiled when its first value is made: that first
    call takes the same arguments, and refuses the same mistakes, as the later ones."""

    @value(slots=True)
    class Pair:
        left: int
        right: int = 2

    refusals = []
    for _ in range(2):
        with pytest.raises(TypeError) as raised:
            Pair()  # type: ignore[call-arg]
        refusals.append(str(raised.value))
    assert refusals[0] == refusals[1] and "left" in refusals[0]
    assert Pair(1) == Pair(left=1, right=2) == Pair(1, 2)
    with pytest.raises(FrozenInstanceError):
        Pair(1).left = 3  # type: ignore[misc]

    @record
    class Counted:
        count: int = field(default_factory=lambda: 7)

    assert Counted().count == 7 and Counted(3).count == 3


def test_values_made_before_and_after_their_class_compiles_its_init_are_alike():
    """A class sets the fields of its first values itself, then compiles its own
    `__init__`: every value is made as the dataclass makes it, defaults, factories and
    `__post_init__` included, and every mistake is refused the same way."""

    @value(slots=True)
    class Tagged:
        start: int
        end: int = 0
        note: str = field(default="", compare=False)

    @dataclasses.dataclass(frozen=True, slots=True)
    class TaggedDataclass:
        start: int
        end: int = 0
        note: str = dataclasses.field(default="", compare=False)

    @record
    class Measured:
        start: int
        items: list[int] = field(default_factory=list)
        length: int = field(init=False)

        def __post_init__(self) -> None:
            self.length = self.start * 2

    @dataclasses.dataclass
    class MeasuredDataclass:
        start: int
        items: list[int] = dataclasses.field(default_factory=list)
        length: int = dataclasses.field(init=False)

        def __post_init__(self) -> None:
            self.length = self.start * 2

    shown = lambda item: repr(item).replace("Dataclass", "")  # noqa: E731
    refusals: set[str] = set()
    for n in range(40):
        calls = [((n,), {}), ((n, n + 1), {}), ((n,), {"note": "x"}), ((), {"end": 2, "start": n})]
        for args, kwargs in calls:
            assert shown(Tagged(*args, **kwargs)) == shown(TaggedDataclass(*args, **kwargs))
        made = Measured(n)
        assert shown(made) == shown(MeasuredDataclass(n)) and made.length == 2 * n
        assert made.items is not Measured(n).items
        for args, kwargs in [((), {}), ((1, 2, 3, 4), {}), ((1,), {"start": 1}), ((1,), {"x": 1})]:
            with pytest.raises(TypeError) as raised:
                Tagged(*args, **kwargs)  # type: ignore[call-arg,misc]
            refusals.add(str(raised.value))
        with pytest.raises(TypeError):
            Measured(1, [], 2)  # type: ignore[call-arg]
    assert len(refusals) == 4  # each mistake refused in one way, first value to last


def test_values_survive_deepcopy_and_pickle():
    items = [Span(1, 2, "n"), Named("a", ("b",)), Plan(["x"]), Segment(1, 4)]
    for item in items:
        copied = copy.deepcopy(item)
        assert repr(copied) == repr(item)
        assert repr(pickle.loads(pickle.dumps(item))) == repr(item)
    assert copy.deepcopy(Span(1, 2, "n")).note == "n"


class Line(NamedTuple):
    """A line."""

    text: str
    number: int
    last: bool = False

    @property
    def shown(self) -> str:
        return f"{self.number}: {self.text}"


class LineTyping(typing.NamedTuple):
    """A line."""

    text: str
    number: int
    last: bool = False


def test_a_named_tuple_is_the_tuple_typing_makes_with_its_methods():
    ours, theirs = Line("a", 3), LineTyping("a", 3)
    assert ours == theirs == ("a", 3, False)
    assert repr(ours) == repr(theirs).replace("LineTyping", "Line")
    assert ours._replace(last=True) == ("a", 3, True)
    assert Line._fields == LineTyping._fields
    assert Line._field_defaults == LineTyping._field_defaults == {"last": False}
    assert ours.shown == "3: a"
    assert Line.__doc__ == "A line."
    assert Line.__module__ == __name__
    text, number, last = ours
    assert (text, number, last) == ("a", 3, False)


def test_a_slotted_value_s_fields_are_read_only_however_they_are_set():
    """A frozen slotted value keeps its fields where only its own `__init__` writes
    them: assigning a field, through the instance or `object.__setattr__`, is refused,
    and a late problem message is still read as text, equal and copied as one."""
    span = Span(1, 2)
    with pytest.raises(FrozenInstanceError):
        object.__setattr__(span, "start", 5)
    with pytest.raises(AttributeError):
        span.middle = 3  # type: ignore[attr-defined]
    assert (span.start, span.end, span.note) == (1, 2, "")
    with pytest.raises(TypeError):

        @value(slots=True)
        class Hidden:
            _secret: int
