"""zbddc from Python: exact inference on a compiled model, in process.

    import zbddc
    m = zbddc.load("alarm.bif")                # every format the command line reads
    m.pr({"HISTORY": "TRUE"}).value             # P(e)
    print(m.mar({"HISTORY": "TRUE"}))           # every posterior marginal
    m.mar(cases)["HISTORY"]                     # cases: a 2-D int array, -1 unobserved
    m.mpe({"HISTORY": "TRUE"}).assignment       # most probable explanation
    zbddc.load("problem.wcsp").solve().cost     # a cost network's optimum
    zbddc.compile("alarm.bif", route="jt", device="cpu", expected_cases=2000)
    c = zbddc.Circuit("sudoku.sdd", device="cuda", semiring="log")   # a d-DNNF or SDD
    values, grad = c.forward(weights, grad=True)  # weights: (B, n, 2), NumPy or DLPack (GPU)

See Model for the forms evidence takes, Marginals, Probability, Explanation and Solution for
the answers, and Circuit for the weights' layout.
"""
from ._answers import (Answers, DeviceReport, Error, Explanation, Marginals, Probability,
                       Solution)
from ._circuit import Circuit
from ._model import Model, ReadingWarning, Variable, compile, load

__all__ = ["load", "compile", "Model", "Circuit", "Variable", "Answers", "DeviceReport",
           "Probability", "Marginals", "Explanation", "Solution", "Error", "ReadingWarning"]
__version__ = "0.1.0"
