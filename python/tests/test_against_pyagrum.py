"""MAR, PR and MPE against pyAgrum's LazyPropagation, one case at a time and as batches, on the
junction-tree and MLF routes."""
import numpy as np
import pytest

import zbddc
from conftest import SEEDS, benchmark
from pyagrum_oracle import Oracle

NETWORKS = [("tiny", lambda: str(SEEDS / "tiny.bif")),
            ("asia", lambda: benchmark("bn", "asia.bif")),
            ("alarm", lambda: benchmark("bn", "alarm.bif")),
            ("hailfinder", lambda: benchmark("bn", "hailfinder.bif"))]
ROUTES = ["jt", "mlf"]
CASES = 12


@pytest.fixture(scope="module", params=NETWORKS, ids=[n for n, _ in NETWORKS])
def oracle(request, tmp_path_factory):
    return Oracle(request.param[1](), tmp_path_factory.mktemp(request.param[0]))


def random_cases(model, count, seed):
    """Cases observing one to four variables in random states; some have P(e) = 0."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        chosen = rng.choice(len(model.variables), size=min(len(model.variables),
                                                           int(rng.integers(1, 5))), replace=False)
        cases.append({model.variables[v].name:
                      model.variables[v].states[int(rng.integers(len(model.variables[v].states)))]
                      for v in chosen})
    return [{}] + cases


def assert_matches(oracle, model, marginals, evidence):
    """One case's MAR (a Marginals of one case, or a batch row by name) against pyAgrum."""
    expected = oracle.answer(evidence)
    assert expected is not None
    pe, posteriors = expected
    for v in model.variables:
        ours = dict(zip(v.states, marginals(v.name)))
        theirs = dict(zip(oracle.labels(v.name), posteriors[v.name]))
        for state in v.states:
            assert ours[state] == pytest.approx(theirs[state], abs=1e-9), (v.name, state, evidence)
    return pe


@pytest.mark.parametrize("route", ROUTES)
def test_mar_one_case_at_a_time(oracle, route):
    model = zbddc.compile(oracle.path, route=route, device="cpu")
    assert model.route == route
    for evidence in random_cases(model, CASES, seed=1):
        if oracle.answer(evidence) is None:
            with pytest.raises(zbddc.Error, match="probability 0"):
                model.mar(evidence)
            continue
        answer = model.mar(evidence)
        pe = assert_matches(oracle, model, lambda name: answer[name], evidence)
        assert answer.value == pytest.approx(pe, rel=1e-9)


@pytest.mark.parametrize("route", ROUTES)
def test_mar_batch(oracle, route):
    model = zbddc.compile(oracle.path, route=route, device="cpu", expected_cases=CASES)
    cases = random_cases(model, CASES, seed=2)
    batch = model.mar(cases)
    assert batch.probabilities.shape == (len(cases), batch.offsets[-1])
    for c, evidence in enumerate(cases):
        if oracle.answer(evidence) is None:
            assert not batch.ok[c] and "probability 0" in batch.errors[c]
            assert np.isnan(batch.probabilities[c]).all()
            continue
        assert batch.ok[c]
        assert_matches(oracle, model, lambda name: batch[name][c], evidence)
    # The array form of the same cases gives the same answers, to rounding: a model kept between
    # calls of a few cases may answer the later ones from its full tables.
    rows, single = model.evidence(cases)
    assert not single
    again = model.mar(rows)
    np.testing.assert_allclose(again.probabilities, batch.probabilities, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("route", ROUTES)
def test_pr(oracle, route):
    model = zbddc.compile(oracle.path, route=route, device="cpu")
    cases = random_cases(model, CASES, seed=3)
    batch = model.pr(cases)
    for c, evidence in enumerate(cases):
        expected = oracle.answer(evidence)
        if expected is None:
            assert batch.value[c] == 0 and batch.log10[c] == -np.inf
            continue
        assert batch.value[c] == pytest.approx(expected[0], rel=1e-9)
        assert float(model.pr(evidence)) == pytest.approx(expected[0], rel=1e-9)


@pytest.mark.parametrize("route", ROUTES)
def test_mpe_value_is_the_probability_of_its_assignment(oracle, route):
    """The assignment agrees with the evidence, and the value reported is P(x) of that
    assignment by pyAgrum's CPTs; on networks of at most 8 variables it is the maximum too."""
    model = zbddc.compile(oracle.path, route=route, device="cpu")
    cases = [e for e in random_cases(model, CASES, seed=4) if oracle.answer(e) is not None]
    batch = model.mpe(cases)
    for c, evidence in enumerate(cases):
        assignment = batch.assignment[c]
        assert len(assignment) == len(model.variables)
        assert all(assignment[name] == state for name, state in evidence.items())
        assert batch.value[c] == pytest.approx(oracle.joint(assignment), rel=1e-9)
        if len(model.variables) <= 8:
            assert batch.value[c] == pytest.approx(brute_force_max(oracle, model, evidence),
                                                   rel=1e-9)


def brute_force_max(oracle, model, evidence):
    best = 0.0
    sizes = [len(v.states) for v in model.variables]
    for index in np.ndindex(*sizes):
        assignment = {v.name: v.states[s] for v, s in zip(model.variables, index)}
        if all(assignment[n] == s for n, s in evidence.items()):
            best = max(best, oracle.joint(assignment))
    return best
