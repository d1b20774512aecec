"""m.save writes the compiled model: a .so that zbddc.load answers through its C ABI with the
same marginals, and a .zdd of the MLF route."""
import numpy as np

import zbddc
from conftest import SEEDS

EVIDENCE = np.array([[-1, -1, -1], [1, -1, 0], [0, 1, 2]])


def test_a_shared_object_answers_as_the_model(tmp_path):
    for route in ("jt", "mlf"):
        model = zbddc.compile(str(SEEDS / "tiny.bif"), route=route, device="cpu")
        path = tmp_path / f"tiny_{route}.so"
        model.save(path)
        again = zbddc.load(path)
        np.testing.assert_allclose(again.mar(EVIDENCE).probabilities,
                                   model.mar(EVIDENCE).probabilities, rtol=1e-12, atol=1e-15)


def test_a_zdd_round_trip(tmp_path):
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="mlf", device="cpu")
    path = tmp_path / "tiny.zdd"
    model.save(str(path))
    again = zbddc.load(str(path))
    np.testing.assert_allclose(again.pr(EVIDENCE).value, model.pr(EVIDENCE).value, rtol=1e-12)


def test_save_names_a_bad_path(tmp_path):
    import pytest
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    with pytest.raises(zbddc.Error) as raised:
        model.save(str(tmp_path / "no" / "such" / "folder" / "tiny.so"))
    assert "\n" not in str(raised.value)
