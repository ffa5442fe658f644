"""The packaged Alembic migrations (storage/alembic.ini, storage/migrations): heads, up, down."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

#: The storage package, where alembic.ini and the migrations live.
_HERE = Path(__file__).resolve().parent.parent


def _alembic_config() -> Config:
    config = Config(str(_HERE / "alembic.ini"))
    config.set_main_option("script_location", str(_HERE / "migrations"))
    return config


def migration_heads() -> list[str]:
    """The head revisions of the packaged migrations (one, unless two lines of migrations diverged)."""
    return list(ScriptDirectory.from_config(_alembic_config()).get_heads())


def migrate(engine: sa.Engine, revision: str = "head") -> None:
    """Apply the packaged Alembic migrations up to `revision`."""
    config = _alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def downgrade(engine: sa.Engine, revision: str) -> None:
    """Undo migrations down to `revision` ("base" removes every table)."""
    config = _alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, revision)
