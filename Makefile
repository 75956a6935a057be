# One entry point for every task; each target sets itself up on a fresh machine.
# PYTHON picks the interpreter; each gets a venv of its own, so the default's .venv (the
# one CI and the README use) is never rebuilt by a run on another Python:
# `make test PYTHON=python3.12` sets up and tests in .venv-3.12 (docs/setup.md).
PYTHON  ?= python3
VENV    := $(if $(filter python3,$(PYTHON)),.venv,.venv-$(subst python,,$(notdir $(PYTHON))))
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json
# The published client, for the conformance tests only (never a runtime dependency).
PUBLISHED_CLIENT := arctic-platform==0.1.4
PUBLISHED_STAMP  := $(VENV)/.published-client
HOST    ?= 127.0.0.1
PORT    ?= 8765
BACKEND ?= reference
# today: the live service as it runs; proposed: the contract's proposals served as well
SERVICE ?= today
BASE    ?= HEAD

.PHONY: setup generate check-generated test lint serve demo chaos chaos-record docs bench soak fuzz spec-diff contract-check realfw extras-bounds clean

setup: $(STAMP) $(PUBLISHED_STAMP) $(NODE_STAMP)

# torch is installed first, on its own, so the user chooses its build (docs/setup.md):
# TORCH_SPEC is the requirement, TORCH_INDEX the package index to take it from (empty:
# pip's configured indexes). Without a GPU, scripts/torch_choice.py first asks pip what it
# would install and stops, before anything is installed, if that is the multi-gigabyte CUDA
# build (TORCH_ALLOW_CUDA=1 installs it anyway).
TORCH_SPEC  ?= torch==2.13.0
TORCH_INDEX ?=
TORCH_ALLOW_CUDA ?=
TORCH_PIP_ARGS = $(if $(TORCH_INDEX),--index-url '$(TORCH_INDEX)') '$(TORCH_SPEC)'
$(STAMP): pyproject.toml arctic_rl/_pth_hook.py  # the hook holds its .pth line
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python scripts/torch_choice.py $(if $(filter 1,$(TORCH_ALLOW_CUDA)),--allow-cuda) -- $(TORCH_PIP_ARGS)
	$(BIN)/pip install --quiet --disable-pip-version-check $(TORCH_PIP_ARGS)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[mock,dev]'
	$(BIN)/python -m arctic_rl._pth_hook  # the .pth line of the arctic_platform.rl hook
	touch $(STAMP)

# tests/conformance drives the published client, unchanged. Its wheel declares Python >= 3.12
# but its client runs on 3.11, so its metadata check is skipped; its `cortex` extra's
# requirements (and pydantic-settings, which --no-deps skips) are pinned in the dev extra.
# Rebuilt whenever $(STAMP) is, so a pyproject change re-runs it too.
$(PUBLISHED_STAMP): $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check --ignore-requires-python --no-deps $(PUBLISHED_CLIENT)
	touch $(PUBLISHED_STAMP)

# The pinned Redocly CLI lints and renders the contract; tests lint with it too.
$(NODE_STAMP): package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

generate: setup
	$(BIN)/python scripts/generate.py

check-generated: setup
	$(BIN)/python scripts/generate.py --check

# One OpenMP thread: on 2 cores the tests' many small torch ops and mock servers run
# several times faster without thread oversubscription.
test: setup
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check arctic_rl mock_server arctic_rl_kit devtools tests scripts benchmarks examples
	$(BIN)/ruff format --check arctic_rl mock_server arctic_rl_kit devtools tests scripts benchmarks examples

serve: setup
	$(BIN)/python -m arctic_rl_mock --host $(HOST) --port $(PORT) --backend $(BACKEND) --service $(SERVICE) --state-dir .mock-state --no-auth

demo: setup
	$(BIN)/python examples/grpo_demo.py

# The demo's loop under random network faults and SIGKILLs of the mock, then clean with
# the same seed: are metrics, samples and final weights bit-identical? (SEED=, ITERATIONS=)
SEED       ?= 1
ITERATIONS ?= 6
CHAOS      = OMP_NUM_THREADS=1 $(BIN)/python -m examples.chaos --seed $(SEED) --iterations $(ITERATIONS)
chaos: setup
	$(CHAOS)

# What `make chaos` prints (its command, then the runs), kept as docs/chaos-run.txt: the
# run the README and docs/reliability.md quote (tests/review/test_readme.py holds them to it).
chaos-record: setup
	{ echo '$(CHAOS)' && $(CHAOS); } > docs/chaos-run.txt.part && mv docs/chaos-run.txt.part docs/chaos-run.txt

# site/cortex_gs.html (full contract), site/cortex_gs.today.html (today's service alone),
# site/proposals.html (what the proposals add).
docs: setup
	$(BIN)/python scripts/render_docs.py

bench: setup
	$(BIN)/python -m benchmarks

# The demo's loop for 2,000 client calls in SkyRL's calling pattern (a fresh event loop per
# call): descriptors, RSS and latency over the calls, a plot and a row in docs/benchmarks.md.
SOAK_CALLS ?= 2000
soak: setup
	OMP_NUM_THREADS=1 $(BIN)/python -m benchmarks.soak --calls $(SOAK_CALLS)

fuzz: setup
	$(BIN)/python scripts/fuzz.py

# By hand, not in CI: the real SkyRL trainer and the real verl TaskRunner against the mock
# (minutes; a large scratch venv under $$TMPDIR). MIRROR names a folder of bare git mirrors
# of the pinned public sources (see scripts/realfw2/README.md).
realfw: setup
	MIRROR=$(MIRROR) bash scripts/realfw2/run.sh

# By hand, not in CI: the mock extra's version ranges at both ends (the lowest and the newest
# versions they allow, each in a scratch venv) under the mock's smoke tests (a few minutes).
extras-bounds: setup
	$(BIN)/python scripts/extras_bounds.py

# Two checks: no proposal breaks a client of today's service (today's view -> full contract),
# and the working tree breaks no client of the contract at BASE.
spec-diff: setup
	$(BIN)/python scripts/spec_diff.py --today
	$(BIN)/python scripts/spec_diff.py --base $(BASE)

# The server team's kit: where does a Cortex GS endpoint depart from the contract?
# make contract-check URL=https://HOST/api/v2/databases/DB/schemas/S/cortex-training PAT_ENV=CORTEX_PAT
#   [MODE=safe|full] [JOB=<running job id>] [PROPOSALS=1]
# PAT_ENV names the variable that holds the token; the token never goes on a command line.
MODE      ?= safe
REPORT    ?= contract-check-report
contract-check: setup
	@test -n "$(URL)" -a -n "$(PAT_ENV)" || { echo "usage: make contract-check URL=<service URL> PAT_ENV=<variable holding a token> [MODE=safe|full] [JOB=<job id>] [PROPOSALS=1]" >&2; exit 2; }
	$(BIN)/python -m arctic_rl_kit --url '$(URL)' --pat-env '$(PAT_ENV)' --mode '$(MODE)' \
		--report-dir '$(REPORT)' $(if $(JOB),--job '$(JOB)') $(if $(PROPOSALS),--with-proposals)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .schemathesis build *.egg-info
