"""Where a batch ran, as data (DeviceReport) and as the command line's words (device), the words
being the data's: the kind, then the notes in parentheses. No GPU is asked for, so nothing falls
back: the kind is the device asked for, the route the one taken, the arithmetic the answers'."""
import json
import subprocess

import zbddc
from conftest import SEEDS, cli


def test_the_report_is_the_device_asked_for_on_the_route_taken():
    for route in ("mlf", "jt", "lbp"):
        model = zbddc.compile(str(SEEDS / "tiny.bif"), route=route, device="cpu")
        answer = model.pr({"A": "yes"})
        report = answer.device_report
        assert isinstance(report, zbddc.DeviceReport)
        assert (report.kind, report.name, report.ordinal) == ("cpu", "", None)
        assert report.route == route == model.route
        assert report.arithmetic == answer.numeric
        assert answer.device == f"cpu ({report.notes})"


def test_a_cost_networks_optimum_holds_no_one_arithmetic():
    answer = zbddc.load(str(SEEDS / "tiny.wcsp"), device="cpu").solve()
    report = answer.device_report
    assert (report.kind, report.route, report.arithmetic) == ("cpu", "be", None)


def test_python_and_the_command_line_report_the_same(tmp_path):
    path = str(SEEDS / "tiny.bif")
    ours = zbddc.compile(path, route="jt", device="cpu").mar({"A": "yes"}).device_report
    run = subprocess.run([cli(), "run", path, "--route", "jt", "--device", "cpu", "--task", "mar",
                          "--evidence", "A=yes", "--json"], capture_output=True, text=True,
                         check=True)
    theirs = json.loads(run.stdout)["device_report"]
    assert theirs == ours._asdict()
