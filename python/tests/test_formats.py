"""zbddc.load reads every format the command line reads; the same network written in BIF, Hugin
.net, XMLBIF and UAI gives the same marginals, and they are pyAgrum's."""
import numpy as np
import pytest

import zbddc
from conftest import SEEDS, repo_file

import pyagrum as gum

FORMATS = ["tiny.bif", "tiny.net", "tiny.xmlbif", "tiny.uai"]
EVIDENCE = np.array([[-1, -1, -1], [1, -1, -1], [-1, 0, 2], [0, 1, 1]])


@pytest.mark.parametrize("name", FORMATS)
def test_the_formats_of_tiny_agree_with_pyagrum(name):
    model = zbddc.load(str(SEEDS / name))
    assert [len(v.states) for v in model.variables] == [2, 2, 3]
    ours = model.mar(EVIDENCE)
    # pyAgrum reads the BIF (its float32 parameters: 1e-7), variables in the same order.
    bn = gum.loadBN(str(SEEDS / "tiny.bif"))
    ie = gum.LazyPropagation(bn)
    for c, row in enumerate(EVIDENCE):
        ie.eraseAllEvidence()
        ie.setEvidence({bn.variable(v).name(): int(s) for v, s in enumerate(row) if s >= 0})
        ie.makeInference()
        theirs = np.concatenate([ie.posterior(bn.variable(v).name()).toarray()
                                 for v in range(3)])
        np.testing.assert_allclose(ours.probabilities[c], theirs, atol=1e-7)


def test_a_zdd_file():
    """examples/wetgrass.zdd: the README's P(WetGrass = yes) = 0.26."""
    model = zbddc.load(repo_file("examples/wetgrass.zdd"))
    assert model.route == "mlf"
    assert model.pr({"WetGrass": "yes"}).value == pytest.approx(0.26, rel=1e-12)
    mar = model.mar({"WetGrass": "yes"})
    np.testing.assert_allclose(mar["WetGrass"], [1.0, 0.0])
