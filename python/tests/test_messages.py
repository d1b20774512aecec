"""Errors are Python exceptions carrying the command line's one-line message; a case of a batch
that cannot be answered carries its own, as the command line prints it."""
import subprocess

import pytest

import zbddc
from conftest import SEEDS, cli


def cli_error(*args):
    run = subprocess.run([cli(), *args], capture_output=True, text=True)
    assert run.returncode != 0
    return run.stderr.strip().splitlines()


def test_a_missing_file(tmp_path):
    missing = str(tmp_path / "none.bif")
    with pytest.raises(zbddc.Error) as raised:
        zbddc.load(missing)
    assert cli_error("run", missing, "--task", "pr")[-1].endswith(str(raised.value))


def test_a_malformed_file(tmp_path):
    bad = tmp_path / "bad.bif"
    bad.write_text("network n {\n}\nvariable A {\n  type discrete [ 2 ] { yes };\n}\n")
    with pytest.raises(zbddc.Error) as raised:
        zbddc.load(str(bad))
    message = str(raised.value)
    assert message.startswith(str(bad) + ":") and "\n" not in message
    assert cli_error("run", str(bad), "--task", "pr")[-1].endswith(message)


def test_a_case_of_probability_zero():
    """tiny: P(C = hi | A = no) = 0, so MAR of {A: no, C: hi} is undefined."""
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    with pytest.raises(zbddc.Error) as raised:
        model.mar({"A": "no", "C": "hi"})
    line = cli_error("run", str(SEEDS / "tiny.bif"), "--route", "jt", "--device", "cpu", "--task",
                     "mar", "--evidence", "A=no,C=hi")[-1]
    assert line.endswith(str(raised.value))
    batch = model.mar([{"A": "yes"}, {"A": "no", "C": "hi"}])
    assert batch.ok.tolist() == [True, False]
    assert batch.errors[0] is None and batch.errors[1] == str(raised.value)


def test_options_are_checked():
    with pytest.raises(zbddc.Error, match="unknown device 'tpu'"):
        zbddc.compile(str(SEEDS / "tiny.bif"), device="tpu")
    with pytest.raises(zbddc.Error) as raised:
        zbddc.compile(str(SEEDS / "tiny.bif"), gpus="zz")
    assert cli_error("run", str(SEEDS / "tiny.bif"), "--devices", "zz")[-1].endswith(
        str(raised.value))
    model = zbddc.load(str(SEEDS / "tiny.bif"))
    with pytest.raises(zbddc.Error, match="unknown numeric 'decimal'"):
        model.pr(numeric="decimal")


def test_a_request_that_cannot_apply_is_a_note_of_the_batch():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu", gpus=[0, 1])
    answer = model.mar({})
    assert answer.batch_notes == ["--devices 0,1 ignored: the CPU runs"]
    assert model.mar({}).batch_notes == []  # said once
