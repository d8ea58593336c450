"""Entry point for ``python -m gpuready``."""

from gpuready.cli import main

raise SystemExit(main())
