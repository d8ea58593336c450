"""Pure renderers: ``render_<format>(run) -> str``. Nothing here probes or judges."""
