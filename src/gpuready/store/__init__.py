"""Persistence of Runs: SQLite by default (a file under the user's data directory), any SQLAlchemy URL for fleets."""

from gpuready.store.database import RunStore, default_url, open_store
from gpuready.store.files import read_run_file, render_run, write_run_file

__all__ = ["RunStore", "default_url", "open_store", "read_run_file", "render_run", "write_run_file"]
