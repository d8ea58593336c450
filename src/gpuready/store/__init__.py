"""Persistence of Runs: SQLite by default (a file under the user's data directory), any SQLAlchemy URL for fleets."""

from gpuready.store.database import RunStore, default_url, open_store

__all__ = ["RunStore", "default_url", "open_store"]
