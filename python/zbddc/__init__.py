"""zbddc from Python: exact inference on a compiled model, in process.

    import zbddc
    m = zbddc.load("alarm.bif")                # every format the command line reads
    m.pr({"HISTORY": "TRUE"}).value             # P(e)
    print(m.mar({"HISTORY": "TRUE"}))           # every posterior marginal
    m.mar(cases)["HISTORY"]                     # cases: a 2-D int array, -1 unobserved
    m.mpe({"HISTORY": "TRUE"}).assignment       # most probable explanation
    zbddc.load("problem.wcsp").solve().cost     # a cost network's optimum
    zbddc.compile("alarm.bif", route="jt", device="cpu", expected_cases=2000)

See Model for the forms evidence takes, and Marginals, Probability, Explanation and Solution for
the answers.
"""
from ._answers import (Answers, DeviceReport, Error, Explanation, Marginals, Probability,
                       Solution)
from ._model import Model, ReadingWarning, Variable, compile, load

__all__ = ["load", "compile", "Model", "Variable", "Answers", "DeviceReport", "Probability",
           "Marginals", "Explanation", "Solution", "Error", "ReadingWarning"]
__version__ = "0.1.0"
