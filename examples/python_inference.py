# %% [markdown]
# # zbddc from Python
#
# A notebook in plain Python (cells marked `# %%`, as Jupyter, VS Code and jupytext read them):
# compile a network once, then ask it PR, MAR and MPE for one case and for a batch of cases.
# `pip install .` at the repository's root installs the package;
# `python examples/python_inference.py [NET.bif]` runs it as a script (default: the small
# network of examples/, read from its ZBDD).

# %%
import os
import sys
import tempfile

import numpy as np

import zbddc

here = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "wetgrass.zdd")

# %% [markdown]
# ## A model
# `zbddc.load` reads every format the command line reads (.bif, .xmlbif, .net, .uai, .zdd,
# .wcsp, a compiled .so) and compiles it; `zbddc.compile` takes the same file (or model) with
# choices: `route` ("auto", "mlf", "jt", "lbp"), `device` ("auto", "cpu", "cuda"),
# `expected_cases` (the batch size the route choice weighs).

# %%
model = zbddc.load(path)
print(model)
print("route:", model.route, "-", model.route_why)
for v in model.variables[:5]:
    print(f"  {v.name}: {', '.join(v.states)}")

# %% [markdown]
# ## One case
# Evidence is a dict of variable name -> state name (or state index).

# %%
first = model.variables[-1]
evidence = {first.name: first.states[0]}
print("P(e) =", model.pr(evidence).value)
posterior = model.mar(evidence)
print(posterior)  # every posterior marginal, one line per variable
print(first.name, "->", posterior[first.name])  # states in the model's order, like pyAgrum's
explanation = model.mpe(evidence)
print("MPE:", explanation.assignment, "with P =", explanation.value)

# %% [markdown]
# ## A batch
# A 2-D integer array, cases x variables in `model.variables`' order, state indices and -1 for
# unobserved, runs as one batch (with the GIL released). Answers are NumPy arrays: the
# marginals one matrix, cases x all states, `offsets` telling where each variable's columns are.

# %%
rng = np.random.default_rng(0)
sizes = np.array([len(v.states) for v in model.variables])
cases = 1000
observed = rng.random((cases, len(sizes))) < 0.2
rows = np.where(observed, rng.integers(0, 1 << 30, (cases, len(sizes))) % sizes, -1)
batch = model.mar(rows)
print(batch)
print("probabilities:", batch.probabilities.shape, "offsets:", batch.offsets[:4], "...")
print(first.name, "over the first three cases:\n", batch[first.name][:3])
# A case whose evidence is impossible is not answered; the others are.
print("answered:", int(batch.ok.sum()), "of", len(batch))
for c in np.flatnonzero(~batch.ok)[:2]:
    print(f"  case {c}: {batch.errors[c]}")

# %% [markdown]
# ## The same cases as P(e), and a compiled library
# `model.save("net.so")` writes the compiled model with its plain C ABI; `zbddc.load` reads it
# back (so does `zbddc run net.so` and any C program, docs/c-api.md).

# %%
pr = model.pr(rows)
print("log10 P(e) of the first cases:", pr.log10[:3])
with tempfile.TemporaryDirectory() as folder:
    saved = os.path.join(folder, "model.so")
    model.save(saved)
    again = zbddc.load(saved)
    same = np.allclose(again.pr(rows).value, pr.value, rtol=1e-12, atol=0)
    print("the .so gives the same P(e):", same)
