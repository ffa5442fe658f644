"""Display names people choose: what makes one invisible, or a look-alike of a robot's name."""

from __future__ import annotations

import re
import unicodedata

from .errors import BadRequest

__all__ = ["imitates_robot", "invisible_characters", "refuse_invisible"]

# Letters and symbols to Unicode that show nothing or only blank space: a name made of them looks
# empty, and one inside a name hides a difference (Hangul fillers, Braille blank, joiners…).
_BLANK = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
)
# Letters of other scripts that look like Latin ones, so "Rоbot" (Cyrillic о) reads as "Robot".
_LOOK_ALIKES = str.maketrans(
    {
        **dict.fromkeys("оοօ০", "o"),
        **dict.fromkeys("аα", "a"),
        **dict.fromkeys("еε", "e"),
        **dict.fromkeys("рρ", "p"),
        **dict.fromkeys("сϲ", "c"),
        **dict.fromkeys("хχ", "x"),
        **dict.fromkeys("уγ", "y"),
        **dict.fromkeys("іι", "i"),
        **dict.fromkeys("ѕ", "s"),
        **dict.fromkeys("ԁ", "d"),
        **dict.fromkeys("вβ", "b"),
        **dict.fromkeys("тτ", "t"),
        **dict.fromkeys("кκ", "k"),
        **dict.fromkeys("м", "m"),
        **dict.fromkeys("н", "h"),
        **dict.fromkeys("ν", "v"),
        "0": "o",
        "đ": "d",
    }
)
# How the robots are named at the table, in every language of the client (without accents).
_ROBOT = re.compile(
    r"^(robot|bot|may)(novice|casual|skilled|advanced|expert|moichoi|thuong|kha|gioi|caothu)?$|^robot"
)


def invisible_characters(name: str) -> list[str]:
    """The characters of `name` that show nothing: controls, format marks, blank letters, variation selectors."""
    found = []
    for ch in name:
        category = unicodedata.category(ch)
        if (
            category[0] == "C"
            or category in ("Zl", "Zp")
            or ch in _BLANK
            or "\ufe00" <= ch <= "\ufe0f"
            or "\U000e0100" <= ch <= "\U000e01ef"
        ):
            found.append(f"U+{ord(ch):04X}")
    return found


def refuse_invisible(name: str, what: str = "name") -> None:
    """The one check of every name the site stores (display, account, bot and tournament names):
    `BadRequest` when it holds a control, format (bidi: U+202E turns the text around) or blank
    character."""
    hidden = invisible_characters(name)
    if hidden:
        raise BadRequest(f"{what} must not contain invisible or control characters ({', '.join(hidden[:3])})")


def skeleton(name: str) -> str:
    """What `name` looks like, reduced: compatibility forms folded, accents dropped, look-alike
    letters of other scripts read as Latin, case folded, anything but letters and digits gone."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch)).casefold()
    return "".join(ch for ch in plain.translate(_LOOK_ALIKES) if ch.isalnum())


def imitates_robot(name: str) -> bool:
    """True when `name` reads as a robot's ("Robot (expert)", "R0bot", "Máy · Cao thủ", "Ｒｏｂｏｔ")."""
    return _ROBOT.search(skeleton(name)) is not None
