"""The chaos run's training driver: the demo's loop in a process of its own, which saves
after each iteration through the SDK and, relaunched after a SIGKILL, resumes from its
last save (``examples/chaos.py`` launches and kills it).

    python -m examples.chaos_driver RUN_DIR BASE_URL --seed N --iterations N
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
from dataclasses import replace
from pathlib import Path

from examples.chaos import LATEST, fingerprint, last_saved, row, skyrl_client
from examples.chaos_disruptions import ChaosSettings
from examples.grpo_demo import train


def drive(run_dir: Path, base_url: str, settings: ChaosSettings) -> None:
    """The loop as a training driver runs it: resume from the last save in `run_dir` (its
    rows so far, and the Cortex checkpoint loaded into this launch's job), then after each
    iteration save (the rows, then the checkpoint through the SDK, then `latest`). At the
    end the rows and the final weights' fingerprint go to `outcome.json`."""
    client = skyrl_client(base_url, settings)

    async def session() -> None:
        done = last_saved(run_dir)
        rows: list[list[str]] = []
        if done:
            folder = run_dir / f"iteration_{done}"
            await client.load_checkpoint(folder)
            rows = json.loads((folder / "rows.json").read_text())
        for iteration in range(done + 1, settings.iterations + 1):
            demo = replace(settings.demo, iterations=iteration)
            rows += [list(row(s)) for s in await train(client, demo, first=iteration)]
            folder = run_dir / f"iteration_{iteration}"
            folder.mkdir()
            (folder / "rows.json").write_text(json.dumps(rows))
            await client.save_checkpoint(folder, global_step=iteration)
            (run_dir / f"{LATEST}.part").write_text(str(iteration))
            os.replace(run_dir / f"{LATEST}.part", run_dir / LATEST)
        outcome = {"rows": rows, "fingerprint": await fingerprint(client, settings.demo)}
        (run_dir / "outcome.json").write_text(json.dumps(outcome))

    try:
        asyncio.run(session())
    finally:
        client.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("base_url")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    args = parser.parse_args(argv)
    logging.getLogger("stamina").setLevel(logging.ERROR)
    drive(args.run_dir, args.base_url, ChaosSettings(seed=args.seed, iterations=args.iterations))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
