"""Pipeline entry point: pick the C_s of each P_S from the C_s sweep's cube.

:func:`simlib.studies.kumar.pick_cs` with ``params.pick`` (metric, rule);
writes ``picks`` (JSON read by the load sweeps' simulations: ``by_p_s``)
and ``csv`` (the same table for paper_figures/K).
"""
from _common import job_log, write_json
from simlib.io import write_csv
from simlib.cube import read_cube
from simlib.studies.kumar import pick_cs, picks_document


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        cube = read_cube(snakemake.input.cube)
        frame = pick_cs(cube, p.swept, p.pick["metric"], p.pick["rule"])
        doc = picks_document(frame, p.p_s, metric=p.pick["metric"], rule=p.pick["rule"],
                             swept=p.swept, load=p.load, scale=p.scale)
        write_json(doc, snakemake.output.picks)
        out = frame.copy()
        out.insert(1, "p_s", [p.p_s[w] for w in out["workload"]])
        out["near_best"] = [" ".join(map(str, v)) for v in out["near_best"]]
        out.insert(0, "scale", p.scale)
        write_csv(out, snakemake.output.csv, index=False, lineterminator="\n")
        log.info("picks: %s", doc["by_p_s"])


main(snakemake)  # noqa: F821
