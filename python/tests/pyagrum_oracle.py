"""pyAgrum's LazyPropagation as the independent oracle: P(e) and every posterior of a network for
one case of evidence (variable name -> state name); None where pyAgrum finds P(e) = 0.

pyAgrum's readers keep parameters in float32 precision (0.3 becomes 0.30000001192092896), so the
oracle writes the network it read back out as BIF (every parameter exact) and both sides read
that file: the answers then agree to rounding (1e-9), not to float32's 1e-8."""
import pyagrum as gum


class Oracle:
    def __init__(self, path, folder):
        written = str(folder / "pyagrum_written.bif")
        gum.saveBN(gum.loadBN(path), written)
        self.path = written  # what zbddc reads too
        self.bn = gum.loadBN(written)
        self.ie = gum.LazyPropagation(self.bn)

    def labels(self, name):
        return list(self.bn.variable(name).labels())

    def answer(self, evidence):
        """(P(e), {name: [P(name = state | e) in pyAgrum's label order]}), or None."""
        self.ie.eraseAllEvidence()
        self.ie.setEvidence(dict(evidence))
        try:
            self.ie.makeInference()
            pe = self.ie.evidenceProbability()
        except gum.GumException:
            return None
        if pe == 0:
            return None
        names = [self.bn.variable(i).name() for i in self.bn.nodes()]
        return pe, {n: list(self.ie.posterior(n).toarray()) for n in names}

    def joint(self, assignment):
        """P(x) of a full assignment (name -> state name), from the CPTs."""
        inst = gum.Instantiation()
        for i in self.bn.nodes():
            inst.add(self.bn.variable(i))
        for name, state in assignment.items():
            inst.chgVal(name, state)
        return self.bn.jointProbability(inst)
