"""Paper Z's words as data (simlib.studies.zeng.words): claim texts and labels."""
import pytest
from jinja2 import UndefinedError

from simlib.claims import Verdict
from simlib.render import template_data
from simlib.studies.zeng.words import claim


def test_every_claim_has_the_texts_a_claim_needs():
    data = dict(template_data("simlib.studies.zeng", "claims.yaml"))
    assert set(data.pop("rules")) == {"majority", "value", "gain", "paired"}
    for key, texts in data.items():
        assert {"claim", "source", "published", "ours", "criterion"} <= set(texts), key
        assert set(texts) <= {"claim", "source", "published", "ours", "criterion", "figure",
                              "reading"}, key


def test_a_claim_is_rendered_with_its_numbers():
    c = claim("overhead", Verdict.PARTLY, statement="5 % overhead", source="§5.1", target=5.0,
              shares=[4.5, 6.5], tol=1.0, unit="seed (workload)", n=2, overhead=60.0)
    assert (c.key, c.unit, c.n, c.kind) == ("overhead", "seed (workload)", "2", "claim")
    assert "more than half: partly reproduced" in c.criterion and "basis" in c.criterion
    assert (c.claim, c.published) == ("5 % overhead", "5 %")
    assert c.ours == "[4.5, 6.5] % of the makespan (W1, per seed)"
    assert "within 1 percentage points of 5 %" in c.criterion and c.figure == "ssp.md"
    with pytest.raises(UndefinedError):   # a number left out is an error, never a blank
        claim("overhead", Verdict.PARTLY, statement="s", source="§5.1", target=5.0, tol=1.0,
              unit="-", n=1)


def test_labels_are_read():
    labels = template_data("simlib.studies.zeng", "labels.yaml")
    assert labels["ssp"]["rr_all"] == "RR, all jobs" and len(labels["table5"][0]) == 3


def test_every_graded_criterion_states_its_rule_and_the_basis_of_its_tolerance():
    data = dict(template_data("simlib.studies.zeng", "claims.yaml"))
    data.pop("rules")
    for key, texts in data.items():
        crit = texts["criterion"]
        if "tol" in crit:
            assert "basis" in crit, key
        if not key.endswith("not_run") and key not in ("fig1", "fig5"):
            assert "rules." in crit, key
