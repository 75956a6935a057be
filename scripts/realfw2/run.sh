#!/usr/bin/env bash
# realfw2: run REAL SkyRL and REAL verl against the arctic-rl project's shim + mock server.
#
#   MIRROR=<folder of git mirrors> bash scripts/realfw2/run.sh   (from the project checkout; its
#   .venv is used read-only; `make realfw MIRROR=...` does the same)
#
# 1. set up once (stamped): sources at the pinned commits, a venv layered on the project venv,
#    the local tokenizer + dataset;
# 2. start the project's mock (`python -m arctic_rl_mock --backend reference`) on a free loopback
#    port with a random token (environment only), a fresh state dir;
# 3. run skyrl_drive.py and verl_drive.py against it; stop the mock (by its PID); print SUMMARY.
# Knobs: REALFW2_PARTS (default "skyrl verl"), REALFW2_SKIP_VERL_PROBES=1, REALFW2_MAIN_RUNS=
# A,B,R,C,RC (verl main runs, no arctic_platform importable: A = verl@61ed850f, B = release/v0.7.1
# 9dfab8e5d with the project's worker, R = B's resume scenario, C = PR #7102's V1 trainer at
# 6329d45bd, RC = C's resume scenario), REALFW2_DIR (scratch folder, default $TMPDIR/realfw2),
# REALFW2_SERVICE (today, the default: the live service as it runs; proposed: the full contract).
set -u
export PROJECT=${PROJECT:-$(pwd)}
HERE=$(cd "$(dirname "$0")" && pwd)
R=${REALFW2_DIR:-${TMPDIR:-/tmp}/realfw2}   # scratch: sources, venv and run/ live here, never beside the scripts
mkdir -p "$R" && cp -r "$HERE"/. "$R"/
cd "$R"
T0=$(date +%s)

if [ ! -x "$PROJECT/.venv/bin/python" ]; then
  echo "no $PROJECT/.venv: run 'make setup' in $PROJECT first" >&2
  exit 2
fi

# ---------------------------------------------------------------- 1a. sources (real, pinned)
src() {  # mirror-git-dir commit dest paths...
  local git=$1 commit=$2 dest=$3
  shift 3
  [ -e "$dest/.ok" ] && return 0
  if [ ! -d "$git" ]; then
    echo "missing $git: a bare git mirror of that public repository is needed there (see README.md)" >&2
    exit 2
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  # path by path, each from its own tree: an archive of the whole commit limited by
  # pathspecs still reads blobs outside them, and fails on a mirror that lacks one
  local p
  for p in "$@"; do
    mkdir -p "$dest/$(dirname "$p")"
    if [ "$(git --git-dir="$git" cat-file -t "$commit:$p")" = tree ]; then
      git --git-dir="$git" archive --prefix="$p/" "$commit:$p" | tar -x -C "$dest"
      [ "${PIPESTATUS[*]}" = "0 0" ] || { echo "cannot read $p at $commit from $git" >&2; exit 2; }
    else
      git --git-dir="$git" show "$commit:$p" > "$dest/$p" || exit 2
    fi
  done
  touch "$dest/.ok"
}
M=${MIRROR:?set MIRROR to the folder that holds the fetched mirrors (owner+name/repo)}
src "$M/NovaSky-AI+SkyRL/repo" a9564572e src/skyrl_a9564572e skyrl integrations skyrl-gym pyproject.toml
src "$M/verl-project+verl/repo" 61ed850f src/verl_61ed850f verl setup.py requirements.txt
src "$M/verl-project+verl/repo" 9dfab8e5d src/verl_9dfab8e5d verl
# verl PR #7102 head (refs/pull/7102/head): its V1 trainer drives remote backends
src "$M/verl-project+verl/repo" 6329d45bd src/verl_6329d45bd verl
src "$M/Snowflake-AI-Research+Arctic-Platform/repo" 1b47608 src/ap_1b47608 arctic_platform/integrations
# main: its verl adapter imports arctic_platform.client (and the package's dependency-group check);
# its rl/ (the on-prem servers: deepspeed, vLLM) is left out, so the project's import hook stands in for it.
src "$M/Snowflake-AI-Research+Arctic-Platform/repo" 5864380 src/ap_5864380 arctic_platform/__init__.py \
  arctic_platform/_dependency_groups.py arctic_platform/wire.py arctic_platform/client arctic_platform/sft \
  arctic_platform/integrations

# ---------------------------------------------------------------- 1b. venv (layered on the project venv)
if [ ! -f venv/.realfw2-installed ]; then
  S=$(date +%s)
  python3.11 -m venv venv
  echo "import site; site.addsitedir('$PROJECT/.venv/lib/python3.11/site-packages')" \
    > venv/lib/python3.11/site-packages/zz_projectvenv.pth
  echo "torch==2.13.0" > constraints.txt  # the project's CPU torch satisfies it; nothing may replace it
  venv/bin/pip install -q --disable-pip-version-check -c constraints.txt \
    ray==2.57.0 hydra-core==1.3.2 transformers==5.8.0 tensordict==0.10.0 \
    "datasets>=4.0.0" pandas cloudpathlib loguru jaxtyping func_timeout codetiming pybase64 torchdata \
    zstandard xxhash peft accelerate 2>&1 | { grep -v "^WARNING: Location" || true; }
  [ "${PIPESTATUS[0]}" -eq 0 ] || exit 3
  if ls venv/lib/python3.11/site-packages | grep -qiE '^(torch-|nvidia|triton)'; then
    echo "a torch/CUDA wheel landed in the venv: refusing to go on" >&2
    exit 3
  fi
  touch venv/.realfw2-installed
  echo "setup: venv installed in $(( $(date +%s) - S ))s, $(du -sm venv | cut -f1) MiB"
fi
# verl's V1 trainer (PR #7102) imports TransferQueue; its ray[default] extras are left out
# (no dashboard or metrics agents on this loopback cluster)
if [ ! -f venv/.realfw2-v1deps ]; then
  venv/bin/pip install -q --disable-pip-version-check -c constraints.txt --no-deps \
    transferqueue==0.1.11 pyzmq msgspec cachetools 2>&1 | { grep -v "^WARNING: Location" || true; }
  [ "${PIPESTATUS[0]}" -eq 0 ] && touch venv/.realfw2-v1deps
fi
[ -f run/tiny-byte-lm/tokenizer.json ] || venv/bin/python make_assets.py run >/dev/null

# ---------------------------------------------------------------- 2. mock
PORT=$(python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])")
export REALFW2_MOCK_TOKEN="realfw2-$(python3 -c 'import secrets;print(secrets.token_hex(12))')"
STATE=$(mktemp -d "$R/run/mockstate.XXXX")
# the service the mock plays: today's live one (the recipes turn the KL loss off, as its users
# must), or `proposed`, the full contract (the recipes keep their KL loss term)
export REALFW2_SERVICE=${REALFW2_SERVICE:-today}
PYTHONPATH="$PROJECT" CORTEX_GS_MOCK_TOKEN="$REALFW2_MOCK_TOKEN" "$PROJECT/.venv/bin/python" -m arctic_rl_mock --host 127.0.0.1 \
  --port "$PORT" --state-dir "$STATE" --backend reference --service "$REALFW2_SERVICE" > run/mock.log 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null; wait $MOCK 2>/dev/null' EXIT
for _ in $(seq 60); do grep -q "Uvicorn running" run/mock.log && break; sleep 1; done
URL="http://127.0.0.1:$PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training"
echo "mock (pid $MOCK, $REALFW2_SERVICE service) at $URL"

# ---------------------------------------------------------------- 3. drives
export OMP_NUM_THREADS=1
# nothing leaves the machine: no hub look-ups, no usage stats, no trackers
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 RAY_USAGE_STATS_ENABLED=0 WANDB_MODE=disabled
PY=$R/venv/bin/python
PARTS=${REALFW2_PARTS:-skyrl verl}
OUTS=()
if [[ " $PARTS " == *" skyrl "* ]]; then
  S=$(date +%s)
  PYTHONPATH=$R/compat:$R/src/skyrl_a9564572e:$R/src/skyrl_a9564572e/skyrl-gym \
    timeout 1200 $PY skyrl_drive.py "$URL" "$R/run" > run/skyrl_drive.out 2>&1
  echo "skyrl drive rc=$? in $(( $(date +%s) - S ))s (run/skyrl_drive.out)"
  OUTS+=(run/skyrl_drive.out)
fi
if [[ " $PARTS " == *" verl "* ]]; then
  S=$(date +%s)
  timeout 1200 $PY verl_drive.py "$URL" "$R/run" > run/verl_drive.out 2>&1
  echo "verl drive rc=$? in $(( $(date +%s) - S ))s (run/verl_drive.out)"
  OUTS+=(run/verl_drive.out)
fi

echo
echo "==== SUMMARY ===="
for f in "${OUTS[@]}"; do
  sed -n '/^==== SUMMARY/,$p' "$f" | grep -E '^(PASS|FAIL)' || echo "FAIL  $(basename "$f" .out): no summary (see $f)"
done
P=$(cat "${OUTS[@]}" | sed -n '/^==== SUMMARY/,$p' | grep -c '^PASS')
F=$(cat "${OUTS[@]}" | sed -n '/^==== SUMMARY/,$p' | grep -c '^FAIL')
echo "realfw2: $P passed, $F failed in $(( $(date +%s) - T0 ))s"
