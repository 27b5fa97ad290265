# Stage 6: paper_figures/CLAIMS.md, every paper's claims in one table, and
# paper_figures/README.md, the index of every artifact of this run (one line
# each), saying which scale produced them.


# Every study checking a paper's claims writes them to a claims file
# (Study.claims_file, simlib.claims.write_claims); this rule gathers them and
# knows no paper. Registered before the index rule, whose inputs are ARTIFACTS.
CLAIM_SOURCES = [dict(paper=s.section or s.key, title=s.title, claims=s.claims_file(),
                      readme=s.readme_file())
                 for s in STUDIES if s.claims_file()]
CLAIMS_INDEX = dict(
    section="claims", path="paper_figures/CLAIMS.md",
    title="Every paper's claims in one table (source, published and reproduced numbers, "
          "verdict, criterion), with the verdicts counted per paper")
REPORT_CATEGORIES["claims"] = "Claims"

if CLAIM_SOURCES and ALL_STUDIES:
    ARTIFACTS.append(CLAIMS_INDEX)

    rule claims:
        message:
            "Writing paper_figures/CLAIMS.md: the claims of {params.ids} ({params.scale} scale)"
        input:
            claims=[c["claims"] for c in CLAIM_SOURCES],
            # The renderer's code: editing it rewrites the table.
            code=import_closure(["simlib.claims"]),
            templates=template_files("simlib", ["CLAIMS.md.j2"]),
        output:
            reported(CLAIMS_INDEX["path"], "claims"),
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
