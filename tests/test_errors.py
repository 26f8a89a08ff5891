"""Error messages stay one short printable line, whatever the user's value."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.errors import QUOTE_LIMIT, InputError, quote

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=60)


def test_short_values_are_plain_repr():
    assert quote("clk") == "'clk'"
    assert quote([1, 2]) == "[1, 2]"
    assert quote(None) == "None"


def test_a_long_string_is_cut_and_its_length_given():
    text = quote("n" * 10_000)
    assert len(text) < QUOTE_LIMIT + 30
    assert text.startswith("'nnn") and text.endswith("... (10000 characters)")


def test_a_long_list_is_cut_and_its_size_given():
    text = quote(list(range(100_000)))
    assert len(text) < QUOTE_LIMIT + 30 and text.endswith("(100000 items)")


def test_control_and_format_characters_come_out_escaped():
    for s in ["a\x00b", "a\u202eb", "a\nb", "\x1b[31mred"]:
        text = quote(s)
        assert text.isprintable(), text


def test_huge_integers_do_not_raise():
    text = quote(10 ** 10_000)          # repr() itself raises past 4300 digits
    assert "10001 digits" in text and len(text) < QUOTE_LIMIT + 30


def test_a_value_whose_repr_fails_is_still_quoted():
    class Bad:
        def __repr__(self):
            raise RuntimeError("no")

    assert quote(Bad()).startswith("<Bad")


@settings(max_examples=200, deadline=None)
@given(JSONISH)
def test_any_value_quotes_to_one_bounded_printable_line(value):
    text = quote(value)
    assert text.isprintable() and len(text) <= QUOTE_LIMIT + 30


@pytest.mark.parametrize("file", ["a\nb.yaml", "x\u202e.yaml"])
def test_a_file_name_that_is_not_printable_is_shown_escaped(file):
    text = str(InputError("bad", file=file, field="width"))
    assert text.isprintable() and text.endswith(": width: bad")
