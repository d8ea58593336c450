"""Every real fixture judged as `gpuready doctor --from` would; its source thread is the ground truth."""

from __future__ import annotations

import pytest

from gpuready.compat.load import Dataset, load_dataset
from tests.ground_truth import PROBLEM_CODES, expectations, judge_fixture, judged_fixtures

FIXTURES = judged_fixtures()


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def test_every_judged_fixture_has_an_expectation_and_a_diagnosis() -> None:
    expected = expectations()
    names = {f"{f.kind}/{f.case}" for f in FIXTURES}
    assert names == set(expected), "tests/fixtures/verdicts.yaml and the fixtures disagree"
    for fixture in FIXTURES:
        diagnosis = fixture.source().get("diagnosis")
        assert diagnosis and diagnosis.get("established"), f"{fixture.case}: no diagnosis from its source"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f"{f.kind}/{f.case}" for f in FIXTURES])
def test_verdict_and_problems(fixture: object, data: Dataset) -> None:
    case = judge_fixture(fixture, data, expectations())  # type: ignore[arg-type]
    assert case.verdict.value == case.expected_verdict, case.codes
    assert not case.missed, f"the thread confirmed {case.missed}, doctor raised {case.codes}"
    for problem in case.not_visible:
        assert problem in case.problems, f"not_visible names {problem}, which the thread did not confirm"
    if "no_problem_in_stack" in case.problems and case.verdict.value == "NOT READY":
        assert case.codes == ("gpu.none",), "a working stack is NOT READY only when it has no GPU at all"


def test_problem_tags_are_known() -> None:
    allowed = set(PROBLEM_CODES) | {"wsl_limitation", "no_problem_in_stack", "unknown", "other"}
    for fixture in FIXTURES:
        for problem in (fixture.source().get("diagnosis") or {}).get("problems") or ():
            assert problem in allowed, f"{fixture.case}: unknown problem tag {problem}"


def test_a_truncated_json_with_leading_noise_is_read_as_a_paste(capsys: pytest.CaptureFixture[str]) -> None:
    """The one fixture no parser reads whole (a cut amd-smi JSON after Python warnings) is read line by line: the
    GPU it names is not lost, and doctor judges it with the rest unknown."""
    from gpuready.cli import main
    from tests.fixture_kinds import all_fixtures

    judged = {(f.kind, f.case) for f in FIXTURES}
    rest = [f for f in all_fixtures() if (f.kind, f.case) not in judged]
    assert {f.case for f in rest} == {"static-rx7800xt-gpu-data-warnings-truncated"}
    for fixture in rest:
        assert main(["env", "--from", str(fixture.path)]) == 0
        assert "AMD Radeon RX 7800 XT" in capsys.readouterr().out
        assert main(["doctor", "--from", str(fixture.path)]) == 0
        assert "READY WITH WARNINGS" in capsys.readouterr().out
