"""Planning in reverse: from a budget to what it buys (`fit`), above the reference model.

`targets` says which plan input each `--solve` choice moves (and what follows it); `fit` solves it so
that one market's total development cost equals the budget, and says what binds.
"""
