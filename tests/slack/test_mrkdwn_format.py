"""``Mrkdwn.format``'s fast path (plain fields filled by ``str.format``) gives exactly what MarkupSafe's
escaping formatter gives, for any text, number or ``Mrkdwn`` in any plain field; other templates take
MarkupSafe's way."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from bot.slack.mrkdwn import Mrkdwn

values = st.one_of(
    st.text(alphabet=st.sampled_from("ab <>&*_~`|:/\u202e\x01中文"), max_size=12),
    st.integers(-1000, 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(alphabet=st.sampled_from("ab*_<"), max_size=6).map(lambda s: Mrkdwn(s)),
)


@given(values, values, values)
def test_plain_fields_are_filled_as_markupsafe_fills_them(a: object, b: object, c: object) -> None:
    for template in ("{}·{}·{}", "{0} {2} {1} {0}", "*{a}* {b} <{c}|x> {{literal}}"):
        t = Mrkdwn(template)
        args, kwargs = ((a, b, c), {}) if "{a}" not in template else ((), {"a": a, "b": b, "c": c})
        ours = t.format(*args, **kwargs)
        assert ours == Markup.format(t, *args, **kwargs)
        assert type(ours) is Mrkdwn


def test_a_plain_string_field_is_escaped_and_a_mrkdwn_field_is_not() -> None:
    out = Mrkdwn("{} and {}").format("<!channel> *x*", Mrkdwn("*bold*"))
    assert "<!channel>" not in out and "&lt;!channel&gt;" in out and out.endswith("and *bold*")


def test_templates_with_specs_or_attributes_take_markupsafes_way() -> None:
    assert Mrkdwn("{:>4}|{0.real}").format(7) == Markup.format(Mrkdwn("{:>4}|{0.real}"), 7) == "   7|7"
