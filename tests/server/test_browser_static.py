"""The browser client's files, checked without a browser: catalogues, translation keys, offline assets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ginrummy.bots.reasons import ENGLISH
from ginrummy.bots.review import MARKS
from ginrummy.rules import GAMES, PRESETS
from ginrummy.rules.variants import RANGES
from ginrummy.server.pages import HEAD_MARKER, page_html
from ginrummy.service.challenges import DECLINE_REASONS
from ginrummy.service.live import REACTIONS

STATIC = Path(__file__).resolve().parents[2] / "src" / "ginrummy" / "server" / "static"
LANGUAGES = ("en", "vi")
PAGES = (
    "index",
    "room",
    "table",
    "matches",
    "replay",
    "leaderboard",
    "profile",
    "account",
    "tournaments",
    "tournament",
    "watch",
    "live",
)
LEVELS = ("novice", "casual", "skilled", "advanced", "expert")

# Keys built at run time from a family name and a value the page can meet.
DYNAMIC_KEYS = (
    [f"rules.{p}" for p in PRESETS]
    + [f"rules.{p}.help" for p in PRESETS]
    + [f"level.{lv}" for lv in LEVELS]
    + [f"level.{lv}.help" for lv in LEVELS]
    + [f"card.rank.{r}" for r in range(13)]
    + [f"card.suit.{s}" for s in range(4)]
    + [f"showdown.{o}" for o in ("void", "knock", "gin", "big_gin", "undercut", "tie")]
    + [f"showdown.role.{r}" for r in ("knocker", "defender", "gin", "big_gin")]
    + [f"showdown.bonus.{o}" for o in ("gin", "big_gin", "undercut")]
    + [f"reaction.{e}" for e in REACTIONS]
    + [f"game.{g}" for g in GAMES]
    + [f"home.ace_{a}" for a in ("low", "high", "either")]
    + [
        f"table.fatal.{c}{part}"
        for c in ("no_guest", "not_seated", "not_found", "forbidden")
        for part in ("", ".title")
    ]
    + [f"matches.status.{s}" for s in ("waiting", "playing", "over")]
    # js/profile.js: what became of a challenge to a bot, and why a bot declined one.
    + [f"bots.challenge_{s}" for s in ("canceled", "expired")]
    + [f"bots.declined.{r}" for r in DECLINE_REASONS]
    + [f"table.group_{g}" for g in ("run", "set", "deadwood")]
    + [f"table.sort_{m}" for m in ("melds", "suit", "rank")]
    + [f"end.{b}" for b in ("game_bonus", "box_bonus", "shutout_bonus", "aborted")]
    # js/rules.js: a note for each rule that differs from classic (the target is in the header).
    + ["rules.custom", "rule.big_gin_bonus.off"]
    + [f"rule.{name}" for name in RANGES if name != "target"]
    + [f"rule.{name}.{v}" for name in ("undercut_on_tie", "oklahoma", "spade_double") for v in ("on", "off")]
    + [f"rule.first_dealer.{v}" for v in ("random", "cut")]
    + [f"rule.next_dealer.{v}" for v in ("alternate", "loser", "winner")]
    + [f"board.about.{b}" for b in ("today", "rolling", "rating")]
    + [f"board.col.{c}" for c in ("wins", "points", "matches", "rating")]
    + [f"profile.outcome.{o}" for o in ("won", "lost", "drawn", "aborted")]
    + [
        f"profile.stat.{s}"
        for s in ("matches", "win_rate", "gin_rate", "undercut_rate", "knocks", "knock_deadwood")
    ]
    + [f"error.{c}" for c in ("name_taken", "conflict", "rate_limited", "wrong_password")]
    + [
        f"forfeit.{k}"
        for k in (
            "abort",
            "resign",
            "abort_title",
            "resign_title",
            "abort_body",
            "resign_body",
            "aborted_unrated",
        )
    ]
    + [f"forfeit.{who}_{why}" for who in ("you", "they") for why in ("aborted", "resigned", "abandoned")]
    + [f"tournament.{phase}" for phase in ("starts_in", "ends_in", "finished")]
    + [f"analysis.mark.{m}" for m in MARKS]
    + [f"hint.{key}" for key in ENGLISH]
    + [
        f"ws.{c}"
        for c in (
            "bad_message",
            "illegal_action",
            "not_your_turn",
            "rate_limited",
            "too_large",
            "forbidden",
            "stale",
            "not_found",
            "server_error",
            "generic",
            "no_guest",
            "not_seated",
            "unavailable",
            "too_many_sockets",
            "hints_off",
        )
    ]
)


def catalogue(lang: str) -> dict[str, str]:
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def sources() -> dict[Path, str]:
    files = (
        sorted(STATIC.glob("js/**/*.js")) + sorted(STATIC.glob("*.html")) + sorted(STATIC.glob("css/*.css"))
    )
    return {path: path.read_text(encoding="utf-8") for path in files}


def plural_keys() -> set[str]:
    """Keys asked for with a count (tn): the catalogue holds their plural forms."""
    return {key for text in sources().values() for key in re.findall(r"""\btn\(\s*"([^"]+)\"""", text)}


def keys_used() -> set[str]:
    keys: set[str] = set()
    for key in plural_keys():
        keys.update({f"{key}.one", f"{key}.other"})
    for path, text in sources().items():
        keys.update(re.findall(r"""\bt\(\s*"([^"]+)\"""", text))
        if path.suffix != ".html":
            continue
        keys.update(re.findall(r'data-i18n="([^"]+)"', text))
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            keys.update(pair.split(":")[1].strip() for pair in pairs.split(";") if ":" in pair)
    return keys


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en, vi = catalogue("en"), catalogue("vi")
    assert sorted(en) == sorted(vi)
    for key, text in en.items():
        assert text.strip() and vi[key].strip(), key
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", vi[key])), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_string_the_pages_ask_for_is_in_the_catalogue(lang: str) -> None:
    strings = catalogue(lang)
    missing = sorted(k for k in keys_used() | set(DYNAMIC_KEYS) if k not in strings)
    assert missing == []


def test_one_word_for_one_thing_in_vietnamese() -> None:
    # A computer player is "Máy" on every page; "Robot" crept into one tournament line once.
    vi = catalogue("vi")
    assert sorted(k for k, text in vi.items() if re.search(r"\brobot\b", text, re.IGNORECASE)) == []
    assert "Máy" in vi["tournament.robots"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_invitation_says_what_the_friend_does(lang: str) -> None:
    # The friend opens the link, gives a name and presses the join button: the copy names that
    # button (it once said the match starts as soon as the link is opened).
    strings = catalogue(lang)
    for key in ("home.friend_hint", "tables.share_link"):
        assert strings["room.join"] in strings[key], (key, strings[key])


def test_cards_read_the_local_way() -> None:
    en, vi = catalogue("en"), catalogue("vi")
    # Ten is written "10", never "T"; Vietnamese players read J Q K A and bích/cơ/rô/chuồn.
    assert en["card.rank.9"] == vi["card.rank.9"] == "10"
    assert [vi[f"card.rank.{r}"] for r in (0, 10, 11, 12)] == ["A", "J", "Q", "K"]
    assert [vi[f"card.suit.{s}"] for s in range(4)] == ["chuồn", "rô", "cơ", "bích"]
    assert vi["card.name"].format(rank="Q", suit="cơ") == "Q cơ"
    assert en["card.name"].format(rank="queen", suit="hearts") == "queen of hearts"


def test_every_page_shares_the_one_head() -> None:
    head = (STATIC / "head.html").read_text(encoding="utf-8")
    for page in PAGES:
        own = (STATIC / f"{page}.html").read_text(encoding="utf-8")
        # The shared lines live in head.html alone; the page keeps its marker and its own files.
        assert own.count(HEAD_MARKER) == 1 and "<title>" not in own and 'name="viewport"' not in own, page
        html = page_html(STATIC, f"{page}.html")
        assert HEAD_MARKER not in html and head.strip() in html, page
        start, end = html.index("<head>"), html.index("</head>")
        assert start < html.index(head.strip()) < end, page
        assert html.count("<title>") == html.count('<meta charset="utf-8">') == 1, page


def test_pages_exist_and_load_only_local_modules() -> None:
    for page in PAGES:
        html = page_html(STATIC, f"{page}.html")
        scripts = re.findall(r'<script type="module" src="([^"]+)"', html)
        assert len(scripts) == 1 and scripts[0].startswith("/static/js/"), page
        assert (STATIC / scripts[0].removeprefix("/static/")).is_file()
        assert 'name="viewport"' in html  # phones get the real width
    for path, text in sources().items():
        # No CDN, font service or other outside address: the machines are offline.
        outside = [
            u for u in re.findall(r"https?://[^\s'\")]+", text) if not u.startswith("http://www.w3.org/")
        ]
        assert outside == [], path
        if path.suffix == ".js":
            for module in re.findall(r'from "(\.\.?/[^"]+)"', text):
                assert (path.parent / module).is_file(), (path, module)


def test_counts_go_through_plural_forms() -> None:
    # "1 hands played" cannot happen: every count-bearing string has its plural forms, and no
    # catalogue string with a count is asked for without one.
    assert {"end.hands_played", "table.opponent_count", "replay.hand_count"} <= plural_keys()
    for lang in LANGUAGES:
        strings = catalogue(lang)
        for key in plural_keys():
            assert key not in strings, (lang, key)
            assert "{n}" in strings[f"{key}.one"] and "{n}" in strings[f"{key}.other"], (lang, key)
    assert catalogue("en")["end.hands_played.one"] == "{n} hand played:"


def test_reactions_in_the_page_are_the_servers_set() -> None:
    text = (STATIC / "js" / "table" / "reactions.js").read_text(encoding="utf-8")
    block = text[text.index("export const EMOTES") : text.index("};")]
    assert re.findall(r"^  (\w+):", block, re.M) == list(REACTIONS)
