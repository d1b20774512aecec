"""zbddc.load and zbddc.compile, and the Model they return."""
import os
import warnings
from collections import namedtuple
from collections.abc import Mapping

import numpy as np

from . import _zbddc
from ._answers import Error, Explanation, Marginals, Probability, Solution

Variable = namedtuple("Variable", ["name", "states"])
Variable.__doc__ = "A model variable: its name and its states' names, in the model's order."


def compile(model, *, route="auto", device="auto", numeric="auto", gpus=(), threads=0,
            expected_cases=1):
    """Read and compile a model for answering queries; returns a Model.

    model           a path (every format the command line reads: .bif, .xmlbif/.xml, .net,
                    .uai, .zdd, .wcsp, a compiled .so) or a Model (its file compiled again with
                    these choices)
    route           "auto" (the cheaper exact route for the expected batch), "mlf", "jt", "be",
                    "lbp" (loopy belief propagation: approximate, and said to be in the notes)
    device          "auto" (a usable GPU, else the CPU), "cpu", "cuda", "reference"
    numeric         "auto" (float64, log space for cases that underflow), "float64", "log",
                    "float32", "log32": the default arithmetic of this model's queries
    gpus            the GPUs a batch is split over: ordinals ([0, 1]), or the command line's
                    --devices text ("all", a count "2", "0,1"); empty: the first GPU
    threads         CPU threads, 0: all cores
    expected_cases  the batch size the route and device choice weighs
    Raises zbddc.Error with the command line's one-line message where the file cannot be used;
    what the reader accepted but found odd (a CPT row not summing to 1) is a ReadingWarning
    (warnings.warn) and stays in Model.warnings.
    """
    return _open(model, route=route, device=device, numeric=numeric, gpus=gpus,
                 threads=threads, expected_cases=expected_cases)


def _devices(gpus):
    return gpus if isinstance(gpus, str) else ",".join(str(int(g)) for g in gpus)


def _open(model, gpus, **choices):
    path = model.path if isinstance(model, Model) else os.fspath(model)
    session = _zbddc.Session.open(path, devices=_devices(gpus), **choices)
    for line in session.warnings:
        warnings.warn(line, ReadingWarning, stacklevel=3)  # at the caller of load or compile
    return Model(session, choices["numeric"])


class ReadingWarning(UserWarning):
    """Something the reader accepted but found odd, as the command line's `warning:` lines."""


def load(path, *, route="auto", device="auto", numeric="auto", gpus=(), threads=0,
         expected_cases=1):
    """Read and compile the model at `path`, by default with route and device auto; the same
    keyword arguments as compile()."""
    return _open(path, route=route, device=device, numeric=numeric, gpus=gpus,
                 threads=threads, expected_cases=expected_cases)


class Model:
    """A compiled model. Queries take evidence in any of these forms:

    None                   no evidence (one case)
    {"A": "yes", "B": 0}   one case: variable name -> state name or state index (None, -1:
                           unobserved)
    [dict, dict, ...]      a batch of such cases
    2-D integer array      a batch, cases x variables in the order of `variables`, each entry a
                           state index or -1 (unobserved); a 1-D array is one case
    One case answers with scalars and raises zbddc.Error where it cannot be answered; a batch
    answers with arrays over the cases and records a case's error in `errors` instead.
    Queries release the GIL; one batch runs on a model at a time (others wait).
    """

    def __init__(self, session, numeric="auto"):
        self._session = session
        self._numeric = numeric
        self.variables = [Variable(name, list(states)) for name, states in session.variables]

    @property
    def path(self):
        return self._session.path

    @property
    def kind(self):
        """What the file held: "network", "zdd", "cost network", "model.so", "network.so",
        "problem.so"."""
        return self._session.kind

    @property
    def warnings(self):
        return list(self._session.warnings)

    @property
    def names(self):
        return [v.name for v in self.variables]

    @property
    def route(self):
        """The route taken: "mlf", "jt", "be" or "lbp"."""
        return self._session.route

    @property
    def route_why(self):
        return self._session.route_why

    @property
    def tasks(self):
        """The queries this model and route answer ("pr", "mar", "mpe")."""
        return list(self._session.tasks)

    def evidence(self, evidence):
        """Evidence in any accepted form as the integer array a batch takes (cases x variables,
        -1 unobserved), and whether it was one case."""
        width = len(self.variables)
        if evidence is None:
            return np.full((1, width), -1, dtype=np.int64), True
        if isinstance(evidence, Mapping):
            return self._session.encode([evidence]), True
        if isinstance(evidence, (list, tuple)) and all(isinstance(e, Mapping) for e in evidence):
            return self._session.encode(list(evidence)), False
        rows = np.asarray(evidence)
        if rows.size and not np.issubdtype(rows.dtype, np.integer):
            raise Error("evidence: an array of evidence holds state indices (integers, -1: "
                        f"unobserved), not {rows.dtype}")
        if rows.ndim not in (1, 2):
            raise Error(f"evidence: an array of evidence has 1 or 2 dimensions, not {rows.ndim}")
        single = rows.ndim == 1
        return np.ascontiguousarray(rows.reshape(1, -1) if single else rows, dtype=np.int64), single

    def read_evidence(self, path):
        """A UAI .evid file (one case or the batch layout) as the integer array of a batch."""
        return self._session.read_evidence(os.fspath(path))

    def _answer(self, task, evidence, numeric):
        rows, single = self.evidence(evidence)
        return self._session.answer(task, rows, numeric or self._numeric), single

    def pr(self, evidence=None, *, numeric=None):
        """P(e): a Probability (value, log10; float(answer) for one case)."""
        columns, single = self._answer("pr", evidence, numeric)
        return Probability("pr", columns, self.variables, single)

    def mar(self, evidence=None, *, numeric=None):
        """Every posterior marginal P(X | e): a Marginals (answer["X"], probabilities, to_dict())."""
        columns, single = self._answer("mar", evidence, numeric)
        return Marginals(columns, self.variables, single)

    def mpe(self, evidence=None, *, numeric=None):
        """A most probable explanation: an Explanation (states, assignment, value)."""
        columns, single = self._answer("mpe", evidence, numeric)
        return Explanation(columns, self.variables, single)

    def solve(self, evidence=None):
        """A cost network's optimum (.wcsp, MARKOV .uai): a Solution (cost, assignment)."""
        if self.kind not in ("cost network", "problem.so"):
            raise Error(f"{self.path}: solve() is for cost networks (.wcsp, MARKOV .uai), not a "
                        f"{self.kind}; ask it pr(), mar() or mpe()")
        columns, single = self._answer("mpe", evidence, None)
        return Solution(columns, self.variables, single)

    def save(self, path):
        """Writes the compiled model: a .so (the route's library, C ABI) or a .zdd."""
        self._session.save(os.fspath(path))

    def __repr__(self):
        return (f"<zbddc.Model {self.path}: {len(self.variables)} variables, "
                f"route {self.route}>")
