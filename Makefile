# Set-up and main commands (see README.md).
#   make reproduce   install into .venv, run the pipeline at default scale
#                    (STUDIES=kumar,zeng: those studies only, see README)
#   make test        install into .venv, run the tests
#   make smoke       install into .venv, run the smoke-scale pipeline in build/smoke
#   make dry-run     show what the pipeline would run (default scale)
#   make lint        install into .venv, run ruff (settings in pyproject.toml)
#   make report      report.zip: Snakemake's HTML report of every artifact, by paper
#                    (run after `make reproduce`; it builds nothing itself)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.simlib-installed
# Every pipeline step (and many tests) is a process importing simlib: its
# bytecode is compiled once here (only what changed; ~0.1 s), not by each
# process where PYTHONDONTWRITEBYTECODE keeps Python from caching it.
BYTECODE = $(BIN)/python -m compileall -q simlib workflow/scripts
# SimGrid for paper D, from Debian (scripts/simgrid.sh); rechecked when the
# script changes. Never fails the build: paper D's rules say what is missing.
SIMGRID_STAMP := $(VENV)/.simgrid-checked
PROFILE ?= profiles/local
SMOKE_DIR ?= build/smoke
REPORT ?= report.zip
SNAKEMAKE_ARGS ?=
PYTEST_ARGS ?=
# Studies to build (comma-separated keys of the registry; empty: all). One
# --config list for both this and the smoke scale: a second --config flag
# would replace the first.
STUDIES ?=
ONLY := $(if $(strip $(STUDIES)),only=$(strip $(STUDIES)),)

.PHONY: reproduce test lint smoke dry-run report install

reproduce: $(STAMP) $(SIMGRID_STAMP)
	$(BYTECODE)
	$(BIN)/snakemake --workflow-profile $(PROFILE) --cores all $(if $(ONLY),--config $(ONLY),) \
	  $(SNAKEMAKE_ARGS)

# pytest exits 5 when nothing was collected: fine for a selection that
# happens to be empty (e.g. PYTEST_ARGS="-m slurm"), an error otherwise.
test: $(STAMP) $(SIMGRID_STAMP)
	@$(BYTECODE)
	@status=0; $(BIN)/pytest $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ] && [ -n "$(PYTEST_ARGS)" ]; then \
	  echo "pytest: no test matches '$(PYTEST_ARGS)' (exit 5), nothing to do"; status=0; fi; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .

# Outside the repository's results/ and paper_figures/, which hold the
# default-scale artifacts.
smoke: $(STAMP) $(SIMGRID_STAMP)
	mkdir -p $(SMOKE_DIR)
	$(BYTECODE)
	$(BIN)/snakemake --workflow-profile $(PROFILE) --cores all --config scale=smoke $(ONLY) \
	  --directory $(SMOKE_DIR) $(SNAKEMAKE_ARGS)

dry-run: $(STAMP)
	$(BIN)/snakemake --workflow-profile $(PROFILE) --cores all -n $(if $(ONLY),--config $(ONLY),) \
	  $(SNAKEMAKE_ARGS)

# Snakemake's self-contained report (report.html inside the zip) of the
# artifacts a previous run built; fails naming the first missing one. The
# path is made absolute so that SNAKEMAKE_ARGS may hold --directory, e.g.
#   make report SNAKEMAKE_ARGS="--config scale=smoke --directory build/smoke"
# The stylesheet keeps wide content (the rule graph) scrollable
# (workflow/report/report.css).
report: $(STAMP)
	$(BIN)/snakemake --workflow-profile $(PROFILE) --report $(abspath $(REPORT)) \
	  --report-stylesheet $(abspath workflow/report/report.css) $(SNAKEMAKE_ARGS)

install: $(STAMP) $(SIMGRID_STAMP)

# Reinstall when the dependencies or the compiled kernel's source change
# (pip builds it: setup.py); only PyPI is contacted.
$(STAMP): pyproject.toml setup.py $(wildcard simlib/policies/_*_kernel.pyx)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e '.[pipeline,test]'
	touch $@

$(SIMGRID_STAMP): $(STAMP) scripts/simgrid.sh
	bash scripts/simgrid.sh install $(VENV)
	touch $@
