# Stage 6: paper_figures/CLAIMS.md, every paper's claims in one table, and
# paper_figures/README.md, the index of every artifact of this run (one line
# each), saying which scale produced them.


# Every study checking a paper's claims writes them to a claims file
# (Study.claims_file, simlib.claims.write_claims); this rule gathers them and
# knows no paper. Registered before the index rule, whose inputs are ARTIFACTS.
CLAIM_SOURCES = [dict(paper=s.section or s.key, title=s.title, claims=s.claims_file(),
                      readme=s.readme_file())
                 for s in STUDIES if s.claims_file()]
# The full scale's verdicts are committed beside the default's, so its
# index and each paper's claims table carry the scale in their names.
CLAIMS_INDEX = dict(
    section="claims",
    path="paper_figures/CLAIMS.full.md" if SCALE == "full" else "paper_figures/CLAIMS.md",
    title="Every paper's claims in one table (source, published and reproduced numbers, "
          "verdict, criterion), with the verdicts counted per paper")
REPORT_CATEGORIES["claims"] = "Claims"

if CLAIM_SOURCES and ALL_STUDIES:
    ARTIFACTS.append(CLAIMS_INDEX)

    rule claims:
        message:
            "Writing {output[0]}: the claims of {params.ids} ({params.scale} scale)"
        input:
            claims=[c["claims"] for c in CLAIM_SOURCES],
            changes=str(REPO / "config" / "claims_changes.yaml"),
            # The renderer's code: editing it rewrites the table.
            code=import_closure(["simlib.claims"]),
            templates=template_files("simlib", ["CLAIMS.md.j2"]),
        output:
            reported(CLAIMS_INDEX["path"], "claims"),
            # Full scale: each paper's claims table, kept beside the default's.
            [c["claims"].replace(".csv", ".full.csv") for c in CLAIM_SOURCES]
            if SCALE == "full" else [],
        params:
            papers=CLAIM_SOURCES,
            ids=", ".join(c["paper"] for c in CLAIM_SOURCES),
            scale=SCALE,
            scale_description=config["scales"][SCALE].get("description", ""),
        log:
            f"logs/claims.{SCALE}.log",
        localrule: True
        script:
            "../scripts/claims.py"


if ALL_STUDIES:  # the index lists every study's artifacts

    rule report:
        message:
            "Writing the artifact index paper_figures/README.md ({params.scale} scale)"
        input:
            [a["path"] for a in ARTIFACTS],
            code=code_inputs("simlib.markdown"),
            templates=template_files("simlib", ["index.md.j2"]),
        output:
            reported(INDEX["path"], "index"),
        params:
            artifacts=ARTIFACTS,
            scale=SCALE,
            scale_description=config["scales"][SCALE].get("description", ""),
            studies={s: st.get("description", "") for s, st in config["studies"].items()},
        log:
            f"logs/report.{SCALE}.log",
        script:
            "../scripts/report.py"


# The report's view of every artifact (common.smk, "snakemake --report"):
# an HTML rendering of each table, README, cleaning log and cube, and a
# caption of each artifact, under results/report/ (simlib.report_pages).
# One job for all: each page takes milliseconds, a job half a second.
REPORT_PAGE_ENTRIES = sorted(report_entries().values(), key=lambda e: e["path"])


def report_pages_params(wildcards):
    """What each caption names: the rule that made the file and its caption family."""
    def producer(path):
        return next((r.name for r in workflow.rules for f in r.output
                     if r.name != "report_pages" and f.match(path)), "?")
    return dict(
        rules={e["path"]: producer(e["path"]) for e in REPORT_PAGE_ENTRIES},
        families={e["path"]: report_mark(e["path"])[1] for e in REPORT_PAGE_ENTRIES})


rule report_pages:
    message:
        "Writing the report's HTML renderings and captions of {params.n} artifacts ({params.scale} scale)"
    input:
        artifacts=[e["path"] for e in REPORT_PAGE_ENTRIES],
        claims=[c["claims"] for c in CLAIM_SOURCES],
        code=import_closure(["simlib.report_pages"]),
        templates=template_files("simlib", ["report_page.html.j2", "report_caption.rst.j2"]),
    output:
        pages=[report_flag(rendered_path(e["path"]), e, report_caption(e["path"]))
               for e in REPORT_PAGE_ENTRIES if Path(e["path"]).suffix in RENDERED],
        captions=[report_caption(e["path"]) for e in REPORT_PAGE_ENTRIES],
    params:
        entries=REPORT_PAGE_ENTRIES,
        n=len(REPORT_PAGE_ENTRIES),
        claims={c["paper"]: c["claims"] for c in CLAIM_SOURCES},
        studies={s: st.get("description", "") for s, st in config["studies"].items()},
        scale=SCALE,
        scale_description=config["scales"][SCALE].get("description", ""),
        made=report_pages_params,
    log:
        f"logs/report_pages.{SCALE}.log",
    localrule: True
    script:
        "../scripts/report_pages.py"
