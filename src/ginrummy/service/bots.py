"""Bot accounts: a signed-in person makes a bot with a name of its own and an API token for it.

The token is `grb_<bot id>.<secret>`, the secret 256 random bits: it is shown once, when issued,
and only its SHA-256 is kept. A token is checked by loading its bot by id and comparing hashes in
constant time (`hmac.compare_digest`), so neither the lookup nor the comparison tells how much of a
forged token was right. Issuing a new token or revoking it refuses the old one at once: every open
connection of the bot is told (`watch` callbacks) and closed, and every later call re-reads the
stored hash, so a revoked token works nowhere, in any server process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .accounts import clean_account_name, name_key
from .errors import Conflict, Forbidden, NameTaken, NotFound, Unauthorized
from .identity import new_guest_id
from .ports import AccountRow, AccountStore, BotRow, BotStore, GuestRow, GuestStore, SeatRow, StoreError

__all__ = ["BOTS_PER_OWNER", "BotAccounts", "BotIdentity", "TOKEN_PREFIX", "hash_token"]

TOKEN_PREFIX = "grb_"
BOTS_PER_OWNER = 5
#: What a bot account's password hash holds: no Argon2 hash, so no password ever signs a bot in.
NO_PASSWORD = "!bot"


def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """The bot a token proves: its row, its name, and the hash of the token that proved it."""

    bot: BotRow
    name: str
    token_hash: str

    @property
    def id(self) -> str:
        return self.bot.guest_id


class BotPorts(BotStore, AccountStore, GuestStore, Protocol):
    """The storage bot accounts use: the bots, their accounts and guests."""


class BotAccounts:
    """Make bots, issue and revoke their tokens, and tell which guests are bots."""

    def __init__(self, store: BotPorts, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        #: Bots seen so far, by guest id (a bot never stops being one; its token is re-read on use).
        self.known: dict[str, BotRow] = {}
        self._watchers: dict[str, set[Callable[[str], None]]] = {}

    # -- which guests are bots -------------------------------------------------

    async def of(self, guest_ids: list[str]) -> dict[str, BotRow]:
        """The bots among `guest_ids` (remembered, so a second look costs nothing)."""
        wanted = [g for g in guest_ids if g not in self.known]
        if wanted:
            self.known.update(await self.store.get_bots(wanted))
        return {g: self.known[g] for g in guest_ids if g in self.known}

    async def is_bot(self, guest_id: str) -> bool:
        return bool(await self.of([guest_id]))

    def seated(self, seats: tuple[SeatRow, ...]) -> bool:
        """True when a bot sits at this table (its seats were looked at with `of` before)."""
        return any(s.guest_id in self.known for s in seats if s.guest_id is not None)

    async def refuse_bot(self, guest_id: str, what: str) -> None:
        """Bots play only the people who challenge them (Lichess's rule): `Forbidden` for `what`."""
        if await self.is_bot(guest_id):
            raise Forbidden(f"bot accounts do not play {what}; people challenge them from their profile")

    # -- the owner's side ------------------------------------------------------

    async def _owner(self, guest: GuestRow) -> AccountRow:
        account = await self.store.get_account(guest.id)
        if account is None:
            raise Forbidden("sign in (or claim an account) to make bot accounts")
        if await self.is_bot(guest.id):
            raise Forbidden("a bot cannot make bots")
        return account

    async def _owned(self, guest: GuestRow, bot_id: str) -> BotRow:
        bot = (await self.store.get_bots([bot_id])).get(bot_id)
        if bot is None or bot.owner_id != guest.id:
            raise NotFound(f"you have no bot {bot_id!r}")
        self.known[bot_id] = bot
        return bot

    def _new_token(self, bot_id: str) -> tuple[str, str]:
        token = f"{TOKEN_PREFIX}{bot_id}.{secrets.token_urlsafe(32)}"
        return token, hash_token(token)

    async def create(self, owner: GuestRow, name: Any) -> tuple[dict[str, Any], str]:
        """A new bot of `owner`'s, with its token (returned this once, never again)."""
        await self._owner(owner)
        clean = clean_account_name(name)
        key = name_key(clean)
        if len(await self.store.bots_of(owner.id)) >= BOTS_PER_OWNER:
            raise Conflict(f"an account may have at most {BOTS_PER_OWNER} bots")
        if await self.store.get_account_by_name(key) is not None:
            raise NameTaken(f"the name {clean!r} is taken")
        now = self.clock()
        bot_id = new_guest_id()
        token, digest = self._new_token(bot_id)
        bot = BotRow(bot_id, owner.id, now, digest, now)
        try:
            await self.store.create_bot(
                GuestRow(bot_id, clean, now), AccountRow(bot_id, clean, key, NO_PASSWORD, now, now), bot
            )
        except StoreError:
            raise NameTaken(f"the name {clean!r} is taken") from None
        self.known[bot_id] = bot
        return self._summary(bot, clean), token

    async def mine(self, owner: GuestRow) -> list[dict[str, Any]]:
        """The owner's bots, as the account page lists them (never a token)."""
        rows = await self.store.bots_of(owner.id)
        names = await self.store.get_guests([b.guest_id for b in rows])
        return [self._summary(b, names[b.guest_id].name if b.guest_id in names else "?") for b in rows]

    def _summary(self, bot: BotRow, name: str) -> dict[str, Any]:
        return {
            "id": bot.guest_id,
            "name": name,
            "created_at": bot.created_at,
            "token": bot.token_hash is not None,  # whether a token is valid now (never the token)
            "token_at": bot.token_at,
            "profile": f"/players/{bot.guest_id}",
        }

    async def issue_token(self, owner: GuestRow, bot_id: str) -> str:
        """A new token for the bot; the one before stops working at once."""
        bot = await self._owned(owner, bot_id)
        token, digest = self._new_token(bot.guest_id)
        now = self.clock()
        await self.store.set_bot_token(bot.guest_id, digest, now)
        self.known[bot_id] = BotRow(bot.guest_id, bot.owner_id, bot.created_at, digest, now)
        self._revoked(bot_id, "the bot's API token was replaced on its owner's account page")
        return token

    async def revoke(self, owner: GuestRow, bot_id: str) -> None:
        """The bot's token stops working at once, mid-game too; a new one can be issued later."""
        bot = await self._owned(owner, bot_id)
        now = self.clock()
        await self.store.set_bot_token(bot.guest_id, None, now)
        self.known[bot_id] = BotRow(bot.guest_id, bot.owner_id, bot.created_at, None, now)
        self._revoked(bot_id, "the bot's API token was revoked on its owner's account page")

    # -- the bot's side --------------------------------------------------------

    async def authenticate(self, authorization: str | None) -> BotIdentity:
        """The bot an `Authorization: Bearer <token>` header proves; `Unauthorized` says why not."""
        if not authorization:
            raise Unauthorized('send the header "Authorization: Bearer <token>" with the bot\'s API token')
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized('the Authorization header must be "Bearer <token>"')
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            raise Unauthorized(f"this is not a bot API token (they start with {TOKEN_PREFIX!r})")
        bot_id, _, secret = token[len(TOKEN_PREFIX) :].partition(".")
        if not bot_id or not secret:
            raise Unauthorized("this is not a bot API token: it is cut short")
        digest = hash_token(token)
        bot = (await self.store.get_bots([bot_id])).get(bot_id)
        stored = bot.token_hash if bot is not None else None
        # One comparison whatever happened, so the time taken tells nothing.
        if not hmac.compare_digest(stored or "0" * 64, digest) or bot is None or stored is None:
            raise Unauthorized(
                "this token is not valid: it was never issued, or it was revoked or replaced; "
                "the bot's owner can issue a new one on the account page"
            )
        self.known[bot_id] = bot
        guest = await self.store.get_guest(bot_id)
        return BotIdentity(bot, guest.name if guest is not None else "?", digest)

    async def confirm(self, identity: BotIdentity) -> None:
        """`Unauthorized` if the token that proved `identity` was revoked or replaced since (read
        again from the store, so a revocation by another server process counts too)."""
        bot = (await self.store.get_bots([identity.id])).get(identity.id)
        stored = bot.token_hash if bot is not None else None
        if not hmac.compare_digest(stored or "0" * 64, identity.token_hash) or stored is None:
            raise Unauthorized("the bot's API token was revoked or replaced")

    def watch(self, bot_id: str, on_revoked: Callable[[str], None]) -> Callable[[], None]:
        """Call `on_revoked(message)` when the bot's token is revoked or replaced; returns the unwatch."""
        self._watchers.setdefault(bot_id, set()).add(on_revoked)

        def unwatch() -> None:
            watchers = self._watchers.get(bot_id)
            if watchers is not None:
                watchers.discard(on_revoked)
                if not watchers:
                    del self._watchers[bot_id]

        return unwatch

    def _revoked(self, bot_id: str, message: str) -> None:
        for on_revoked in list(self._watchers.get(bot_id, ())):
            on_revoked(message)
