"""`nsvision batch --scheduler`: the same batch on a Dask cluster gives the same results as a local run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nsvision.batch import INDEX_HTML, LEADERBOARD_CSV, RESULTS_CSV, RESULTS_JSON, RESULTS_JSONL
from nsvision.calibration import Calibration
from nsvision.cli import app
from nsvision.errors import ExitCode
from nsvision.game.simulate import simulate_game
from nsvision.render.sample import make_sample, write_sample

distributed = pytest.importorskip("distributed")
runner = CliRunner()


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    # In-process workers: the test needs no free ports and no worker start-up.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def sheets(tmp_path_factory: pytest.TempPathFactory, calibration: Calibration) -> Path:
    folder = tmp_path_factory.mktemp("dask") / "sheets"
    write_sample(make_sample(calibration, 9, mode="scan", dpi=150), folder / "scan", "png")
    for seed in (1, 2, 3):
        network = simulate_game(calibration.map, seed).network
        (folder / f"net{seed}.json").write_text(json.dumps(network.to_dict()), encoding="utf-8")
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    return folder


def test_dask_batch_equals_the_local_batch(cluster: str, sheets: Path, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "dask"
    res_local = runner.invoke(app, ["batch", str(sheets), "--out", str(local), "--workers", "1"])
    res_dask = runner.invoke(app, ["batch", str(sheets), "--out", str(remote), "--scheduler", cluster])
    assert res_dask.exit_code == res_local.exit_code == ExitCode.BAD_INPUT, res_dask.output
    for name in (RESULTS_CSV, RESULTS_JSON, LEADERBOARD_CSV, INDEX_HTML):
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name
    rows = [json.loads(line) for line in (remote / RESULTS_JSONL).read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5
    statuses = {Path(r["source"]).name: r["status"] for r in rows}
    assert statuses["broken.png"] == "failed"
    (picture,) = [r for r in rows if r["source"].endswith("scan-9.png")]
    assert picture["tie_break"] is not None
    assert (remote / picture["thumbnail"]).read_bytes() == (local / picture["thumbnail"]).read_bytes()
