"""beta-likeness on ADULT as ARX 3.9.2's own JUnit cases state it (TestAnonymizationBLikeness,
cases 0-5: ADULT with occupation sensitive, the other eight columns QIs, the loss metric):
the same loss and the same transformation."""

import pytest

from helpers.jobs import ADULT_QIS, occupation_job
from sqlanon.session import Session

QIS = [q for q in ADULT_QIS if q != "occupation"]  # ARX's column order: its levels' order

# (ARX case index, suppression limit, enhanced, beta, ARX's loss, ARX's levels)
CASES = [
    (0, 0.5, False, 3, 0.34883856157237925, (0, 3, 0, 0, 2, 0, 1, 0)),
    (1, 0.0, True, 2, 0.759176305345683, (1, 4, 1, 1, 3, 2, 2, 0)),
    (2, 1.0, False, 1, 0.6081345989904172, (1, 4, 0, 1, 3, 0, 2, 0)),
    (3, 1.0, True, 10, 0.3419039849540606, (0, 3, 0, 0, 3, 1, 2, 0)),
    (4, 0.4, False, 5, 0.23350465152356303, (0, 2, 0, 0, 2, 0, 1, 0)),
    (5, 1.0, True, 10, 0.3419039849540606, (0, 3, 0, 0, 3, 1, 2, 0)),
]


@pytest.fixture(scope="module")
def session(adult_available):
    # the session prepares occupation's histogram for the models the job names
    job = occupation_job(QIS, metric="loss", models=({"type": "beta-likeness", "attribute": "occupation", "beta": 1},))
    with Session(job) as s:
        yield s


@pytest.mark.parametrize("case,limit,enhanced,beta,loss,levels", CASES, ids=[f"arx-{c[0]}" for c in CASES])
def test_arx_junit_cases(session, case, limit, enhanced, beta, loss, levels):
    model = {"type": "beta-likeness", "attribute": "occupation", "beta": beta, "enhanced": enhanced}
    outcome, checker = session.search("flash", k=1, suppression_limit=limit, metric="loss", models=(model,))
    best = outcome.optimum
    assert best is not None
    assert best.loss == pytest.approx(loss, rel=1e-9)
    assert best.node == levels


@pytest.mark.parametrize("enhanced", [False, True])
def test_the_written_release_is_verified_against_the_model(tmp_path, adult_available, enhanced):
    """ARX's case 0 (4 for enhanced: beta 10) released and re-checked from the written file: the
    verification measures the model's figure again and it holds."""
    from sqlanon import Output, anonymize

    beta = 10 if enhanced else 3
    model = {"type": "beta-likeness", "attribute": "occupation", "beta": beta, "enhanced": enhanced}
    job = occupation_job(
        QIS, metric="loss", k=1, suppression_limit=0.5, models=(model,), output=Output(path=str(tmp_path / "out.csv"))
    )
    result = anonymize(job)
    assert result.success and result.report["verified"]
    (entry,) = [m for m in result.report["privacy"]["models"] if m["model"] == "beta-likeness"]
    assert entry["enhanced"] is enhanced and entry["beta"] == beta
    assert entry["achieved"] <= (0 if enhanced else beta)
