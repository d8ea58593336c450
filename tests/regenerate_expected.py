"""Write <case>.expected.json for fixtures that lack one (``--all`` rewrites every one). Review the diff by hand:
an expected file is a claim about what the real output says."""

from __future__ import annotations

import json
import sys

from tests.fixture_kinds import all_fixtures, parse_to_data


def main(argv: list[str]) -> int:
    rewrite = "--all" in argv
    for fixture in all_fixtures():
        if fixture.expected_path.exists() and not rewrite:
            continue
        fixture.expected_path.write_text(json.dumps(parse_to_data(fixture), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {fixture.expected_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
