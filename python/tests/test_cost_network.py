"""Cost networks (.wcsp) are solved: the optimum's cost and an assignment achieving it, against
brute force over every assignment of the file's cost functions (read here independently)."""
import itertools

import pytest

import zbddc
from conftest import SEEDS, benchmark


def read_wcsp(path):
    """(domains, upper bound, [(scope, default, {tuple: cost})]) of a toulbar2 .wcsp file."""
    tokens = open(path).read().split()
    pos = 1
    n, _, count, ub = (int(t) for t in tokens[pos:pos + 4])
    pos += 4
    domains = [int(t) for t in tokens[pos:pos + n]]
    pos += n
    functions = []
    for _ in range(count):
        arity = int(tokens[pos])
        scope = [int(t) for t in tokens[pos + 1:pos + 1 + arity]]
        default, listed = int(tokens[pos + 1 + arity]), int(tokens[pos + 2 + arity])
        pos += 3 + arity
        table = {}
        for _ in range(listed):
            table[tuple(int(t) for t in tokens[pos:pos + arity])] = int(tokens[pos + arity])
            pos += arity + 1
        functions.append((scope, default, table))
    return domains, ub, functions


def cost_of(functions, ub, assignment):
    total = sum(table.get(tuple(assignment[v] for v in scope), default)
                for scope, default, table in functions)
    return None if total >= ub else total


def brute_force(path):
    domains, ub, functions = read_wcsp(path)
    costs = [cost_of(functions, ub, a) for a in itertools.product(*map(range, domains))]
    feasible = [c for c in costs if c is not None]
    return (min(feasible) if feasible else None), functions, ub


@pytest.mark.parametrize("path", [lambda: str(SEEDS / "tiny.wcsp"),
                                  lambda: benchmark("wcsp", "4queens.wcsp")],
                         ids=["tiny", "4queens"])
def test_solve_is_the_optimum(path):
    path = path()
    optimum, functions, ub = brute_force(path)
    solution = zbddc.load(path).solve()
    assert solution.cost == optimum
    assert cost_of(functions, ub, solution.states.tolist()) == optimum
    assert len(solution.assignment) == len(solution.states)


def test_solve_needs_a_cost_network():
    with pytest.raises(zbddc.Error, match="solve\\(\\) is for cost networks"):
        zbddc.load(str(SEEDS / "tiny.bif")).solve()
