"""Paper Z part 2 (simlib.studies.zeng.glts): the cube's records, the headline
table and the verdicts on §5.2-§5.3's numbers, each both ways."""
import numpy as np

from helpers_pipeline import REPO
from simlib.claims import Verdict
from simlib.studies.zeng.cubes import build
from simlib.studies.zeng.glts import (DIMS, SCHEDULERS, counter_claims, headline_claims,
                                      headline_table, records)
from simlib.studies.zeng.published import load_published

PUB = load_published(REPO / "config/published/zeng.yaml")


def test_records_pair_ssp_with_every_variant_and_leave_its_counters_empty():
    ssp = [{"workload": "W1", "machine": m, "seed": 0, "rr_all": 9.0, "simulated_seconds": 1.0}
           for m in ("multicore", "single_core")]
    glts = [{"workload": "W1", "seed": 0, "variants": {"GLTS": {"rr_all": 6.0, "groups": 5.0}}}]
    recs = records(ssp, glts)
    assert [(r["scheduler"], r["rr_all"]) for r in recs] == [("SSP", 9.0), ("GLTS", 6.0)]
    assert np.isnan(recs[0]["groups"]) and "simulated_seconds" not in recs[0]
    assert SCHEDULERS[0] == "SSP"


def test_headline_utilization_claim_covers_every_scheduler_compared():
    recs = []
    for s, u in (("SSP", 0.5), ("GLTS", 0.63), ("CST", 0.6), ("CSTWS", 0.57)):
        for seed in (0, 1):
            rec = {"workload": "W1", "scheduler": s, "seed": seed, "u_core_high": u + 0.001 * seed}
            rec.update({f"rr_{c}": 10.0 for c in ("medium", "long", "all")})
            recs.append(rec)
    claims = headline_claims(build(recs, dims=DIMS), PUB, 10.0)
    util = claims[-1]
    # +26 % vs SSP, +5 % vs CST, +10.5 % vs CSTWS: every case a hit.
    assert util.verdict == Verdict.REPRODUCED and "CSTWS" in util.ours
    # RR equal for every scheduler: no improvement anywhere.
    assert {c.verdict for c in claims[:3]} == {Verdict.NOT_REPRODUCED}


def glts_cube(jobs_per_group, groups, eligible, below4, p75, p95):
    recs = []
    for w in ("W1", "W2"):
        for seed in (0, 1, 2):
            rec = {"workload": w, "scheduler": "GLTS", "seed": seed, "jobs_per_group": jobs_per_group[w],
                   "groups": groups[w] + 10 * seed, "eligible_in_groups": eligible,
                   "candidates_below_4": below4, "delay_p75_ml": p75, "delay_p95_ml": p95}
            recs.append(rec)
    return build(recs, dims=DIMS)


def test_counter_claims_both_ways():
    close = glts_cube({"W1": 2.4, "W2": 2.7}, {"W1": 1400.0, "W2": 2100.0}, 40.0, 80.0, 1.25, 1.45)
    assert {c.verdict for c in counter_claims(close, PUB, 0.2, 0.1)} == {Verdict.REPRODUCED}
    far = glts_cube({"W1": 2.2, "W2": 3.5}, {"W1": 270.0, "W2": 500.0}, 16.0, 50.0, 1.0, 1.0)
    verdicts = [c.verdict for c in counter_claims(far, PUB, 0.2, 0.1)]
    # Jobs per group: W1 within 20 % of 2.5, W2 not: partly; the rest: not reproduced.
    assert verdicts == [Verdict.PARTLY] + [Verdict.NOT_REPRODUCED] * 4


def test_headline_table_puts_ours_beside_every_printed_number():
    recs = [{"workload": w, "scheduler": s, "seed": seed,
             **{f"rr_{c}": 9.0 if s == "GLTS" else 10.0 for c in ("medium", "long", "all")},
             "u_core_high": 0.6 if s == "GLTS" else 0.5, "groups": 2000.0 + 10 * seed,
             **{v: 1.0 for v in ("jobs_per_group", "eligible_in_groups", "candidates_below_4",
                                 "delay_p75_ml", "delay_p95_ml")}}
            for w in ("W1", "W2") for s in ("SSP", "GLTS", "CST", "CSTWS") for seed in (0, 1, 2)]
    table = headline_table(build(recs, dims=DIMS), PUB).set_index("quantity")
    row = table.loc["RR improvement of GLTS vs SSP, medium jobs (%)"]
    assert (row["printed"], row["ours"]) == (34.9, "10.0 ± 0.0")
    assert table.loc["U_core in high-load phases, GLTS vs CST (% more)", "ours"] == "20.0 ± 0.0"
    assert table.loc["groups formed (W2)", "ours"].startswith("2010.0 ± ")
    assert table.loc["delay factor R / R_est, 95th percentile (W1)", "printed"] == 1.4
