"""The store's tables (SQLAlchemy Core): ``runs`` (one row per Run) and ``store_meta`` (applied migrations)."""

from __future__ import annotations

from sqlalchemy import Column, Index, Integer, MetaData, String, Table, Text

METADATA = MetaData()

runs = Table(
    "runs", METADATA,
    Column("id", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("label", String(200), nullable=False, server_default=""),
    Column("tags", Text, nullable=False, server_default=""),
    Column("device", String(200), nullable=False, server_default=""),
    Column("host", String(200), nullable=False, server_default=""),
    Column("document", Text, nullable=False),
    Index("runs_created", "created_at"),
    Index("runs_kind", "kind"),
)

store_meta = Table("store_meta", METADATA, Column("version", Integer, nullable=False))
