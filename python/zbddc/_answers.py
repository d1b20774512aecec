"""The answers of a query: one entry (or row) per evidence case, as NumPy arrays.

A query given one case (a dict, None, or a 1-D array) answers with scalars and 1-D arrays; given a
batch (a list of dicts or a 2-D array) with arrays whose first axis is the case. Arrays are views
of buffers filled in C++ from the library's answers, handed to NumPy without a copy; they are
read-only.
"""
from typing import NamedTuple, Optional

import numpy as np

from ._zbddc import Error


class DeviceReport(NamedTuple):
    """Where a batch was computed, as data (the library's runtime/device.h).

    kind        "cpu", "cuda", "reference" or "split"
    name        the GPU(s) that ran it ("" where none did)
    ordinal     the GPU's ordinal where one GPU ran it, else None
    arithmetic  "float64", "log", "float32" or "log32"; None where the route holds no one mode
    route       "mlf", "jt", "be" or "lbp"
    notes       what `device` says in parentheses
    """
    kind: str
    name: str
    ordinal: Optional[int]
    arithmetic: Optional[str]
    route: str
    notes: str


def _read_only(array):
    array.flags.writeable = False
    return array


class Answers:
    """What every query returns.

    value     P(e) (pr, mar) or max_x P(x, e) (mpe): a float, or an array over the cases
    log10     log10 of value, exact where value underflows to 0
    errors    None where the case was answered, else the command line's one-line message
              (a batch keeps going past a case that cannot be answered; one case raises)
    ok        errors is None (a bool array for a batch)
    notes     per case: what is worth knowing about its answer ("" where nothing), e.g. the
              arithmetic it fell back to, loopy BP's convergence, a device other than `device`
    numeric   per case: the arithmetic that produced it ("float64", "log", ...)
    device    what ran the batch, in words; device_report: the same as a DeviceReport
    route, route_why  the route taken and why
    batch_notes  notes on the batch as a whole (a device fallen back from, a request that could
              not apply)
    time_ms   the library's wall time for the batch (Session::answer), conversions excluded
    """

    def __init__(self, task, columns, variables, single):
        self.task = task
        self._c = columns
        self._variables = variables
        self.single = single
        self.device = columns["device"]
        self.device_report = DeviceReport(**columns["device_report"])
        self.route = columns["route"]
        self.route_why = columns["route_why"]
        self.batch_notes = columns["batch_notes"]
        self.time_ms = columns["time_ms"]
        if single and columns["errors"][0] is not None:
            raise Error(columns["errors"][0])

    def _case(self, values):
        return values[0] if self.single else values

    def __len__(self):
        return len(self._c["errors"])

    @property
    def value(self):
        return self._case(_read_only(self._c["value"]))

    @property
    def log10(self):
        return self._case(_read_only(self._c["log10"]))

    @property
    def errors(self):
        return self._case(self._c["errors"])

    @property
    def ok(self):
        return self._case(np.array([e is None for e in self._c["errors"]], dtype=bool))

    @property
    def convergence(self):
        """Loopy BP (route "lbp"): (iterations, converged, max_residual), each per case; None
        where the answers are exact."""
        if "iterations" not in self._c:
            return None
        return (self._case(_read_only(self._c["iterations"])),
                self._case(_read_only(self._c["converged"]).astype(bool)),
                self._case(_read_only(self._c["max_residual"])))

    @property
    def notes(self):
        return self._case(self._c["notes"])

    @property
    def numeric(self):
        return self._case(self._c["numeric"])

    def _summary(self):
        failed = sum(e is not None for e in self._c["errors"])
        return (f"<zbddc.{type(self).__name__}: {len(self)} cases, {failed} failed, "
                f"route {self.route or '-'}, {self.device}>")


class Probability(Answers):
    """PR: the probability of the evidence. float(answer) is P(e) for one case."""

    def __float__(self):
        if not self.single:
            raise TypeError("a batch of probabilities has no single float; use .value")
        return float(self.value)

    def __repr__(self):
        if self.single:
            return f"P(e) = {float(self.value)!r} (log10 {float(self.log10)!r})"
        return self._summary()


class Marginals(Answers):
    """MAR: P(X = x | e) for every variable X and state x.

    probabilities   cases x (every variable's states, variable after variable, in the model's
                    order), or one row for one case: the columns of variable v are
                    offsets[v]:offsets[v + 1]
    answer["HISTORY"] (or answer[v]): that variable's posterior, states in the model's order
                    (as pyAgrum's ie.posterior("HISTORY").toarray()), cases x states for a batch
    to_dict()       {name: {state: probability}} for one case, {name: array} for a batch
    A case that failed has NaN probabilities.
    """

    def __init__(self, columns, variables, single):
        super().__init__("mar", columns, variables, single)
        sizes = [len(v.states) for v in variables]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._index = {v.name: i for i, v in enumerate(variables)}

    @property
    def probabilities(self):
        return self._case(_read_only(self._c["marginals"]))

    def _column(self, key):
        if isinstance(key, str):
            if key not in self._index:
                raise KeyError(f"unknown variable '{key}'")
            key = self._index[key]
        return slice(self.offsets[key], self.offsets[key + 1])

    def __getitem__(self, key):
        return self.probabilities[..., self._column(key)]

    def to_dict(self):
        if self.single:
            return {v.name: dict(zip(v.states, self[i].tolist()))
                    for i, v in enumerate(self._variables)}
        return {v.name: self[i] for i, v in enumerate(self._variables)}

    def __repr__(self):
        if not self.single:
            return self._summary()
        lines = []
        for i, v in enumerate(self._variables):
            cells = ", ".join(f"{s}={p:.6g}" for s, p in zip(v.states, self[i]))
            lines.append(f"{v.name}: {cells}")
        return "\n".join(lines)


class Explanation(Answers):
    """MPE: a most probable assignment of every variable given the evidence.

    states      the state index of each variable (cases x variables for a batch), -1 where no
                state is determined (and for a case that failed)
    assignment  {name: state name} (a list of such dicts for a batch)
    value       max_x P(x, e)
    """

    def __init__(self, columns, variables, single, task="mpe"):
        super().__init__(task, columns, variables, single)

    @property
    def states(self):
        return self._case(_read_only(self._c["states"]))

    def _named(self, row):
        return {v.name: v.states[s] for v, s in zip(self._variables, row.tolist()) if s >= 0}

    @property
    def assignment(self):
        if self.single:
            return self._named(self._c["states"][0])
        return [self._named(row) for row in self._c["states"]]

    def __repr__(self):
        if not self.single:
            return self._summary()
        return f"MPE (P = {float(self.value)!r}): {self.assignment}"


def _cost(text):
    if text is None or text == "null":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


class Solution(Explanation):
    """A cost network's optimum (solve()): cost (an int or float; None where infeasible),
    cost_text (the exact decimal text), and the optimal assignment as for MPE."""

    def __init__(self, columns, variables, single):
        super().__init__(columns, variables, single, task="solve")

    @property
    def cost_text(self):
        return self._case(self._c["costs"])

    @property
    def cost(self):
        costs = [_cost(t) for t in self._c["costs"]]
        return costs[0] if self.single else costs

    def __repr__(self):
        if not self.single:
            return self._summary()
        return f"cost {self.cost_text}: {self.assignment}"
